// Addresses and families: an IPv4 server, an IPv6 (::1) server, and a dual-stack server
// (no host: '::') that sees IPv4 clients as IPv4-mapped IPv6 addresses.
import net from 'node:net';

const log = (...args) => console.log(...args);

async function check(label, listenArgs, connectHost, port) {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(...listenArgs, resolve));
  log(label, 'server.address()', server.address());
  const seen = new Promise((resolve) => server.once('connection', (socket) => {
    log(label, 'accepted: remote', socket.remoteAddress, socket.remoteFamily, 'local', socket.localAddress, socket.localFamily);
    socket.on('end', () => socket.end());
    resolve();
  }));
  const client = net.connect(port, connectHost);
  await new Promise((resolve) => client.on('connect', resolve));
  // The server's accept and the client's connect are concurrent: print the client's view
  // after the server's.
  await seen;
  log(label, 'client: remote', client.remoteAddress, client.remoteFamily, 'local', client.localAddress, client.localFamily);
  log(label, 'client.address()', client.address().address, client.address().family);
  client.end();
  await new Promise((resolve) => client.on('close', resolve));
  await new Promise((resolve) => server.close(resolve));
}

await check('v4', [21130, '127.0.0.1'], '127.0.0.1', 21130);
await check('v6', [21131, '::1'], '::1', 21131);
await check('dual', [21132], '127.0.0.1', 21132);
await check('dual-v6', [21133], '::1', 21133);
await check('any4', [21134, '0.0.0.0'], '127.0.0.1', 21134);
process.on('exit', (code) => log('exit', code));
