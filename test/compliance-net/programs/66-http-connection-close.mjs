// Connection: close from the client: the server answers with Connection: close, ends the
// connection after the response, and the client's socket closes; with a keep-alive agent the
// socket is not put back into freeSockets. Then the server asks for close with res.shouldKeepAlive = false.
import http from 'node:http';
import { format } from 'node:util';

const PORT = 21660;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));
const count = (pool) => Object.values(pool).reduce((n, list) => n + list.length, 0);

const server = http.createServer((req, res) => {
  log('server', req.url, 'connection header', req.headers.connection);
  if (req.url === '/server-closes') res.shouldKeepAlive = false;
  req.socket.once('close', () => log('server', req.url, 'socket closed'));
  res.end('bye');
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const agent = new http.Agent({ keepAlive: true });
function get(path, headers) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port: PORT, path, agent, headers }, (res) => {
      log('client', path, 'response connection', res.headers.connection, 'keep-alive', res.headers['keep-alive']);
      res.resume();
      req.socket.once('close', () => {
        log('client', path, 'socket closed; free', count(agent.freeSockets), 'busy', count(agent.sockets));
        resolve();
      });
    });
  });
}
await get('/client-closes', { Connection: 'close' });
await get('/server-closes');
agent.destroy();
server.close(() => log('server', 'closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
