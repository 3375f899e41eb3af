// requestTimeout: headers arrive at once but the body (Content-Length: 10) stops after 3
// bytes; the server answers 408 and closes. The request handler ran, saw the partial body and
// the request 'close'.
import http from 'node:http';
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21710;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer({ headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 100 }, (req, res) => {
  log('server', 'request', req.method, req.url, req.headers['content-length']);
  let got = '';
  req.on('data', (chunk) => (got += chunk));
  req.on('close', () => log('server', 'req close; body so far', JSON.stringify(got), 'complete', req.complete));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const socket = net.connect(PORT, '127.0.0.1');
let data = '';
socket.setEncoding('utf8');
socket.on('data', (chunk) => (data += chunk));
socket.on('close', () => {
  log('client', 'closed; first line', JSON.stringify(data.split('\r\n')[0]), 'connection', data.match(/\r\nConnection: ([^\r]*)/)?.[1]);
  server.close(() => log('server', 'closed'));
});
socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc');
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
