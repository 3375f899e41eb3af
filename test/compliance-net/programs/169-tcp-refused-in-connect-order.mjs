// Loopback connects made in one callback complete in the order they were made, a refused one
// too: the kernel answers a SYN on loopback inside connect(2), a reset as well as a SYN-ACK, and
// both are reported in the same poll. (A refused connect came after a successful one made after
// it, on every seed.)
import net from 'node:net';

const log = [];
const closed = net.createServer();
await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
const nobody = closed.address().port;
await new Promise((resolve) => closed.close(resolve));
const server = net.createServer((socket) => socket.destroy());
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address();

function attempt(label, to) {
  return new Promise((resolve) => {
    const socket = net.connect(to, '127.0.0.1');
    socket.on('connect', () => {
      log.push(`${label}: connect`);
      socket.destroy();
      resolve();
    });
    socket.on('error', (error) => {
      log.push(`${label}: ${error.code}`);
      resolve();
    });
  });
}

await Promise.all([attempt('refused first', nobody), attempt('then listening', port)]);
await Promise.all([attempt('listening first', port), attempt('then refused', nobody)]);
setTimeout(async () => {
  await Promise.all([attempt('refused from a timer', nobody), attempt('listening from a timer', port)]);
  server.close();
  for (const line of log) console.log(line);
}, 5);
