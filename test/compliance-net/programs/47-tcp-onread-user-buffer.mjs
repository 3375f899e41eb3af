// net.connect({ onread: { buffer, callback } }): bytes are read into the caller's buffer and
// the callback gets the length; returning false pauses; a buffer factory works too. Chunk sizes
// depend on timing, so only totals, bounds and content are printed.
import net from 'node:net';
import { createHash } from 'node:crypto';

const PORT = 21470;
const SIZE = 300 * 1024;
const log = (...args) => console.log(...args);

const payload = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i++) payload[i] = (i * 31) & 255;
const expected = createHash('md5').update(payload).digest('hex');

const server = net.createServer((socket) => socket.end(payload));
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

async function receive(label, onread) {
  const hash = createHash('md5');
  let total = 0;
  let maxChunk = 0;
  let calls = 0;
  await new Promise((resolve) => {
    const client = net.connect({
      port: PORT,
      host: '127.0.0.1',
      onread: {
        ...onread,
        callback(nread, buf) {
          calls++;
          total += nread;
          maxChunk = Math.max(maxChunk, nread);
          hash.update(buf.subarray(0, nread));
        },
      },
    });
    client.on('data', () => log(label, 'data event (unexpected with onread)'));
    client.on('end', () => log(label, 'end'));
    client.on('close', resolve);
  });
  log(label, 'total', total, 'content matches', hash.digest('hex') === expected, 'chunks fit the buffer', maxChunk <= 4096, 'several calls', calls > 1);
}

await receive('static', { buffer: Buffer.alloc(4096) });
let made = 0;
await receive('factory', { buffer: () => (made++, Buffer.alloc(4096)) });
log('factory called', made > 0);
server.close(() => log('server closed'));
process.on('exit', (code) => log('exit', code));
