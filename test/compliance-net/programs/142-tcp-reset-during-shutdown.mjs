// resetAndDestroy() right after end(): libuv refuses to reset while the shutdown is pending
// (uv_tcp_close_reset: EINVAL), so Node emits 'error' (reset EINVAL), the socket never closes
// its handle, and the peer sees the data and an orderly end, no reset. (Found by review
// 2026-12-03; 20, 22 and 24 alike. Plainly the orphaned handle then keeps the process busy: it
// exits explicitly.)
import net from 'node:net';
const logs = new Map();
const log = (name, line) => {
  if (!logs.has(name)) logs.set(name, []);
  logs.get(name).push(line);
};
const server = net.createServer({ allowHalfOpen: true }, (srv) => {
  srv.on('data', (d) => log('srv', `data ${d}`));
  srv.on('end', () => log('srv', 'end'));
  srv.on('error', (e) => log('srv', `error ${e.code}`));
  srv.on('close', () => log('srv', 'close'));
  setTimeout(() => srv.destroy(), 30);
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
for (const [name, lines] of logs) console.log(`${name}: ${lines.join(', ')}`);
server.close();
process.exit(0);
