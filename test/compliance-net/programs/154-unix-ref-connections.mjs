// getConnections() and maxConnections on a unix server: with maxConnections 2 the third client
// gets 'connect' and then 'end' (closed by the server unread), the server emits 'drop' with
// undefined data (no address info for pipes). getConnections follows ends. ref()/unref() return
// this. With the server and both ends of the last connection unref'd, the process exits
// (exit 0, server.listening still true) and the socket file is still there at 'exit' (no unlink
// without close) - the program removes it in the exit handler.
// Measured: Node 20, 22, 24 identical, 5 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const hide = (s) => (typeof s === 'string' ? s.split(dir).join('DIR') : s);
const log = (...args) => console.log(...args.map(hide));
const sockPath = path.join(dir, 's.sock');
const count = (server) => new Promise((resolve) => server.getConnections((err, n) => resolve(err ? err.code : n)));
const tick = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// getConnections and maxConnections
let unrefAccepted = false;
const server = net.createServer((socket) => {
  if (unrefAccepted) socket.unref();
  socket.on('data', () => {});
  socket.on('end', () => socket.end());
});
server.maxConnections = 2;
server.on('drop', (data) => log('drop', data));
await new Promise((resolve) => server.listen(sockPath, resolve));
log('connections at start', await count(server));

const clients = [];
const events = [];
for (let i = 1; i <= 3; i++) {
  const c = net.connect(sockPath);
  c.on('connect', () => events.push(`client${i} connect`));
  c.on('data', () => {});
  c.on('end', () => events.push(`client${i} end`));
  c.on('error', (err) => events.push(`client${i} error ${err.code}`));
  c.on('close', () => events.push(`client${i} close`));
  clients.push(c);
  await tick(10);
}
log('connections with maxConnections 2', await count(server));
log('client events', events.sort().join(', '));
events.length = 0;
clients[0].end();
await new Promise((resolve) => clients[0].on('close', resolve));
await tick(10);
log('connections after client1 ended', await count(server));
clients[1].end();
await new Promise((resolve) => clients[1].on('close', resolve));
await tick(10);
log('connections after client2 ended', await count(server));

// unref'd client sockets (and the server's side of them): ref() / unref() return the socket
unrefAccepted = true;
const c4 = net.connect(sockPath);
log('unref returns the socket', c4.unref() === c4, 'ref returns the socket', c4.ref() === c4);
await new Promise((resolve) => c4.on('connect', resolve));
c4.unref();
log('connections with an unref\'d client', await count(server));
log('server unref returns the server', server.unref() === server, 'ref', server.ref() === server);

// Exit with the server listening but unref'd and both ends of a connection unref'd:
// nothing keeps the loop alive. The socket file is not removed by an exit.
server.unref();
server.on('close', () => log('server close (unexpected)'));
process.on('exit', (code) => {
  log('exit', code, 'listening', server.listening, 'file exists at exit', fs.existsSync(sockPath));
  fs.rmSync(dir, { recursive: true });
});
setTimeout(() => log('an unref\'d timer (never runs)'), 100000).unref();
log('end of main');
