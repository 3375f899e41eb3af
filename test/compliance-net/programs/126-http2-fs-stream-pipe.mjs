// HTTP/2 (h2c) with files read through node:fs streams, as Node's own test-http2-pipe,
// test-http2-client-upload and test-http2-compat-serverrequest-pipe do: the client pipes a
// file into its request, the server pipes a file into its response. Every read is an fs call
// the simulation holds the world for, and every write to the stream makes Http2Session queue a
// native immediate; strict mode used to count those immediates as escaped when it looked while
// a read held the world (exit 74). Small chunks make many such reads.
import fs from 'node:fs';
import http2 from 'node:http2';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const PORT = 22661;
const FILE = fileURLToPath(import.meta.url);
const expected = createHash('sha256').update(fs.readFileSync(FILE)).digest('hex').slice(0, 16);
const serverLog = [];

const server = http2.createServer();
server.on('stream', (stream) => {
  const hash = createHash('sha256');
  let bytes = 0;
  stream.on('data', (chunk) => {
    bytes += chunk.length;
    hash.update(chunk);
  });
  stream.on('end', () => {
    serverLog.push(`server got ${bytes} bytes, sha256 matches the file: ${hash.digest('hex').slice(0, 16) === expected}`);
    stream.respond({ ':status': 200 });
    fs.createReadStream(FILE, { highWaterMark: 256 }).pipe(stream);
  });
});
await new Promise((resolve) => server.listen(PORT, '127.0.0.1', resolve));

const session = http2.connect(`http://127.0.0.1:${PORT}`);
const req = session.request({ ':method': 'POST', ':path': '/upload' });
fs.createReadStream(FILE, { highWaterMark: 256 }).pipe(req);
const hash = createHash('sha256');
let bytes = 0;
let status;
req.on('response', (headers) => (status = headers[':status']));
req.on('data', (chunk) => {
  bytes += chunk.length;
  hash.update(chunk);
});
await new Promise((resolve) => req.on('end', resolve));
console.log(`client: status ${status}, got ${bytes} bytes, sha256 matches the file: ${hash.digest('hex').slice(0, 16) === expected}`);
session.close(() => console.log('session closed'));
server.close();
process.on('exit', () => serverLog.forEach((line) => console.log(line)));
