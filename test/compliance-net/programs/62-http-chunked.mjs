// Chunked transfer encoding both ways: a request written in several pieces without a length
// goes out chunked, with trailers; a response written in pieces comes back chunked, with
// trailers declared in a Trailer header.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21620;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer((req, res) => {
  log('server', 'te', req.headers['transfer-encoding'], 'content-length', req.headers['content-length']);
  const parts = [];
  req.on('data', (chunk) => parts.push(String(chunk)));
  req.on('end', () => {
    log('server', 'body', JSON.stringify(parts.join('')), 'trailers', req.trailers, 'rawTrailers', req.rawTrailers);
    res.setHeader('Trailer', 'X-Checksum');
    res.write('one;');
    res.write('two;');
    setTimeout(() => {
      res.write('three;');
      res.addTrailers({ 'X-Checksum': 'abc123' });
      res.end();
    }, 20);
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const req = http.request({ host: '127.0.0.1', port: PORT, method: 'PUT', path: '/up', headers: { Trailer: 'X-Up' } }, (res) => {
  log('client', 'status', res.statusCode, 'te', res.headers['transfer-encoding'], 'trailer header', res.headers.trailer, 'content-length', res.headers['content-length']);
  const parts = [];
  res.on('data', (chunk) => parts.push(String(chunk)));
  res.on('end', () => {
    log('client', 'body', JSON.stringify(parts.join('')), 'trailers', res.trailers);
    server.close(() => log('server', 'closed'));
  });
});
req.write('a');
req.write('bc');
setTimeout(() => {
  req.addTrailers({ 'X-Up': 'done' });
  req.end('def');
}, 20);
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
