// listen() on an address this machine does not have: EADDRNOTAVAIL from listen, as an 'error'
// event. connect() with a localAddress the machine does not have: EADDRNOTAVAIL from bind.
import net from 'node:net';

const PORT = 21330;
const log = (...args) => console.log(...args);

const server = net.createServer();
server.on('error', (err) => {
  log('listen error', { message: err.message, code: err.code, errno: err.errno, syscall: err.syscall, address: err.address, port: err.port });
  const client = net.connect({ port: PORT, host: '127.0.0.1', localAddress: '192.0.2.1' });
  client.on('connect', () => log('connect (unexpected)'));
  client.on('error', (e) => log('connect error', { message: e.message, code: e.code, syscall: e.syscall, address: e.address, port: e.port }));
  client.on('close', (hadError) => log('client close', hadError));
});
server.listen(PORT, '192.0.2.1', () => log('listening (unexpected)'));
process.on('exit', (code) => log('exit', code));
