// A server resets a connection in its 'connection' callback, in one process on loopback. The
// handshake completed inside the client's connect(2), but libuv reports the connect in a later
// poll, after the accept (the listening socket was ready first), and then reads SO_ERROR: the
// reset is there, so the connect fails with ECONNRESET, the client never sees 'connect', and
// what the server wrote before resetting is never read. A reset from a tick or a microtask of
// that callback is the same; one from an immediate or a timer comes after the client's poll
// reported the connect: 'connect', then a read error. Node 20, 22 and 24 alike.
import http from 'node:http';
import net from 'node:net';

const out = [];
async function trial(name, onConnection) {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    onConnection(socket);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const events = [];
  let bytes = 0;
  await new Promise((resolve) => {
    const client = net.connect(server.address().port, '127.0.0.1', () => events.push('connect'));
    client.on('data', (data) => (bytes += data.length));
    client.on('end', () => events.push('end'));
    client.on('error', (error) => events.push(`error ${error.code} ${error.syscall} (connecting: ${client.connecting})`));
    client.on('close', (hadError) => {
      events.push(`close hadError=${hadError}`);
      out.push(`${name}: ${events.join(', ')}; ${bytes} bytes`);
      server.close(resolve);
    });
    setImmediate(() => events.push('immediate'));
  });
}

await trial('write and reset', (socket) => {
  socket.write('hello');
  socket.resetAndDestroy();
});
await trial('reset from a tick', (socket) => process.nextTick(() => socket.resetAndDestroy()));
await trial('write, reset from a microtask', (socket) => {
  socket.write('x');
  queueMicrotask(() => socket.resetAndDestroy());
});
await trial('reset from an immediate', (socket) => setImmediate(() => socket.resetAndDestroy()));
await trial('reset from a 1 ms timer', (socket) => setTimeout(() => socket.resetAndDestroy(), 1));
await trial('write and destroy (a FIN)', (socket) => {
  socket.write('hi');
  socket.destroy();
});
await new Promise((resolve) => {
  const server = http.createServer(() => {});
  server.on('connection', (socket) => socket.resetAndDestroy());
  server.listen(0, '127.0.0.1', () => {
    http
      .get({ port: server.address().port, host: '127.0.0.1' }, () => out.push('http: a response'))
      .on('error', (error) => {
        out.push(`http: error ${error.code} ${error.syscall}`);
        server.close(resolve);
      });
  });
});
console.log(out.join('\n'));
