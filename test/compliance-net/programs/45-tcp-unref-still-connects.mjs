// An unref'd socket still completes its connect (the connect request keeps the loop alive,
// whatever the handle's ref), and then lets the process exit: an unref'd reading socket does
// not keep it alive (the accepted socket on the server side is unref'd too).
import net from 'node:net';

const PORT = 21450;
const log = (...args) => console.log(...args);

const server = net.createServer((socket) => {
  socket.on('error', () => {});
  socket.unref();
});
server.listen(PORT, '127.0.0.1', () => {
  server.unref();
  const client = net.connect(PORT, '127.0.0.1');
  client.unref();
  client.on('connect', () => log('client: connect'));
  client.on('close', () => log('client: close (unexpected)'));
});
process.on('exit', (code) => log('exit', code));
