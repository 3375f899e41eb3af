// POST with a Content-Length body: the server sees the length header and no
// Transfer-Encoding, reads the whole body; the response, ended with a string, carries its own
// Content-Length. A second POST with an empty body sends Content-Length: 0.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21610;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  log('server', req.method, req.url, 'content-length', req.headers['content-length'], 'te', req.headers['transfer-encoding'], 'body', body.length, JSON.stringify(body.slice(0, 12)));
  res.end(`got ${body.length}`);
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

function post(path, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: PORT, path, method: 'POST', headers: { 'Content-Length': Buffer.byteLength(body) } }, async (res) => {
      let text = '';
      for await (const chunk of res) text += chunk;
      log('client', path, res.statusCode, 'content-length', res.headers['content-length'], 'te', res.headers['transfer-encoding'], 'body', JSON.stringify(text));
      resolve();
    });
    req.on('error', reject);
    req.end(body);
  });
}
await post('/big', 'abcdefghij'.repeat(10_000));
await post('/utf8', 'héllo wörld ✓');
await post('/empty', '');
server.close(() => log('server', 'closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
