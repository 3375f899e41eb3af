// Writes made in one tick on loopback are in the receiver's socket buffer before it polls, so
// one read takes them together; writes made in later turns of the sender's loop are read apart.
// (The simulator delivered every write of a tick as its own read.) The reads of one libuv read
// loop (data, then EOF) are one turn of the receiver's loop too.
import net from 'node:net';

const chunks = (label, socket, done) => {
  const seen = [];
  socket.on('data', (d) => seen.push(String(d)));
  socket.on('end', () => {
    console.log(label, JSON.stringify(seen));
    done();
  });
};

await new Promise((resolve) => {
  // Client to server: three writes and end() in one tick; then, from the server, two writes
  // in one tick, a third after a timer (the server stays half open for it).
  const server = net.createServer({ allowHalfOpen: true }, (s) => {
    chunks('server read', s, () => {
      s.write('x');
      s.write('y');
      setTimeout(() => s.end('z'), 20);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const c = net.connect(server.address().port, '127.0.0.1', () => {
      c.write('a');
      c.write('b');
      c.end('c');
    });
    chunks('client read', c, () => server.close(resolve));
  });
});

await new Promise((resolve) => {
  // Writes in a nextTick and a microtask of the same tick join the same read; a write in a
  // timer 20 ms later is read on its own.
  const server = net.createServer((s) => {
    chunks('ticks: server read', s, () => {
      s.end();
      server.close(resolve);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const c = net.connect(server.address().port, '127.0.0.1', () => {
      c.write('1');
      process.nextTick(() => c.write('2'));
      Promise.resolve().then(() => c.write('3'));
      setTimeout(() => c.end('4'), 20);
    });
    c.resume();
  });
});

await new Promise((resolve) => {
  // Data and FIN sent in one tick are read by one libuv read loop: the 'data' callback, then
  // EOF, each with its ticks drained, but in one turn of the server's loop. What the server
  // writes from both (and its end) reaches the client's buffer before the client polls.
  const server = net.createServer((s) => {
    s.on('data', (d) => s.write(`data ${d};`));
    s.on('end', () => s.write('end;'));
  });
  server.listen(0, '127.0.0.1', () => {
    const c = net.connect(server.address().port, '127.0.0.1', () => c.end('q'));
    chunks('read loop: client read', c, () => server.close(resolve));
  });
});
