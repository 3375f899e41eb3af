// server.close() stops accepting at once (a new connection is refused, 'listening' is false)
// but its callback and 'close' event wait until the last open connection has closed.
// getConnections() counts the connections still open.
import net from 'node:net';

const PORT = 21100;
const log = (...args) => console.log(...args);
const sockets = [];

const server = net.createServer((socket) => {
  sockets.push(socket);
  socket.on('close', () => log('server: a connection closed'));
});
server.on('close', () => log('server: close event', server.listening));
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const connect = () => new Promise((resolve, reject) => {
  const client = net.connect(PORT, '127.0.0.1', () => resolve(client));
  client.once('error', reject);
});
const a = await connect();
const b = await connect();
await new Promise((resolve) => setTimeout(resolve, 100));
await new Promise((resolve) => server.getConnections((err, count) => {
  log('getConnections before close', err, count);
  resolve();
}));

let closed = false;
const ret = server.close((err) => {
  closed = true;
  log('server: close callback', err);
});
log('close returns the server', ret === server, 'listening', server.listening, 'address', server.address());

try {
  await connect();
  log('new connection after close (unexpected)');
} catch (err) {
  log('new connection after close', err.code);
}

a.end();
await new Promise((resolve) => a.on('close', resolve));
await new Promise((resolve) => setTimeout(resolve, 100));
log('after first client closed: server closed?', closed);
await new Promise((resolve) => server.getConnections((err, count) => {
  log('getConnections after one closed', err, count);
  resolve();
}));
b.end();
await new Promise((resolve) => b.on('close', resolve));
await new Promise((resolve) => setTimeout(resolve, 100));
log('after second client closed: server closed?', closed);
server.close((err) => log('second close callback', err?.code, err?.message));
process.on('exit', (code) => log('exit', code));
