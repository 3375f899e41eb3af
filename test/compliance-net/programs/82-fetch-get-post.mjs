// Global fetch (undici) against node:http: GET with a query, JSON POST, a 404, response
// headers through the Headers object, redirect following, and a streamed body via
// response.body's reader.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21820;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  log('server', req.method, req.url, 'content-type', req.headers['content-type'], 'body', JSON.stringify(body));
  if (req.url === '/old') {
    res.writeHead(302, { Location: '/new' });
    return res.end();
  }
  if (req.url === '/missing') {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    return res.end('nope');
  }
  if (req.url === '/stream') {
    res.write('a');
    setTimeout(() => res.end('b'), 20);
    return;
  }
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('X-Two', ['1', '2']);
  res.end(JSON.stringify({ method: req.method, url: req.url, body }));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const base = `http://127.0.0.1:${PORT}`;
const get = await fetch(`${base}/items?id=7`);
log('client', 'GET', get.status, get.ok, get.statusText, get.headers.get('content-type'), get.headers.get('x-two'), await get.json());
const post = await fetch(`${base}/items`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ a: 1 }) });
log('client', 'POST', post.status, await post.json());
const missing = await fetch(`${base}/missing`);
log('client', '404', missing.status, missing.ok, await missing.text());
const redirected = await fetch(`${base}/old`);
log('client', 'redirect', redirected.status, redirected.redirected, new URL(redirected.url).pathname, (await redirected.json()).url);
const streamed = await fetch(`${base}/stream`);
const reader = streamed.body.getReader();
let text = '';
for (;;) {
  const { done, value } = await reader.read();
  if (done) break;
  text += Buffer.from(value).toString();
}
log('client', 'stream', JSON.stringify(text));
server.close(() => log('server', 'closed'));
server.closeAllConnections();
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
