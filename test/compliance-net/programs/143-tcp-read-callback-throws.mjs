// A 'data' listener that throws, with an 'uncaughtException' handler: the process lives on,
// and so do the socket's reads (libuv's loop goes on after the callback): the rest of the data
// and the end arrive. The simulator lost them and reported the run idle until 2026-12-03
// (found by review; 20, 22 and 24 alike).
import net from 'node:net';
const log = [];
process.on('uncaughtException', (e) => log.push(`uncaught ${e.message}`));
const server = net.createServer({ allowHalfOpen: true }, (srv) => {
  let reads = 0;
  srv.on('data', (d) => {
    log.push(`data ${d.length}`);
    if (++reads === 1) throw new Error('boom');
  });
  srv.on('end', () => {
    log.push('end');
    srv.end();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const client = net.connect({ port: server.address().port, host: '127.0.0.1', allowHalfOpen: true });
await new Promise((r) => client.on('connect', r));
client.resume();
client.on('end', () => {
  client.destroy();
  server.close();
  console.log(log.join(', '));
});
setTimeout(() => client.end(Buffer.alloc(140000)), 5);
