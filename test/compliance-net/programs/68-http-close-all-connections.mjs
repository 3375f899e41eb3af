// server.closeAllConnections() destroys a connection whose request is still waiting for its
// response: the client request fails with ECONNRESET 'socket hang up'; the server's
// req/res see 'close' without the response having finished.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21680;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer((req, res) => {
  log('server', 'request', req.url);
  res.on('finish', () => log('server', 'res finish (unexpected)'));
  res.on('close', () => log('server', 'res close; writableFinished', res.writableFinished, 'headersSent', res.headersSent));
  req.on('close', () => log('server', 'req close'));
  server.close(() => log('server', 'close callback'));
  setTimeout(() => server.closeAllConnections(), 20);
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const req = http.get({ host: '127.0.0.1', port: PORT, path: '/hang' }, () => log('client', 'response (unexpected)'));
req.on('error', (err) => log('client', 'error', err.code, err.message));
req.on('close', () => log('client', 'req close'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
