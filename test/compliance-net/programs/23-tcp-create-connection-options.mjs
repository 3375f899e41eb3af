// net.createConnection with an options object: host/port/family/localAddress, the connect
// listener, and validation errors for bad options (thrown synchronously).
import net from 'node:net';
import { format } from 'node:util';

const PORT = 21230;
// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

const server = net.createServer((socket) => {
  log('server: peer', socket.remoteAddress, socket.remoteFamily);
  socket.end();
});
await new Promise((resolve) => server.listen(PORT, resolve));

await new Promise((resolve) => {
  const client = net.createConnection({ port: PORT, host: '127.0.0.1', family: 4, localAddress: '127.0.0.1' }, function () {
    log('connect listener this === client', this === client, client.localAddress, client.remoteAddress);
  });
  client.on('end', () => client.end());
  client.on('close', resolve);
});
await new Promise((resolve) => {
  const client = net.createConnection({ port: String(PORT), host: 'localhost', family: 4 }, () => {
    log('string port and family 4 via localhost', client.remotePort === PORT, client.remoteAddress);
  });
  client.on('end', () => client.end());
  client.on('close', resolve);
});
await new Promise((resolve) => {
  const client = net.createConnection({ port: PORT, host: '::1' }, () => {
    log('ipv6 literal', client.remoteAddress, client.remoteFamily, client.localFamily);
  });
  client.on('end', () => client.end());
  client.on('close', resolve);
});

for (const bad of [{ port: -1 }, { port: 70000 }, { port: PORT, localAddress: 'nope' }, { port: PORT, family: 5 }, { port: true }]) {
  try {
    const s = net.createConnection(bad);
    s.on('error', (err) => log('async error', JSON.stringify(bad), err.code, err.message));
  } catch (err) {
    log('throws', JSON.stringify(bad), err.name, err.code, err.message);
  }
}
server.close(() => log('server closed'));
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
