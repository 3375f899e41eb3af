// HTTP over a unix socket: http.request({ socketPath }) with the default agent (keep-alive),
// POST body, 404 via writeHead (chunked, no content-length), an explicit host (Host header
// example.test, new agent key, so a new socket); the Host header is 'localhost' by default.
// A keepAlive Agent with maxSockets 1 reuses one socket for 3 sequential and 3 concurrent
// requests (reusedSocket: true for the sequential ones and the first queued one, false for the
// 2nd/3rd queued ones); the agent key is 'localhost:80::<path>' in freeSockets but
// getName({ socketPath }) gives 'localhost:::<path>'. keepAlive false: connection: close, a new
// socket per request. A request to a missing socket path: ENOENT connect.
// req.socket.remoteAddress is undefined on the server.
// Measured: Node 20, 22, 24 identical, 5 plain + 3 loaded runs each.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const hide = (s) => (typeof s === 'string' ? s.split(dir).join('DIR') : s);
const log = (...args) => console.log(...args.map(hide));
const sockPath = path.join(dir, 'http.sock');

const serverSockets = new Set();
let requestCount = 0;
const server = http.createServer((req, res) => {
  requestCount++;
  serverSockets.add(req.socket);
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    log('server request', req.method, req.url, 'host', req.headers.host, 'x-test', req.headers['x-test'],
      'connection', req.headers.connection, 'body', JSON.stringify(body),
      'remoteAddress', req.socket.remoteAddress, 'httpVersion', req.httpVersion);
    if (req.url === '/missing') {
      res.writeHead(404, { 'content-type': 'text/plain', 'x-reply': 'nope' });
      res.end('not found');
      return;
    }
    res.setHeader('x-reply', `r${requestCount}`);
    res.setHeader('content-type', 'text/plain');
    res.end(`hello ${req.method} ${req.url} ${body}`);
  });
});

await new Promise((resolve) => server.listen(sockPath, resolve));
log('server address', server.address());

function request(options, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: sockPath, ...options }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (data += d));
      res.on('end', () => {
        const h = res.headers;
        log('client response', res.statusCode, res.statusMessage, JSON.stringify(data),
          'x-reply', h['x-reply'], 'content-type', h['content-type'], 'content-length', h['content-length'],
          'connection', h.connection, 'keep-alive', h['keep-alive'], 'reusedSocket', req.reusedSocket);
        resolve(req.socket);
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// default agent (keep-alive by default since Node 19)
await request({ path: '/a', headers: { 'x-test': '1' } });
await request({ method: 'POST', path: '/b', headers: { 'content-type': 'text/plain' } }, 'payload');
await request({ path: '/missing' });
// the Host header defaults to localhost when only socketPath is given; an explicit host wins
await request({ path: '/host', host: 'example.test', headers: { 'x-test': 'host' } });

// a keep-alive agent with socketPath: three sequential requests reuse one socket
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const sockets = [];
for (let i = 1; i <= 3; i++) sockets.push(await request({ agent, path: `/ka${i}` }));
log('agent: same socket', sockets[0] === sockets[1] && sockets[1] === sockets[2]);
log('agent: free socket names', Object.keys(agent.freeSockets).map(hide));
log('agent: getName', hide(agent.getName({ socketPath: sockPath })));
// three concurrent requests through maxSockets 1 queue on one socket
const concurrent = await Promise.all([1, 2, 3].map((i) => request({ agent, path: `/q${i}` })));
log('agent: concurrent on one socket', concurrent.every((s) => s === sockets[0]));
agent.destroy();

// an agent without keep-alive: 'connection: close', a new socket each time
const closeAgent = new http.Agent({ keepAlive: false });
const s1 = await request({ agent: closeAgent, path: '/c1' });
const s2 = await request({ agent: closeAgent, path: '/c2' });
log('no keep-alive: different sockets', s1 !== s2);

// http.get with a socketPath and agent: false
await new Promise((resolve) => {
  http.get({ socketPath: sockPath, path: '/get', agent: false }, (res) => {
    log('http.get status', res.statusCode, 'connection', res.headers.connection);
    res.resume();
    res.on('end', resolve);
  });
});

// a request to a socket path nobody listens on
await new Promise((resolve) => {
  const req = http.get({ socketPath: path.join(dir, 'nobody.sock'), path: '/' });
  req.on('error', (err) => {
    log('request error', err.code, err.syscall, hide(err.address), hide(err.message));
    resolve();
  });
});

log('server sockets used', serverSockets.size);
server.closeAllConnections();
server.close(() => {
  log('server closed, file exists', fs.existsSync(sockPath));
  fs.rmSync(dir, { recursive: true });
});
process.on('exit', (code) => log('exit', code));
