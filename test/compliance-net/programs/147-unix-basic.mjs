// Unix domain socket basics: listen(path) is synchronous (server.listening is true right after
// listen() returns; 'listening' comes later), server.address() is the path string itself, the
// socket file is a socket (stat/lstat isSocket) while listening. Both ends of a unix connection
// have remoteAddress/remoteFamily/remotePort/localAddress/localPort undefined and
// socket.address() {}. Echo + end() order is fixed. server.close() unlinks the file (existsSync
// false in the close callback) and server.address() keeps returning the path after close.
// Measured: Node 20.20.2, 22.23.5, 24.22.3 identical, 8 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const hide = (s) => (typeof s === 'string' ? s.split(dir).join('DIR') : s);
const log = (...args) => console.log(...args.map(hide));
const sockPath = path.join(dir, 's.sock');

const server = net.createServer((socket) => {
  log('server connection', {
    remoteAddress: socket.remoteAddress,
    remoteFamily: socket.remoteFamily,
    remotePort: socket.remotePort,
    localAddress: socket.localAddress,
    localPort: socket.localPort,
    address: socket.address(),
  });
  socket.setEncoding('utf8');
  socket.on('data', (d) => {
    log('server data', d);
    socket.write(d.toUpperCase());
  });
  socket.on('end', () => {
    log('server end');
    socket.end();
  });
  socket.on('close', (hadError) => log('server socket close', hadError));
});
const ret = server.listen(sockPath, () => {
  const a = server.address();
  log('listening', typeof a, a === sockPath, hide(a));
  log('isSocket', fs.statSync(sockPath).isSocket(), 'isFile', fs.statSync(sockPath).isFile());
  log('lstat isSocket', fs.lstatSync(sockPath).isSocket());
  log('listening prop', server.listening);
  const client = net.connect(sockPath, () => {
    log('client connect', {
      remoteAddress: client.remoteAddress,
      remoteFamily: client.remoteFamily,
      remotePort: client.remotePort,
      localAddress: client.localAddress,
      localPort: client.localPort,
      address: client.address(),
    });
    log('client readyState', client.readyState, 'connecting', client.connecting);
    client.write('hello');
  });
  log('client connecting', client.connecting, client.readyState);
  client.setEncoding('utf8');
  let got = '';
  client.on('data', (d) => {
    got += d;
    if (got === 'HELLO') client.end();
  });
  client.on('end', () => log('client end, got', got));
  client.on('close', (hadError) => {
    log('client close', hadError, 'bytesRead', client.bytesRead, 'bytesWritten', client.bytesWritten);
    server.close(() => {
      log('server closed, exists', fs.existsSync(sockPath), 'address', server.address());
      fs.rmSync(dir, { recursive: true });
    });
  });
});
log('listen returned server', ret === server, 'listening', server.listening);
process.on('exit', (code) => log('exit', code));
