// server.maxConnections: a connection beyond the limit is accepted by the kernel and closed
// at once by Node ('drop' event on the server, with its addresses); the client sees it end.
import net from 'node:net';

const PORT = 41300;
const log = (...args) => console.log(...args);

const server = net.createServer((socket) => {
  log('server: connection');
  socket.on('end', () => socket.end());
});
server.maxConnections = 1;
server.on('drop', (data) => {
  log('server: drop', data && {
    localAddress: data.localAddress,
    localPort: data.localPort === PORT,
    localFamily: data.localFamily,
    remoteAddress: data.remoteAddress,
    remoteFamily: data.remoteFamily,
    remotePort: typeof data.remotePort,
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const first = net.connect(PORT, '127.0.0.1');
await new Promise((resolve) => first.on('connect', resolve));
await new Promise((resolve) => setTimeout(resolve, 20));

await new Promise((resolve) => {
  const second = net.connect(PORT, '127.0.0.1');
  second.on('connect', () => log('second: connect (the kernel accepted it)'));
  second.on('end', () => log('second: end'));
  second.on('error', (err) => log('second: error', err.code));
  second.on('close', (hadError) => {
    log('second: close', hadError);
    resolve();
  });
});
first.end();
first.on('close', () => server.close(() => log('server closed')));
process.on('exit', (code) => log('exit', code));
