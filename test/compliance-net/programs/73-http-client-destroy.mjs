// The client destroys its request after the server started answering (headers and part of
// the body sent): the server's response sees 'close' without 'finish', the request 'close'
// too; the client's request emits 'close' but no 'error' (the response already arrived) and
// the response emits 'aborted' (deprecated but still there) and 'close'.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21730;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));

const server = http.createServer((req, res) => {
  log('server', 'request', req.url);
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.write('partial');
  res.on('finish', () => log('server', 'res finish (unexpected)'));
  res.on('close', () => {
    log('server', 'res close; finished', res.writableFinished, 'ended', res.writableEnded);
    server.close(() => log('server', 'closed'));
  });
  req.on('close', () => log('server', 'req close'));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const req = http.get({ host: '127.0.0.1', port: PORT, path: '/stream' }, (res) => {
  log('client', 'response', res.statusCode);
  res.once('data', (chunk) => {
    log('client', 'first data', String(chunk));
    req.destroy();
  });
  res.on('aborted', () => log('client', 'res aborted'));
  res.on('error', (err) => log('client', 'res error', err.code, err.message));
  res.on('end', () => log('client', 'res end (unexpected)'));
  res.on('close', () => log('client', 'res close; complete', res.complete, 'destroyed', res.destroyed));
});
req.on('error', (err) => log('client', 'req error', err.code, err.message));
req.on('close', () => log('client', 'req close'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
