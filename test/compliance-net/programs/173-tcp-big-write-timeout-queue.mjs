// A write larger than the kernel takes at once, to a reader that does not read: the kernel takes
// part of it at once, so the handle's writeQueueSize is less than the write, and net.Socket's
// idle timeout counts that as a write in progress and stays quiet for one interval. The
// 'timeout' comes after two intervals, not one. (Simulated, the whole write stayed queued and the
// timeout came after one.) Then the reader reads: the queue empties and the write completes.
import net from 'node:net';

const BYTES = 32 * 1024 * 1024;
const INTERVAL = 100;
const log = [];
let release;
const server = net.createServer((socket) => {
  socket.pause();
  release = () => {
    let read = 0;
    socket.on('data', (chunk) => {
      read += chunk.length;
    });
    socket.on('end', () => {
      log.push(`server read all: ${read === BYTES}`);
      server.close();
    });
    socket.resume();
  };
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

const client = net.connect(server.address().port, '127.0.0.1');
await new Promise((resolve) => client.on('connect', resolve));
const started = performance.now();
let timeouts = 0;
client.setTimeout(INTERVAL, () => {
  timeouts++;
  if (timeouts > 1) return;
  const elapsed = performance.now() - started;
  const queue = client._handle.writeQueueSize;
  log.push(`timeout after two intervals or more: ${elapsed >= 2 * INTERVAL - 5}`);
  log.push(`queue still waits, and is less than the write: ${queue > 0 && queue < BYTES}`);
  client.setTimeout(0);
  release();
});
const ok = client.write(Buffer.alloc(BYTES, 1), () => {
  log.push(`write done, queue ${client._handle.writeQueueSize}, timeouts ${timeouts}`);
  client.end();
});
const queue = client._handle.writeQueueSize;
log.push(`write returned ${ok}; kernel took part: ${queue > 0 && queue < BYTES}`);
await new Promise((resolve) => server.on('close', resolve));
console.log(log.join('\n'));
