// net.connect({ path, onread: { buffer } }) over a unix socket: every read fills the program's
// buffer (4 KiB here) and hands the count to the callback, as over TCP. The simulator took the
// buffer for TCP handles only, and handed a unix socket's 10,000 bytes in one callback. Node
// 20, 22 and 24 alike.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const sock = path.join(dir, 's.sock');
const server = net.createServer((socket) => socket.end(Buffer.alloc(10_000, 97)));
await new Promise((resolve) => server.listen(sock, resolve));
const sizes = [];
const buffer = Buffer.alloc(4096);
let same = true;
await new Promise((resolve) => {
  const client = net.connect({
    path: sock,
    onread: {
      buffer,
      callback: (n, buf) => {
        sizes.push(n);
        same &&= buf === buffer;
      },
    },
  });
  client.on('end', resolve);
});
console.log(`reads ${sizes.join(',')}, the program's buffer each time ${same}`);
await new Promise((resolve) => server.close(resolve));
fs.rmSync(dir, { recursive: true });
