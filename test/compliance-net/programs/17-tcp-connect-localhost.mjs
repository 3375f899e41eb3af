// Connecting to 'localhost': the 'lookup' event (err, address, family, host) comes before
// 'connect' and 'ready', and the connectionAttempt events describe the attempt.
import net from 'node:net';

const PORT = 21170;
const log = (...args) => console.log(...args);

const server = net.createServer((socket) => socket.end('hi'));
server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, 'localhost');
  log('client: connecting', client.connecting, client.remoteAddress, client.localPort);
  client.on('lookup', (err, address, family, host) => log('client: lookup', err, address, family, host, client.connecting));
  client.on('connectionAttempt', (ip, port, family) => log('client: connectionAttempt', ip, port === PORT, family));
  client.on('connectionAttemptFailed', (ip) => log('client: connectionAttemptFailed', ip));
  client.on('connect', () => log('client: connect', client.remoteAddress, client.remoteFamily));
  client.on('ready', () => log('client: ready'));
  client.on('data', (data) => log('client: data', String(data)));
  client.on('end', () => log('client: end'));
  client.on('close', (hadError) => {
    log('client: close', hadError, client.autoSelectFamilyAttemptedAddresses);
    server.close();
  });
});
process.on('exit', (code) => log('exit', code));
