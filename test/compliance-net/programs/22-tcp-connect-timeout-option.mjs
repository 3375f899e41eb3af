// The `timeout` option of net.connect / net.createConnection: it is socket.setTimeout() set
// before connecting, so an idle connection emits 'timeout' (and stays open until destroyed).
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21220;
// Each side keeps its own log (the two sides run concurrently).
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.split(/[:.]/)[0]].push(format(line, ...args));

const server = net.createServer((socket) => {
  socket.on('close', () => server.close(() => log('server: closed')));
});
server.listen(PORT, '127.0.0.1', () => {
  const start = Date.now();
  const client = net.createConnection({ port: PORT, host: '127.0.0.1', timeout: 150 });
  log('client.timeout', client.timeout);
  client.on('connect', () => log('client: connect'));
  client.on('timeout', () => {
    const elapsed = Date.now() - start;
    log('client: timeout', 'elapsed >= 145', elapsed >= 145, 'elapsed < 1000', elapsed < 1000, 'destroyed', client.destroyed);
    client.setTimeout(0);
    log('client: timeout after setTimeout(0)', client.timeout);
    client.destroy();
  });
  client.on('close', (hadError) => log('client: close', hadError));
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
