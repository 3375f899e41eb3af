// server.close() on a server that never listened: the callback gets ERR_SERVER_NOT_RUNNING
// and 'close' is still emitted; getConnections() on it; listen after close works.
import net from 'node:net';

const PORT = 21380;
const log = (...args) => console.log(...args);

const server = net.createServer();
server.on('close', () => log('close event'));
server.close((err) => log('close callback', err?.code, err?.message));
server.getConnections((err, count) => log('getConnections', err, count));
setTimeout(() => {
  server.listen(PORT, '127.0.0.1', () => {
    log('listening after close', server.listening);
    server.close((err) => log('second close callback', err));
  });
}, 10);
process.on('exit', (code) => log('exit', code));
