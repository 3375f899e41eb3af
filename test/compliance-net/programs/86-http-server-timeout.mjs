// server.setTimeout: an idle request past the timeout emits the server's 'timeout' with the
// socket; with a listener Node does not destroy the socket, the listener does (here after
// answering 503 on the first, by destroying on the second). Without a listener on
// http.Server timeout, Node destroys the socket itself.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21860;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer((req) => log('server', 'request', req.url));
server.setTimeout(200, (socket) => {
  const res = socket._httpMessage;
  log('server', 'timeout for', res?.req?.url, 'destroyed', socket.destroyed);
  if (res?.req?.url === '/answer') {
    res.writeHead(503, { Connection: 'close' });
    res.end('slow');
  } else {
    socket.destroy();
  }
});
const bare = http.createServer({}, (req) => log('server', 'bare request', req.url));
bare.setTimeout(200);
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));
await new Promise((resolve) => bare.listen(PORT + 1, '127.0.0.1', resolve));

const get = (port, path) => new Promise((resolve) => {
  const req = http.get({ host: '127.0.0.1', port, path, agent: false }, async (res) => {
    let body = '';
    for await (const chunk of res) body += chunk;
    log('client', path, 'response', res.statusCode, body);
    resolve();
  });
  req.on('error', (err) => {
    log('client', path, 'error', err.code, err.message);
    resolve();
  });
});
await get(PORT, '/answer');
await get(PORT, '/destroy');
await get(PORT + 1, '/bare');
server.close(() => log('server', 'closed'));
bare.close(() => log('server', 'bare closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
