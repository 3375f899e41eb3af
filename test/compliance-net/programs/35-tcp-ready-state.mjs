// readyState, pending, connecting, readable/writable and the address getters through a
// socket's life: before connect, while connecting, open, after each half closes, destroyed.
import net from 'node:net';

const PORT = 21350;
const log = (...args) => console.log(...args);
const state = (s) => [s.readyState, s.pending, s.connecting, s.readable, s.writable, s.destroyed].join(' ');

const server = net.createServer({ allowHalfOpen: true }, (socket) => {
  socket.on('data', () => {});
  socket.on('end', () => setTimeout(() => socket.end(), 30));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const client = new net.Socket({ allowHalfOpen: true });
log('new', state(client), JSON.stringify(client.address()), client.remoteAddress, client.localPort);
client.connect(PORT, '127.0.0.1');
log('connecting', state(client), client.remoteAddress, client.remotePort);
client.on('connect', () => {
  log('connect', state(client), client.remoteAddress, client.remotePort === PORT);
  client.end();
  log('after end()', state(client));
});
client.on('finish', () => log('finish', state(client)));
client.on('end', () => log('end', state(client)));
client.on('close', () => {
  log('close', state(client), 'remote kept', client.remoteAddress, client.remotePort === PORT);
  server.close(() => log('server closed'));
});
client.resume();
process.on('exit', (code) => log('exit', code));
