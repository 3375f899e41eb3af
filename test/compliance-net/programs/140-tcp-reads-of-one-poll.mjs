// What libuv reads of one socket in one poll (uv__read, uv__stream_io), against the
// immediates and microtasks its callbacks queue:
// - a read that fills its buffer (64 KiB, or an onread buffer's size) is followed by the next in
//   the same poll, up to 32 reads;
// - a partial read ends the poll's reads, and the EOF or reset behind it is read in the next
//   poll; except, before libuv 1.52 (Node 20 and 22), under EPOLLHUP (the peer's FIN in and this
//   side shut down before the poll, or a reset in), where EOF follows at once: data and a reset
//   read in one poll give 'data' and 'end', no 'error'. Node 24 (libuv 1.52) reads the EOF or
//   the ECONNRESET in the next poll.
// Each socket's events are logged apart: which of two sockets a poll reads first depends on
// the seed (their packets' loopback latency), as it would between processes.
// (Found by review 2026-12-03, measured on 20, 22 and 24.)
import net from 'node:net';
const logs = new Map();
const log = (name, line) => {
  if (!logs.has(name)) logs.set(name, []);
  logs.get(name).push(line);
};
const server = net.createServer({ allowHalfOpen: true });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
const settle = (ms = 10) => new Promise((r) => setTimeout(r, ms));

function watch(socket, name) {
  socket.on('data', (d) => {
    log(name, `data ${d.length}`);
    setImmediate(() => log(name, 'imm'));
    Promise.resolve().then(() => log(name, 'micro'));
  });
  socket.on('end', () => log(name, 'end'));
  socket.on('finish', () => log(name, 'finish'));
  socket.on('error', (e) => log(name, `error ${e.code}`));
  socket.on('close', () => log(name, 'close'));
}

/** A connected pair: the client and the server's socket, both half-open unless said. */
async function pair(name, { serverHalfOpen = true } = {}) {
  const accepted = new Promise((r) => server.once('connection', r));
  const client = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  await new Promise((r) => client.on('connect', r));
  const srv = await accepted;
  srv.allowHalfOpen = serverHalfOpen;
  watch(client, `${name}.cli`);
  watch(srv, `${name}.srv`);
  await settle();
  return { client, srv };
}

async function section(title, name, options, act) {
  const { client, srv } = await pair(name, options);
  setTimeout(() => {
    log(`${name}.cli`, `-- ${title}`);
    log(`${name}.srv`, `-- ${title}`);
    act(client, srv);
  }, 1);
  await settle(30);
  client.destroy();
  srv.destroy();
  await settle();
}

await section('both end with data in one timer', 'a', {}, (c, s) => { c.end('bye'); s.end('srvbye'); });
await section('client ends with data', 'b', {}, (c) => c.end('bye'));
await section('server ended before, client ends with data', 'c', {}, (c, s) => { s.end(); setTimeout(() => c.end('bye'), 5); });
await section('write and reset in one tick', 'd', { serverHalfOpen: false }, (c) => { c.write('x'); c.resetAndDestroy(); });
await section('server ended before, write and reset', 'e', {}, (c, s) => { s.end(); setTimeout(() => { c.write('x'); c.resetAndDestroy(); }, 5); });
await section('reset alone', 'f', {}, (c) => c.resetAndDestroy());
await section('server ends in its data callback', 'g', {}, (c, s) => { s.once('data', () => s.end('resp')); c.end('req'); });
await section('128 KiB in one write', 'h', {}, (c) => c.write(Buffer.alloc(131072)));
{
  // 40 KiB into a 1 KiB onread buffer: 32 reads in the first poll, the other 8 in the next.
  let reads = 0;
  const accepted = new Promise((r) => server.once('connection', r));
  const client = net.connect({
    port,
    host: '127.0.0.1',
    onread: {
      buffer: Buffer.alloc(1024),
      callback: () => {
        if (++reads === 1) setImmediate(() => log('i.cli', `imm after ${reads} reads`));
      },
    },
  });
  const srv = await accepted;
  await settle();
  setTimeout(() => srv.write(Buffer.alloc(40960)), 1);
  await settle(30);
  log('i.cli', `${reads} reads`);
  client.destroy();
  srv.destroy();
}
for (const [name, lines] of logs) console.log(`${name}: ${lines.join(', ')}`);
server.close();
