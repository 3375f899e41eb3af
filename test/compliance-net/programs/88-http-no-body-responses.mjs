// Responses without a body: HEAD gets the headers GET would (Content-Length included) and no
// body bytes; 204 and 304 carry no body, no Content-Length and no Transfer-Encoding; the
// connection stays usable for the next request (keep-alive agent, one socket).
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21880;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

let connections = 0;
const server = http.createServer((req, res) => {
  if (req.url === '/204') {
    res.statusCode = 204;
    return res.end();
  }
  if (req.url === '/304') {
    res.writeHead(304, { ETag: '"v1"' });
    return res.end();
  }
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('Content-Length', 12);
  const ret = res.end(req.method === 'HEAD' ? undefined : 'hello there!');
  log('server', req.method, req.url, 'end returned the response', ret === res);
});
server.on('connection', () => connections++);
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const request = (method, path) => new Promise((resolve) => {
  http.request({ host: '127.0.0.1', port: PORT, method, path, agent }, async (res) => {
    let body = '';
    for await (const chunk of res) body += chunk;
    log('client', method, path, res.statusCode, res.statusMessage, 'length', res.headers['content-length'], 'te', res.headers['transfer-encoding'], 'etag', res.headers.etag, 'body', JSON.stringify(body));
    resolve();
  }).end();
});
await request('HEAD', '/doc');
await request('GET', '/doc');
await request('GET', '/204');
await request('GET', '/304');
await request('GET', '/doc');
log('client', 'connections', connections);
agent.destroy();
server.close(() => log('server', 'closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
