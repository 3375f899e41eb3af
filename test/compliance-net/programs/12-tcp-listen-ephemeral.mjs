// listen(0) picks an ephemeral port; the addresses seen from both ends agree with each other.
import net from 'node:net';
import { format } from 'node:util';

// Each side keeps its own log (the two sides run concurrently: which one reaches a step first
// depends on the kernel and libuv); the server's log is printed first, then the client's.
const logs = { server: [], client: [] };
const log = (line, ...args) => logs[line.startsWith('server') ? 'server' : 'client'].push(format(line, ...args));

const server = net.createServer();
log('server: address before listen', server.address());
server.listen(0, '127.0.0.1', () => {
  const { address, family, port } = server.address();
  log('server address', address, family, 'port > 0', port > 0, Number.isInteger(port));
  server.once('connection', (socket) => {
    log('server side: local', socket.localAddress, socket.localPort === port, socket.localFamily);
    log('server side: remote', socket.remoteAddress, socket.remoteFamily);
    log('server side: remotePort is the client localPort', socket.remotePort === client.localPort);
    log('server side: address()', socket.address().port === port, socket.address().address);
    socket.end();
  });
  const client = net.connect(port, '127.0.0.1', () => {
    log('client: remote', client.remoteAddress, client.remotePort === port, client.remoteFamily);
    log('client: local', client.localAddress, client.localFamily, 'ephemeral', client.localPort > 0 && client.localPort !== port);
  });
  client.on('end', () => {
    client.end();
    server.close(() => log('server closed; address after close', server.address()));
  });
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
