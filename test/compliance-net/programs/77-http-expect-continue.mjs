// Expect: 100-continue. With a 'checkContinue' listener the server decides: writeContinue()
// lets the client send its body (the client's 'continue' event), or a final 417 answer
// refuses it without reading. Without a listener Node answers 100 itself.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21770;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const handler = async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  log('server', 'request', req.url, 'expect', req.headers.expect, 'body', JSON.stringify(body));
  res.end(`got ${body.length}`);
};
const server = http.createServer(handler);
server.on('checkContinue', (req, res) => {
  log('server', 'checkContinue', req.url);
  if (req.url === '/refuse') {
    res.writeHead(417);
    res.end('no');
    return;
  }
  res.writeContinue();
  handler(req, res);
});
const plainServer = http.createServer(handler);
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));
await new Promise((resolve) => plainServer.listen(PORT + 1, '127.0.0.1', resolve));

function post(port, path) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { Expect: '100-continue', 'Content-Length': 5 } });
    req.on('continue', () => {
      log('client', path, 'continue');
      req.end('hello');
    });
    req.on('information', (info) => log('client', path, 'information', info.statusCode, info.statusMessage));
    req.on('response', async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      log('client', path, 'response', res.statusCode, JSON.stringify(body));
      if (!req.writableEnded) req.destroy();
      resolve();
    });
    req.on('error', (err) => log('client', path, 'error', err.code));
    req.flushHeaders();
  });
}
await post(PORT, '/accept');
await post(PORT, '/refuse');
await post(PORT + 1, '/auto');
server.close(() => log('server', 'closed'));
plainServer.close(() => log('server', 'plain closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
