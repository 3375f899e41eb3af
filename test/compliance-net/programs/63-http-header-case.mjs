// Header names and values: the case the user wrote is what goes on the wire (rawHeaders), the
// headers object is lower case; repeated headers join with ', ' except set-cookie (an array);
// headersDistinct keeps every value; getHeaderNames / hasHeader / removeHeader on the server
// response; writeHead merges with setHeader.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21630;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer((req, res) => {
  log('server', 'rawHeaders', req.rawHeaders);
  log('server', 'x-multi', JSON.stringify(req.headers['x-multi']), 'distinct', req.headersDistinct['x-multi']);
  res.setHeader('Set-Cookie', ['a=1', 'b=2']);
  res.setHeader('x-lower', 'l');
  res.setHeader('X-UPPER', 'U');
  res.setHeader('X-Remove', 'r');
  res.removeHeader('x-remove');
  log('server', 'names', res.getHeaderNames(), 'has X-LOWER', res.hasHeader('X-LOWER'), 'get', res.getHeader('x-upper'));
  res.writeHead(201, 'Made It', { 'X-Head': 'h', 'Content-Type': 'text/plain; charset=utf-8' });
  log('server', 'headersSent', res.headersSent);
  res.end('ok');
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const req = http.request({
  host: '127.0.0.1',
  port: PORT,
  path: '/',
  headers: { 'X-Multi': ['one', 'two'], 'X-MiXeD': 'Case' },
});
req.on('response', (res) => {
  log('client', 'status', res.statusCode, JSON.stringify(res.statusMessage));
  const raw = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i] !== 'Date') raw.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  log('client', 'raw', raw);
  log('client', 'set-cookie', res.headers['set-cookie'], 'x-upper', res.headers['x-upper'], 'content-type', res.headers['content-type']);
  res.resume();
  res.on('end', () => server.close(() => log('server', 'closed')));
});
req.end();
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
