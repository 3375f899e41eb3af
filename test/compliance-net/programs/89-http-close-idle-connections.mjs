// server.closeIdleConnections() closes only the connections with no request in progress:
// of two keep-alive clients, the idle one's socket closes, the busy one's request still gets
// its answer. Then server.close() and the close callback once both are gone.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21890;
const logs = { server: [], idle: [], busy: [] };
const log = (side, ...args) => logs[side].push(format(...args));
const count = (pool) => Object.values(pool).reduce((n, list) => n + list.length, 0);

let answerBusy;
const server = http.createServer((req, res) => {
  log('server', 'request', req.url);
  if (req.url === '/busy') answerBusy = () => res.end('late answer');
  else res.end('ok');
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const idleAgent = new http.Agent({ keepAlive: true });
const busyAgent = new http.Agent({ keepAlive: true });
await new Promise((resolve) => http.get({ host: '127.0.0.1', port: PORT, path: '/idle', agent: idleAgent }, (res) => res.resume().on('end', resolve)));
await new Promise((resolve) => setTimeout(resolve, 20));
const [idleSocket] = Object.values(idleAgent.freeSockets)[0];
const idleClosed = new Promise((resolve) => idleSocket.on('close', resolve));
const busyDone = new Promise((resolve) => {
  http.get({ host: '127.0.0.1', port: PORT, path: '/busy', agent: busyAgent }, async (res) => {
    let body = '';
    for await (const chunk of res) body += chunk;
    log('busy', 'response', res.statusCode, body);
    resolve();
  });
});
while (answerBusy === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
server.closeIdleConnections();
await idleClosed;
log('idle', 'idle socket closed; free', count(idleAgent.freeSockets));
answerBusy();
await busyDone;
busyAgent.destroy();
idleAgent.destroy();
server.close(() => log('server', 'closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.idle, ...logs.busy]) console.log(line);
  console.log('exit', code);
});
