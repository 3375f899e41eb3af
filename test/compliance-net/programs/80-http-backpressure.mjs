// Backpressure: the server writes a large body in 64 KiB pieces and waits for 'drain'
// whenever write() returns false (the first write of a piece larger than the highWaterMark
// always does); the client reads slowly at first. Every byte arrives, in order.
import http from 'node:http';
import { createHash } from 'node:crypto';
import { format } from 'node:util';

const PORT = 21800;
const logs = { server: [], client: [] };
const log = (side, ...args) => logs[side].push(format(...args));
const PIECES = 64;
const piece = (i) => Buffer.alloc(64 * 1024, i % 251);

const server = http.createServer(async (req, res) => {
  res.setHeader('Content-Length', PIECES * 64 * 1024);
  let falses = 0;
  let drains = 0;
  res.on('drain', () => drains++);
  const expected = createHash('sha256');
  for (let i = 0; i < PIECES; i++) {
    expected.update(piece(i));
    if (!res.write(piece(i))) {
      falses++;
      await new Promise((resolve) => res.once('drain', resolve));
    }
  }
  res.end();
  res.on('finish', () => log('server', 'finish; first write returned false', falses >= 1, 'drains match falses', drains === falses, 'sha', expected.digest('hex').slice(0, 16)));
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

http.get({ host: '127.0.0.1', port: PORT, path: '/big', agent: false }, (res) => {
  const hash = createHash('sha256');
  let bytes = 0;
  res.pause();
  setTimeout(() => {
    res.on('data', (chunk) => {
      bytes += chunk.length;
      hash.update(chunk);
    });
    res.resume();
  }, 200);
  res.on('end', () => {
    log('client', 'end; bytes', bytes, 'content-length', res.headers['content-length'], 'sha', hash.digest('hex').slice(0, 16));
    server.close(() => log('server', 'closed'));
  });
});
process.on('exit', (code) => {
  for (const line of [...logs.server, ...logs.client]) console.log(line);
  console.log('exit', code);
});
