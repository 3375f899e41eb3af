// The server's own events: 'listening' before the listen callback, server.listening, the
// order of 'connection' events for clients that connect one after another, listen() with an
// options object, and errors from listen() arguments.
import net from 'node:net';

const log = (...args) => console.log(...args);

const server = net.createServer();
let serverSideClosed;
server.on('listening', () => log('listening event', server.listening));
server.on('connection', (socket) => {
  log('connection event', socket.remotePort === undefined ? 'no port' : 'has port', socket.readyState);
  socket.on('close', () => serverSideClosed());
  socket.end();
});
log('listening before', server.listening);
server.listen({ port: 21210, host: '127.0.0.1', backlog: 16 }, async () => {
  log('listen callback', server.address().port);
  for (const name of ['first', 'second', 'third']) {
    // Both ends must have closed before the next client: they close concurrently.
    const serverSide = new Promise((resolve) => {
      serverSideClosed = resolve;
    });
    await new Promise((resolve) => {
      let connected = false;
      const c = net.connect(21210, '127.0.0.1', () => {
        connected = true;
      });
      c.on('end', () => c.end());
      c.on('close', () => {
        log('client closed', name, 'had connected', connected);
        resolve();
      });
    });
    await serverSide;
  }
  try {
    server.listen(21211);
  } catch (err) {
    log('listen while listening throws', err.code, err.message);
  }
  server.close(() => log('closed'));
  // A host name is looked up first (dns.lookup), then bound.
  const named = net.createServer();
  named.listen(21212, 'localhost', () => {
    log('listen on localhost', named.address());
    named.close();
  });
});
for (const bad of [{ port: -1 }, { port: 65536 }, { port: 'abc' }, {}]) {
  try {
    net.createServer().listen(bad);
  } catch (err) {
    log('listen', JSON.stringify(bad), err.name, err.code, err.message);
  }
}
process.on('exit', (code) => log('exit', code));
