// A keep-alive Agent reuses its connection for sequential requests: req.reusedSocket is false
// then true, the server sees one connection, and agent.sockets / agent.freeSockets count the
// socket as busy while a request runs and free between requests. agent.destroy() closes it.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21640;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));
const count = (pool) => Object.values(pool).reduce((n, list) => n + list.length, 0);

let connections = 0;
const server = http.createServer((req, res) => {
  log('server', 'request', req.url, 'on connection', req.socket.connectionNumber);
  res.end(req.url);
});
server.on('connection', (socket) => {
  socket.connectionNumber = ++connections;
  socket.on('close', () => log('server', 'connection closed', socket.connectionNumber));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const agent = new http.Agent({ keepAlive: true });
function get(path) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: PORT, path, agent }, (res) => {
      log('client', path, 'reused', req.reusedSocket, 'busy', count(agent.sockets), 'free', count(agent.freeSockets), 'connection', res.headers.connection, 'keep-alive', res.headers['keep-alive']);
      res.resume();
      res.on('end', () => setImmediate(resolve));
    });
    req.on('error', reject);
  });
}
for (const path of ['/a', '/b', '/c']) {
  await get(path);
  log('client', 'after', path, 'busy', count(agent.sockets), 'free', count(agent.freeSockets));
}
const [freeSocket] = Object.values(agent.freeSockets)[0];
freeSocket.on('close', () => {
  log('client', 'free socket closed; busy', count(agent.sockets), 'free', count(agent.freeSockets));
  server.close(() => log('server', 'closed; connections seen', connections));
});
agent.destroy();
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
