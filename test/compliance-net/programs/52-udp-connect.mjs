// Connected datagram sockets on 127.0.0.1: 'connect', remoteAddress, sends without an address,
// disconnect, and the 'error' a connected socket gets when the peer port is closed.
import dgram from 'node:dgram';
import { once } from 'node:events';

const log = (...args) => console.log(...args);
const server = dgram.createSocket('udp4');
server.on('message', (msg, rinfo) => {
  log('server: message', String(msg));
  server.send(`echo ${msg}`, rinfo.port, rinfo.address);
});
await new Promise((resolve) => server.bind(0, '127.0.0.1', resolve));
const port = server.address().port;

const client = dgram.createSocket('udp4');
client.on('connect', () => log('client: connect event'));
client.connect(port, '127.0.0.1', () => log('client: connect callback'));
await once(client, 'connect');
const remote = client.remoteAddress();
log('remote:', remote.address, remote.family, remote.port === port);
log('local:', client.address().address, client.address().family);
try {
  client.connect(port, '127.0.0.1');
} catch (err) {
  log('connect twice:', err.code, err.message);
}
try {
  client.send('x', 0, 1, port, '127.0.0.1');
} catch (err) {
  log('send with address:', err.code, err.message);
}
client.send('one', (err, bytes) => log('client: sent', err, bytes));
const [reply] = await once(client, 'message');
log('client: reply', String(reply));

client.disconnect();
log('after disconnect:', client.address().address);
try {
  client.remoteAddress();
} catch (err) {
  log('remoteAddress:', err.code, err.message);
}
try {
  client.disconnect();
} catch (err) {
  log('disconnect twice:', err.code, err.message);
}
client.send('two', port, '127.0.0.1');
const [second] = await once(client, 'message');
log('client: reply', String(second));
client.close();

// A port that was just closed: the kernel's "port unreachable" reaches a connected socket.
const gone = dgram.createSocket('udp4');
await new Promise((resolve) => gone.bind(0, '127.0.0.1', resolve));
const gonePort = gone.address().port;
gone.close();
const refused = dgram.createSocket('udp4');
await new Promise((resolve) => refused.connect(gonePort, '127.0.0.1', resolve));
refused.send('anyone?', (err, bytes) => log('refused: sent', err, bytes));
const [err] = await once(refused, 'error');
log('refused: error', err.constructor.name, err.code, err.errno, err.syscall, err.message);
refused.close();
server.close(() => log('server: closed'));
process.on('exit', (code) => log('exit', code));
