// setNoDelay / setKeepAlive return the socket, before and after connecting, with and without
// arguments; the noDelay / keepAlive options of net.connect and net.createServer are accepted.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21140;
// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

const server = net.createServer({ noDelay: true, keepAlive: true, keepAliveInitialDelay: 1000 }, (socket) => {
  log('server: setNoDelay', socket.setNoDelay() === socket, socket.setNoDelay(false) === socket);
  log('server: setKeepAlive', socket.setKeepAlive(true, 5000) === socket, socket.setKeepAlive(false) === socket);
  socket.end('x');
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const client = new net.Socket();
log('before connect: setNoDelay', client.setNoDelay(true) === client, 'setKeepAlive', client.setKeepAlive(true, 1000) === client);
client.connect({ port: PORT, host: '127.0.0.1', noDelay: true, keepAlive: true, keepAliveInitialDelay: 500 }, () => {
  log('connected: setNoDelay', client.setNoDelay() === client, client.setNoDelay(true) === client, client.setNoDelay(false) === client);
  log('connected: setKeepAlive', client.setKeepAlive() === client, client.setKeepAlive(true) === client, client.setKeepAlive(true, 30000) === client);
});
client.on('data', (data) => log('client: data', String(data)));
client.on('end', () => {
  client.end();
  server.close(() => log('server closed'));
});
client.on('close', () => {
  log('after close: setNoDelay', client.setNoDelay(true) === client, 'setKeepAlive', client.setKeepAlive(true) === client);
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
