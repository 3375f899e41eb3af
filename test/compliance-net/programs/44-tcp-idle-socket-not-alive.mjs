// What keeps the process alive is libuv's notion of an active handle: a connected socket keeps
// it alive only while it is reading (or has writes, a connect or a shutdown pending). A socket
// that was never started reading (pauseOnConnect) does not, so the process exits although
// that connection is still open and an unref'd timer is pending.
import net from 'node:net';

const PORT = 41440;
const log = (...args) => console.log(...args);

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
process.on('exit', (code) => log('exit', code, 'server listening', server.listening));
