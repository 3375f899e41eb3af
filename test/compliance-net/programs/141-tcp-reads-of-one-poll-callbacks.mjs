// The reads libuv makes of one socket in one poll (140), against what the program does in the
// read callbacks (found by review, 2026-12-03; measured on 20, 22 and 24):
// - a callback busy for 30 ms: the next read of the same poll still comes before the immediate
//   and the timer that came due meanwhile;
// - a stream at its highWaterMark (for await) stops reading in the callback and starts again in
//   its ticks: libuv's loop sees it reading again and goes on in this poll;
// - an immediate queued from a nextTick or a microtask of the read's callback comes before the
//   next poll's read (the EOF), as one queued from the callback itself;
// - a write in the same tick as the peer's write-and-reset fails with ECONNRESET (on loopback the
//   reset is in this socket's kernel state at once);
// - an http request body over 64 KiB: its 'end' (parsed inside the last read) comes before the
//   immediates its 'data' callbacks queued.
import http from 'node:http';
import net from 'node:net';
const logs = new Map();
const log = (name, line) => {
  if (!logs.has(name)) logs.set(name, []);
  logs.get(name).push(line);
};
const settle = (ms = 10) => new Promise((r) => setTimeout(r, ms));
const server = net.createServer({ allowHalfOpen: true });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;

async function pair() {
  const accepted = new Promise((r) => server.once('connection', r));
  const client = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  client.on('error', () => {});
  await new Promise((r) => client.on('connect', r));
  const srv = await accepted;
  await settle();
  return { client, srv };
}

{
  const { client, srv } = await pair();
  srv.on('data', (d) => {
    log('busy', `data ${d.length}`);
    if (logs.get('busy').length === 1) {
      setImmediate(() => log('busy', 'imm'));
      setTimeout(() => log('busy', 'timer'), 5);
      const t = Date.now();
      while (Date.now() - t < 30);
    }
  });
  srv.on('end', () => log('busy', 'end'));
  setTimeout(() => client.end(Buffer.alloc(131072)), 1);
  await settle(80);
  client.destroy();
  srv.destroy();
}
{
  const { client, srv } = await pair();
  const done = (async () => {
    for await (const chunk of srv) {
      log('for-await', `chunk ${chunk.length}`);
      setImmediate(() => log('for-await', 'imm'));
    }
    log('for-await', 'done');
  })();
  setTimeout(() => client.end(Buffer.alloc(140000)), 1);
  await done;
  await settle();
  client.destroy();
}
for (const [name, how] of [['tick', (f) => process.nextTick(f)], ['micro', (f) => queueMicrotask(f)], ['sync', (f) => f()]]) {
  const { client, srv } = await pair();
  srv.on('data', (d) => {
    log(name, `data ${d.length}`);
    how(() => setImmediate(() => log(name, 'imm')));
  });
  srv.on('end', () => log(name, 'end'));
  setTimeout(() => client.end('hello'), 1);
  await settle(30);
  client.destroy();
  srv.destroy();
}
{
  const { client, srv } = await pair();
  srv.on('error', (e) => log('write-after-reset', `error ${e.code}`));
  srv.on('close', () => log('write-after-reset', 'close'));
  setTimeout(() => {
    client.write('abc');
    client.resetAndDestroy();
    srv.write('back', (e) => log('write-after-reset', `write callback ${e?.code}`));
  }, 1);
  await settle(30);
  srv.destroy();
}
server.close();

const web = http.createServer((req, res) => {
  req.on('data', (d) => {
    log('http', `data ${d.length}`);
    setImmediate(() => log('http', 'imm'));
  });
  req.on('end', () => {
    log('http', 'end');
    res.end('ok');
  });
});
await new Promise((r) => web.listen(0, '127.0.0.1', r));
for (const size of [1000, 70000, 150000]) {
  log('http', `-- ${size}`);
  await new Promise((resolve) => {
    const req = http.request({ port: web.address().port, host: '127.0.0.1', method: 'POST', agent: false }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.end(Buffer.alloc(size));
  });
  await settle();
}
web.close();
for (const [name, lines] of logs) console.log(`${name}: ${lines.join(', ')}`);
