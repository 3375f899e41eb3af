// A plain GET: what the client sees of the response (status, message, version, headers by
// name, rawHeaders names in wire order, body) and what the server sees of the request.
// The Date header's value is not printed (it is the clock's).
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21600;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer((req, res) => {
  log('server', 'request', req.method, req.url, req.httpVersion, req.headers);
  log('server', 'rawHeaders', req.rawHeaders);
  log('server', 'complete before body read', req.complete);
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Custom', 'yes');
  res.end('hello world');
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const agent = new http.Agent({ keepAlive: false });
http.get({ host: '127.0.0.1', port: PORT, path: '/path?q=1', agent, headers: { 'X-Req': 'abc' } }, (res) => {
  log('client', 'status', res.statusCode, res.statusMessage, res.httpVersion);
  const { date, ...rest } = res.headers;
  log('client', 'date present', typeof date === 'string', 'headers', rest);
  log('client', 'rawHeader names', res.rawHeaders.filter((_, i) => i % 2 === 0));
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => (body += chunk));
  res.on('end', () => {
    log('client', 'body', JSON.stringify(body), 'complete', res.complete);
    server.close(() => log('server', 'closed'));
  });
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
