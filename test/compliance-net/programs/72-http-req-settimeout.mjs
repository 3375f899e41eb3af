// req.setTimeout on the client: the server never answers; 'timeout' fires on the request,
// the program destroys the request, and the client sees 'error' ECONNRESET 'socket hang up'
// then 'close'. The server sees its request 'close' and the response 'close' unfinished.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21720;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer((req, res) => {
  log('server', 'request', req.url);
  req.on('close', () => log('server', 'req close'));
  res.on('close', () => {
    log('server', 'res close; finished', res.writableFinished);
    server.close(() => log('server', 'closed'));
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const req = http.get({ host: '127.0.0.1', port: PORT, path: '/never' }, () => log('client', 'response (unexpected)'));
req.setTimeout(300, () => {
  log('client', 'timeout callback; destroyed', req.destroyed);
  req.destroy();
});
req.on('timeout', () => log('client', 'timeout event'));
req.on('error', (err) => log('client', 'error', err.code, err.message));
req.on('close', () => log('client', 'close'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
