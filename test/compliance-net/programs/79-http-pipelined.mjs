// Pipelining: three requests written in one burst on one connection are parsed in order and
// answered in order, even when the first handler answers last; the server holds later
// responses until earlier ones are done.
import http from 'node:http';
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21790;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const delays = { '/a': 60, '/b': 0, '/c': 20 };
const server = http.createServer((req, res) => {
  log('server', 'request', req.url);
  res.on('finish', () => log('server', 'finish', req.url));
  setTimeout(() => res.end(`body${req.url}`), delays[req.url]);
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const socket = net.connect(PORT, '127.0.0.1');
let data = '';
socket.setEncoding('utf8');
socket.on('data', (chunk) => (data += chunk));
socket.on('close', () => {
  const bodies = data.split('\r\n\r\n').slice(1).map((part) => part.split('HTTP/1.1')[0]);
  log('client', 'statuses', data.match(/HTTP\/1\.1 \d+ [A-Za-z ]+/g));
  log('client', 'bodies', bodies);
  log('client', 'last connection header', data.match(/Connection: [a-z-]+/g));
  server.close(() => log('server', 'closed'));
});
socket.write(
  'GET /a HTTP/1.1\r\nHost: x\r\n\r\n' +
  'GET /b HTTP/1.1\r\nHost: x\r\n\r\n' +
  'GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
);
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
