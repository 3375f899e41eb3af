// Three request/reply rounds over 127.0.0.1: the order of 'listening', the bind callback, the
// send callbacks and 'message', rinfo's fields, and the close callbacks.
import dgram from 'node:dgram';

const log = (...args) => console.log(...args);
const server = dgram.createSocket('udp4');
const client = dgram.createSocket('udp4');
let rounds = 0;

server.on('listening', () => log('server: listening', server.address().address, server.address().family));
server.on('message', (msg, rinfo) => {
  log('server: message', JSON.stringify(String(msg)), rinfo.address, rinfo.family, rinfo.size, rinfo.port === client.address().port);
  server.send(`pong ${msg}`, rinfo.port, rinfo.address, (err, bytes) => log('server: sent', err, bytes));
});
client.on('listening', () => log('client: listening (implicit bind)', client.address().address, client.address().port > 0));
client.on('message', (msg, rinfo) => {
  log('client: message', JSON.stringify(String(msg)), rinfo.address, rinfo.family, rinfo.size, rinfo.port === server.address().port);
  if (++rounds < 3) {
    ping();
  } else {
    client.close(() => log('client: closed'));
    server.close(() => log('server: closed'));
    log('closing');
  }
});
client.on('close', () => log('client: close event'));

function ping() {
  client.send(`ping ${rounds}`, server.address().port, '127.0.0.1', (err, bytes) => log('client: sent', err, bytes));
}

server.bind(0, '127.0.0.1', () => {
  log('server: bind callback');
  ping();
});
process.on('exit', (code) => log('exit', code));
