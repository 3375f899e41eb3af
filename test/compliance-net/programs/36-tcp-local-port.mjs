// connect() with localPort: the connection leaves from that port. A server can still listen
// on that port while the connection is open: libuv sets SO_REUSEADDR, and only another
// listening socket makes a port "in use".
import net from 'node:net';

const PORT = 21360;
const LOCAL = 21361;
const log = (...args) => console.log(...args);

const server = net.createServer((socket) => {
  log('server: remotePort is the chosen local port', socket.remotePort === LOCAL);
  // The server closes first, so TIME_WAIT stays on its side and a rerun can reuse the port.
  socket.on('data', () => socket.end());
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const client = net.connect({ port: PORT, host: '127.0.0.1', localPort: LOCAL, localAddress: '127.0.0.1' });
await new Promise((resolve) => client.on('connect', resolve));
log('client: localPort', client.localPort === LOCAL);

const blocked = net.createServer();
await new Promise((resolve) => {
  blocked.once('error', (err) => {
    log('listen on the connected port', err.code);
    resolve();
  });
  blocked.listen(LOCAL, '127.0.0.1', () => {
    log('listen on the connected port succeeded');
    blocked.close(resolve);
  });
});
client.write('bye');
client.on('end', () => client.end());
await new Promise((resolve) => client.on('close', resolve));
server.close(() => log('server closed'));
process.on('exit', (code) => log('exit', code));
