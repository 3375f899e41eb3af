// resetAndDestroy() right after end(): libuv refuses to reset while the shutdown is pending
// (uv_tcp_close_reset: EINVAL), so Node emits 'error' (reset EINVAL), the socket never closes
// its handle, and the peer sees the data and an orderly end, no reset. (Found by review
// 2026-12-03; 20, 22 and 24 alike. Plainly the orphaned handle then keeps the process busy: it
// exits explicitly.)
// Then: a reset sent from an immediate after an end() from a read callback: the peer's poll
// finds data, FIN and reset together: 'end' at once on Node 20 and 22 (EPOLLHUP), after the
// immediate on Node 24 (libuv 1.52).
import net from 'node:net';
const logs = new Map();
const log = (name, line) => {
  if (!logs.has(name)) logs.set(name, []);
  logs.get(name).push(line);
};
let connections = 0;
const server = net.createServer({ allowHalfOpen: true }, (srv) => {
  const name = ++connections === 1 ? 'srv' : 'srv2';
  if (name === 'srv') srv.on('data', (d) => log(name, `data ${d}`));
  srv.on('end', () => {
    log(name, 'end');
    // Destroyed once the end is in (a fixed 30 ms timer lost the race under CPU load plainly).
    setTimeout(() => srv.destroy(), 5);
  });
  srv.on('error', (e) => log(name, `error ${e.code}`));
  srv.on('close', () => log(name, 'close'));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const client = net.connect({ port: server.address().port, host: '127.0.0.1', allowHalfOpen: true });
client.on('error', (e) => log('cli', `error ${e.code} ${e.syscall}`));
client.on('close', () => log('cli', 'close'));
await new Promise((r) => client.on('connect', r));
await new Promise((r) => setTimeout(r, 10));
setTimeout(() => {
  client.end('abc');
  client.resetAndDestroy();
  log('cli', `destroyed ${client.destroyed}`);
}, 1);
await new Promise((r) => setTimeout(r, 60));
{
  const accepted = new Promise((r) => server.once('connection', r));
  const c = net.connect({ port: server.address().port, host: '127.0.0.1', allowHalfOpen: true });
  c.on('error', () => {});
  await new Promise((r) => c.on('connect', r));
  const s = await accepted;
  s.on('data', (d) => {
    log('srv2', `data ${d}`);
    Promise.resolve().then(() => log('srv2', 'micro'));
    setImmediate(() => log('srv2', 'imm'));
  });
  c.once('data', () => {
    c.end('abc');
    setImmediate(() => c.resetAndDestroy());
  });
  await new Promise((r) => setTimeout(r, 10));
  setTimeout(() => s.write('go'), 1);
  await new Promise((r) => setTimeout(r, 40));
}
for (const [name, lines] of logs) console.log(`${name}: ${lines.join(', ')}`);
server.close();
process.exit(0);
