// An unref'd listening server does not keep the process alive, nor do unref'd connected
// sockets (both ends must be unref'd: the accepted socket is a handle of its own). The
// process exits on its own with code 0 while everything is still open.
import net from 'node:net';

const PORT = 41150;
const log = (...args) => console.log(...args);

const server = net.createServer((socket) => {
  log('server: connection');
  socket.on('data', (data) => {
    log('server: data', String(data));
    log('server: unref accepted socket returns socket', socket.unref() === socket);
  });
});
log('unref before listen returns server', server.unref() === server);
server.listen(PORT, '127.0.0.1', () => {
  log('listening');
  const client = net.connect(PORT, '127.0.0.1', () => {
    log('client: connect');
    client.write('hi');
    setTimeout(() => {
      log('unref client returns socket', client.unref() === client);
      log('ref then unref server', server.ref() === server, server.unref() === server);
    }, 20);
  });
  client.on('close', () => log('client: close (unexpected)'));
});
process.on('exit', (code) => log('exit', code, 'server still listening', server.listening));
