// The idle timeout fires once per idle period: it does not repeat by itself, but any later
// activity (a read or a write) re-arms it. setTimeout(0) disables it; a new setTimeout
// replaces the old one.
import net from 'node:net';

const PORT = 21400;
const log = (...args) => console.log(...args);

const server = net.createServer((socket) => {
  socket.on('data', () => {});
  socket.on('end', () => socket.end());
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const client = net.connect(PORT, '127.0.0.1');
await new Promise((resolve) => client.on('connect', resolve));
let timeouts = 0;
client.on('timeout', () => {
  timeouts++;
});
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

client.setTimeout(50);
await wait(300);
log('after 300 ms idle', timeouts);
client.write('activity');
await wait(300);
log('after a write and 300 ms idle', timeouts);
client.setTimeout(0);
client.write('more');
await wait(300);
log('after setTimeout(0)', timeouts);
client.setTimeout(1000);
client.setTimeout(80);
await wait(200);
log('after replacing 1000 by 80', timeouts);
client.end();
await new Promise((resolve) => client.on('close', resolve));
server.close(() => log('server closed'));
process.on('exit', (code) => log('exit', code));
