// Several connections to one server, opened one after another: each gets its own socket,
// ports differ, the server counts them, and each echo stays on its own connection.
import net from 'node:net';

const PORT = 21030;
const log = (...args) => console.log(...args);
let serial = 0;

const server = net.createServer((socket) => {
  const id = ++serial;
  log('server: connection', id, server.connections === undefined ? 'no legacy prop' : 'legacy prop');
  socket.setEncoding('utf8');
  socket.on('data', (data) => socket.write(`${id}:${data}`));
  socket.on('end', () => socket.end());
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

function open(name) {
  return new Promise((resolve) => {
    const client = net.connect(PORT, '127.0.0.1', () => {
      client.write(name);
    });
    client.setEncoding('utf8');
    let got = '';
    client.on('data', (data) => {
      got += data;
      resolve({ client, got });
    });
  });
}

const a = await open('a');
const b = await open('b');
const c = await open('c');
log('replies', a.got, b.got, c.got);
const ports = new Set([a.client.localPort, b.client.localPort, c.client.localPort]);
log('distinct local ports', ports.size);
await new Promise((resolve) => server.getConnections((err, count) => {
  log('getConnections', err, count);
  resolve();
}));
for (const { client } of [a, b, c]) client.end();
await Promise.all([a, b, c].map(({ client }) => new Promise((resolve) => client.on('close', resolve))));
log('all clients closed');
server.close(() => log('server closed'));
process.on('exit', (code) => log('exit', code));
