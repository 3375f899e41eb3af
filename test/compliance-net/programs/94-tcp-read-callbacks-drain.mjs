// Every read of a socket is its own callback in Node (MakeCallback from the poll phase), and
// nextTicks and microtasks queued by one run before the next read of the same socket: before
// the EOF that was buffered behind data, and before the next chunk of another write.
// (The simulator delivered buffered data and EOF, or several segments, in one event.)
import net from 'node:net';

const log = (...args) => console.log(...args);

// 1. Data and EOF both buffered while paused, then resumed.
await new Promise((resolve) => {
  const server = net.createServer((s) => s.end('hello'));
  server.listen(0, '127.0.0.1', () => {
    const c = net.connect(server.address().port, '127.0.0.1');
    c.pause();
    setTimeout(() => {
      c.on('data', (d) => {
        log('paused: data', String(d));
        process.nextTick(() => process.nextTick(() => log('paused: nested tick queued by data')));
        Promise.resolve().then(() => Promise.resolve()).then(() => log('paused: microtasks queued by data'));
      });
      c.on('end', () => log('paused: end'));
      c.on('close', () => server.close(resolve));
      c.resume();
    }, 50);
  });
});

// 2. Two writes on 20 connections, the second once the server has answered the first (so the
// kernel cannot put them in one read): two reads each, each drained before the next.
await new Promise((resolve) => {
  const N = 20;
  let pendingTick = false;
  let withoutDrain = 0;
  let reads = 0;
  let done = 0;
  const server = net.createServer((s) => {
    s.on('data', () => {
      reads++;
      if (pendingTick) withoutDrain++;
      pendingTick = true;
      process.nextTick(() => { pendingTick = false; });
      s.write('k');
    });
    s.on('end', () => {
      s.end();
      if (++done === N) {
        log('writes: reads', reads, 'reads before the previous read\'s nextTick', withoutDrain);
        server.close(resolve);
      }
    });
  });
  server.listen(0, '127.0.0.1', () => {
    for (let i = 0; i < N; i++) {
      const c = net.connect(server.address().port, '127.0.0.1', () => c.write('a'));
      c.once('data', () => {
        c.write('b');
        c.end();
      });
      c.resume();
    }
  });
});
process.on('exit', (code) => log('exit', code));
