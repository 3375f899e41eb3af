// On loopback the kernel answers a SYN inside connect(2): a connect made before the port is
// listened on is refused, even when a server listens on it a moment later (before the
// client's loop next polls). A connect made after the listen is accepted.
// (The simulator let the SYN fly for some microseconds and accepted it at a listener made meanwhile.)
import net from 'node:net';

const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});

const server = net.createServer((socket) => socket.end('hi'));
const early = net.connect(port, '127.0.0.1');
const earlyDone = new Promise((resolve) => {
  early.on('connect', () => {
    console.log('early: connected');
    early.destroy();
    resolve();
  });
  early.on('error', (error) => {
    console.log('early:', error.code);
    resolve();
  });
});
// By the time immediates run, the early connect(2) has been made (it runs in a nextTick).
const listening = new Promise((resolve) => setImmediate(() => server.listen(port, '127.0.0.1', resolve)));
await Promise.all([earlyDone, listening]);
const late = net.connect(port, '127.0.0.1');
late.setEncoding('utf8');
late.on('data', (d) => console.log('late: read', d));
late.on('error', (error) => console.log('late:', error.code));
late.on('close', () => server.close(() => console.log('server closed')));
