// maxSockets: 1 queues requests on the agent (agent.requests) and sends them one after the
// other over the same connection, in the order they were made; each reuses the socket.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21650;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));
const count = (pool) => Object.values(pool).reduce((n, list) => n + list.length, 0);

let connections = 0;
const server = http.createServer((req, res) => {
  log('server', 'request', req.url);
  setTimeout(() => res.end(`done ${req.url}`), 10);
});
server.on('connection', () => connections++);
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const done = [];
for (const path of ['/1', '/2', '/3', '/4']) {
  done.push(new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port: PORT, path, agent }, async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      log('client', path, 'reused', req.reusedSocket, 'body', body);
      resolve();
    });
  }));
}
log('client', 'queued', count(agent.requests), 'sockets', count(agent.sockets));
await Promise.all(done);
log('client', 'all done; connections', connections);
agent.destroy();
server.close(() => log('server', 'closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
