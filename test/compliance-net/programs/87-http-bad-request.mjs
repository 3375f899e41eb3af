// Malformed requests: the server's 'clientError' event gets the parse error (code, and
// bytesParsed) and the socket; without a listener Node answers 400 Bad Request and closes.
// A listener may write its own answer.
import http from 'node:http';
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21870;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const custom = http.createServer(() => log('server', 'request (unexpected)'));
custom.on('clientError', (err, socket) => {
  log('server', 'clientError', err.code, err.bytesParsed, JSON.stringify(String(err.rawPacket ?? '').slice(0, 10)));
  socket.end('HTTP/1.1 418 Teapot\r\nConnection: close\r\n\r\n');
});
const defaults = http.createServer(() => log('server', 'request (unexpected)'));
await new Promise((resolve) => custom.listen(PORT, '127.0.0.1', resolve));
await new Promise((resolve) => defaults.listen(PORT + 1, '127.0.0.1', resolve));

const raw = (port, bytes) => new Promise((resolve) => {
  const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
  let data = '';
  socket.on('data', (chunk) => (data += chunk));
  socket.on('error', (err) => log('client', 'error', err.code));
  socket.on('close', () => {
    log('client', port - PORT, JSON.stringify(bytes.slice(0, 12)), '->', JSON.stringify(data.split('\r\n')[0]));
    resolve();
  });
});
await raw(PORT, 'BLAH / HTTP/1.1\r\n\r\n');
await raw(PORT, 'GET / HTTP/1.1\r\nBad Header\r\n\r\n');
await raw(PORT + 1, 'GET / HTTP/9.9\r\n\r\n');
await raw(PORT + 1, 'GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n');
custom.close(() => log('server', 'custom closed'));
defaults.close(() => log('server', 'defaults closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
