// Upgrade: the server's 'upgrade' event gets the request, the raw socket and the bytes that
// came after the headers; it answers 101 and both sides then talk raw bytes. The client's
// 'upgrade' event gets the 101 response, its socket and any bytes after the 101 head.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21780;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer(() => log('server', 'request (unexpected)'));
server.on('upgrade', (req, socket, head) => {
  log('server', 'upgrade', req.url, req.headers.upgrade, req.headers.connection, 'head', JSON.stringify(String(head)));
  socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nwelcome;');
  socket.on('data', (data) => {
    log('server', 'raw data', JSON.stringify(String(data)));
    socket.end(`echo:${data}`);
  });
  socket.on('close', () => {
    log('server', 'raw socket close');
    server.close(() => log('server', 'closed'));
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const req = http.request({ host: '127.0.0.1', port: PORT, path: '/chat', headers: { Connection: 'Upgrade', Upgrade: 'echo' } });
req.on('upgrade', (res, socket, head) => {
  log('client', 'upgrade', res.statusCode, res.statusMessage, res.headers.upgrade, 'head', JSON.stringify(String(head)));
  let data = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => (data += chunk));
  socket.on('end', () => log('client', 'raw end; data', JSON.stringify(data)));
  socket.on('close', () => log('client', 'raw socket close'));
  socket.end('ping');
});
req.on('response', () => log('client', 'response (unexpected)'));
req.end();
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
