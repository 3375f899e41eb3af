// An unref'd listening server does not keep the process alive, nor do unref'd connected
// sockets (both ends must be unref'd: the accepted socket is a handle of its own). The
// process exits on its own with code 0 while everything is still open.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21150;
// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

const server = net.createServer((socket) => {
  log('server: connection');
  socket.on('data', (data) => {
    log('server: data', String(data));
    log('server: unref accepted socket returns socket', socket.unref() === socket);
  });
});
log('server: unref before listen returns server', server.unref() === server);
server.listen(PORT, '127.0.0.1', () => {
  log('server: listening');
  const client = net.connect(PORT, '127.0.0.1', () => {
    log('client: connect');
    client.write('hi');
    setTimeout(() => {
      log('client: unref client returns socket', client.unref() === client);
      log('client: ref then unref server', server.ref() === server, server.unref() === server);
    }, 20);
  });
  client.on('close', () => log('client: close (unexpected)'));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code, 'server still listening', server.listening);
});
