// server.maxConnections: a connection beyond the limit is accepted by the kernel and closed
// at once by Node ('drop' event on the server, with its addresses); the client sees it end.
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21300;
// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

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
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
