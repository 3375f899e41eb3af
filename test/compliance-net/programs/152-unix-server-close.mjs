// server.close() with a connection open: listening false and the socket file is unlinked
// immediately (new connects get ENOENT), the open connection keeps working, the close callback
// waits for it. A second server can listen on the same path meanwhile; a third gets EADDRINUSE
// and close() on that failed server gives ERR_SERVER_NOT_RUNNING. The closed server object can
// listen on the path again once it is free. A second close(): ERR_SERVER_NOT_RUNNING.
// Measured: Node 20, 22, 24 identical, 5 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const hide = (s) => (typeof s === 'string' ? s.split(dir).join('DIR') : s);
const log = (...args) => console.log(...args.map(hide));
const sockPath = path.join(dir, 's.sock');

const serverSide = [];
const server = net.createServer((socket) => {
  serverSide.push(socket);
  socket.setEncoding('utf8');
  socket.on('data', (d) => socket.write(`echo:${d}`));
  socket.on('end', () => socket.end());
});
await new Promise((resolve) => server.listen(sockPath, resolve));

const client = net.connect(sockPath);
await new Promise((resolve) => client.once('connect', resolve));
await new Promise((resolve) => setTimeout(resolve, 5));
log('connections before close', await new Promise((r) => server.getConnections((e, n) => r(n))));

let closed = false;
const ret = server.close(() => {
  closed = true;
  log('old server close callback (server2 holds the path now)');
});
log('close returned server', ret === server, 'listening', server.listening, 'file exists right after close()', fs.existsSync(sockPath));
log('address after close()', server.address());
await new Promise((resolve) => setTimeout(resolve, 10));
log('after 10ms: close callback ran', closed);

// a new connection to the path fails: the file is gone
await new Promise((resolve) => {
  const c = net.connect(sockPath);
  c.on('connect', () => log('new connect (unexpected)'));
  c.on('error', (err) => log('new connect error', err.code));
  c.on('close', resolve);
});

// the open connection still works
client.setEncoding('utf8');
client.write('still there');
log('open connection echoes', await new Promise((resolve) => client.once('data', resolve)));

// a second server can listen on the path while the old server waits for its connection
const server2 = net.createServer((socket) => {
  socket.end('from server2');
});
await new Promise((resolve) => server2.listen(sockPath, resolve));
log('server2 listening on the same path', server2.address() === sockPath, 'old server closed yet', closed);
const got2 = await new Promise((resolve) => {
  const c = net.connect(sockPath);
  let d = '';
  c.setEncoding('utf8');
  c.on('data', (x) => (d += x));
  c.on('close', () => resolve(d));
});
log('connect reaches server2', got2);

// a third server on the same path while server2 listens: EADDRINUSE
const server3 = net.createServer();
await new Promise((resolve) => {
  server3.on('error', (err) => {
    log('server3 error', err.code, err.syscall, hide(err.message));
    resolve();
  });
  server3.listen(sockPath, () => log('server3 listening (unexpected)'));
});
log('server2 still listening', server2.listening, 'file exists', fs.existsSync(sockPath));

// server.close() on the failed server3: ERR_SERVER_NOT_RUNNING
await new Promise((resolve) => server3.close((err) => {
  log('server3 close', err && err.code, hide(err && err.message));
  resolve();
}));

// the old server's close callback waits for the last connection to end
client.end();
await new Promise((resolve) => client.on('close', resolve));
await new Promise((resolve) => setTimeout(resolve, 5));
log('after the client ended: old close callback ran', closed);

// listen again with the same (closed) server object on the same path: EADDRINUSE because server2 holds it
await new Promise((resolve) => {
  const unexpected = () => log('relisten (unexpected)');
  server.once('error', (err) => {
    server.off('listening', unexpected);
    log('old server relisten while server2 holds the path', err.code, 'listening', server.listening);
    resolve();
  });
  server.once('listening', unexpected);
  server.listen(sockPath);
});
await new Promise((resolve) => server2.close(resolve));
log('server2 closed, file exists', fs.existsSync(sockPath));
// now the old server object listens again on the path
await new Promise((resolve) => server.listen(sockPath, resolve));
log('old server listening again', server.listening, server.address() === sockPath);
await new Promise((resolve) => server.close(resolve));
log('closed again, file exists', fs.existsSync(sockPath));
// closing twice
server.close((err) => log('second close', err && err.code));
await new Promise((resolve) => setImmediate(resolve));
fs.rmSync(dir, { recursive: true });
process.on('exit', (code) => log('exit', code));
