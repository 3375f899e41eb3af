// What keeps the process alive is libuv's notion of an active handle: a connected socket keeps
// it alive only while it is reading (or has writes, a connect or a shutdown pending). A socket
// that was never started reading (pauseOnConnect) does not, so the process exits although
// that connection is still open and an unref'd timer is pending.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21440;
// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

const server = net.createServer({ pauseOnConnect: true }, (socket) => {
  log('server: connection (not reading)', socket.isPaused());
  server.unref();
  setTimeout(() => log('unref timer fired (unexpected: nothing should keep the process alive)'), 500).unref();
});
server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    log('client: connect');
    client.unref();
  });
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code, 'server listening', server.listening);
});
