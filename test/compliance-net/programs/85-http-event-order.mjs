// The order of events on each side of one POST exchange, where Node fixes it: on the client,
// request 'finish' (body flushed) before 'response', then response 'end', then response and
// request 'close'; on the server, 'request', request 'end' and 'close' (fully read), then
// response 'finish' and 'close'. Each side has its own log.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21850;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer((req, res) => {
  log('server', 'request');
  req.on('data', () => {});
  req.on('end', () => {
    log('server', 'req end');
    setTimeout(() => res.end('done'), 20);
  });
  req.on('close', () => log('server', 'req close'));
  res.on('finish', () => log('server', 'res finish'));
  res.on('close', () => log('server', 'res close'));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const req = http.request({ host: '127.0.0.1', port: PORT, method: 'POST', path: '/', agent: false });
req.on('socket', () => log('client', 'req socket'));
req.on('finish', () => log('client', 'req finish'));
req.on('response', (res) => {
  log('client', 'response');
  res.on('data', () => {});
  res.on('end', () => log('client', 'res end'));
  res.on('close', () => {
    log('client', 'res close');
    server.close(() => log('server', 'closed'));
  });
});
req.on('close', () => log('client', 'req close'));
req.end('payload');
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
