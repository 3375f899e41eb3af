// A client connects from a timer callback; the server closes its listener in an immediate
// queued right after (what stoppable's server.stop() does). On loopback connect(2) runs the
// whole handshake: the server accepts and the client connects in the poll phase before the
// immediate, so the listener's close leaves the connection open (the server then destroys it).
// A connect to a port nobody listens on is refused before an immediate queued after it.
import net from 'node:net';

const log = [];
const server = net.createServer((socket) => {
  log.push('server accepted');
  socket.destroy();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();
await new Promise((resolve) => setTimeout(() => {
  const client = net.connect(port, '127.0.0.1');
  client.on('connect', () => log.push('client connect'));
  client.on('error', (error) => log.push(`client error ${error.code}`));
  client.on('close', () => {
    log.push('client close');
    resolve();
  });
  setImmediate(() => {
    log.push('immediate: server.close()');
    server.close();
  });
}, 10));
const closed = net.createServer();
await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
const closedPort = closed.address().port;
await new Promise((resolve) => closed.close(resolve));
await new Promise((resolve) => setTimeout(() => {
  const client = net.connect(closedPort, '127.0.0.1');
  client.on('error', (error) => log.push(`refused client error ${error.code}`));
  client.on('close', resolve);
  setImmediate(() => log.push('immediate after the refused connect'));
}, 10));
console.log(log.join('\n'));
