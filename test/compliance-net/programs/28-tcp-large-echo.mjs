// 1 MiB through an echo server and back: byte counts and a checksum match, whatever the
// chunking of the stream (chunk sizes are not printed: they depend on the kernel).
import net from 'node:net';
import { createHash } from 'node:crypto';

const PORT = 21280;
const SIZE = 1024 * 1024;
const log = (...args) => console.log(...args);
let serverClosed = false;

const payload = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i++) payload[i] = (i * 7 + (i >> 8)) & 255;
const expected = createHash('sha256').update(payload).digest('hex').slice(0, 16);

const server = net.createServer((socket) => {
  socket.pipe(socket);
  socket.on('close', () => server.close(() => {
    serverClosed = true;
  }));
});
server.listen(PORT, '127.0.0.1', () => {
  const client = net.connect(PORT, '127.0.0.1', () => {
    client.end(payload);
  });
  const hash = createHash('sha256');
  let received = 0;
  client.on('data', (data) => {
    received += data.length;
    hash.update(data);
  });
  client.on('end', () => {
    log('client: received', received, 'checksum matches', hash.digest('hex').slice(0, 16) === expected);
    log('client: counters', client.bytesRead, client.bytesWritten);
  });
});
process.on('exit', (code) => log('exit', code, 'server closed', serverClosed));
