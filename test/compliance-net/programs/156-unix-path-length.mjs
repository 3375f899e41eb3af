// Socket paths near the sockaddr_un limit (sun_path is 108 bytes on Linux). Paths of 100, 107
// and 108 bytes work everywhere (108: no terminating NUL). A relative path (resolved against the
// working directory) is the usual workaround and works everywhere; address() is the name given.
// VERSION DIFFERENCE for paths longer than 108 bytes (109 and 200), stable within each version:
//   Node 20 (libuv 1.46): listen succeeds with the name silently TRUNCATED to 108 bytes,
//     address() is the full path, connect to the full path reaches it (truncated the same way),
//     close() does not remove the truncated file (1 file left: a stale socket).
//   Node 22 (libuv 1.51): truncated the same way, but close() removes the file (0 left).
//   Node 24 (libuv 1.52): listen fails 'listen EINVAL: invalid argument <path>' and connect
//     fails 'connect EINVAL <path> - Local (undefined:undefined)'.
// Assumes os.tmpdir() is shorter than ~90 bytes. Measured: 5 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const hide = (s) => (typeof s === 'string' ? s.split(dir).join('DIR') : s);
const log = (...args) => console.log(...args.map(hide));
// a path of exactly n bytes inside dir
const pathOfLength = (n) => path.join(dir, 'p'.repeat(n - dir.length - 1));

async function attempt(n) {
  const p = pathOfLength(n);
  const server = net.createServer((socket) => socket.end('hi'));
  const listened = await new Promise((resolve) => {
    server.once('error', (err) => {
      log(`${n} bytes: listen error`, err.code, err.syscall, err.message.split(p).join('PATH'), 'address is the full path', err.address === p);
      resolve(false);
    });
    server.listen(p, () => resolve(true));
  });
  if (listened) {
    const files = fs.readdirSync(dir);
    log(`${n} bytes: listening, address is the full path`, server.address() === p,
      'file name bytes', files.map((f) => dir.length + 1 + Buffer.byteLength(f)).join(','));
    const got = await new Promise((resolve) => {
      const c = net.connect(p);
      let d = '';
      c.on('data', (x) => (d += x));
      c.on('error', (err) => (d = `error ${err.code}`));
      c.on('close', () => resolve(d));
    });
    log(`${n} bytes: connect to the full path`, got);
    await new Promise((resolve) => server.close(resolve));
    log(`${n} bytes: after close files left`, fs.readdirSync(dir).length);
  }
  for (const f of fs.readdirSync(dir)) fs.unlinkSync(path.join(dir, f));
  // connect to a path this long with nothing listening
  const err = await new Promise((resolve) => {
    const c = net.connect(p);
    c.on('connect', () => resolve('connected (unexpected)'));
    c.on('error', (e) => resolve(`${e.code} ${e.syscall} ${e.message.split(p).join('PATH')}`));
  });
  log(`${n} bytes: connect with nothing listening`, err);
}

for (const n of [100, 107, 108, 109, 200]) await attempt(n);

// The usual workaround: a relative path from the socket's directory
const rel = path.relative(process.cwd(), path.join(dir, 'r'.repeat(20) + '.sock'));
const server = net.createServer((socket) => socket.end('rel'));
await new Promise((resolve) => server.listen(rel, resolve));
log('relative: address is the name given', server.address() === rel, 'exists', fs.existsSync(rel));
const got = await new Promise((resolve) => {
  const c = net.connect(rel);
  let d = '';
  c.on('data', (x) => (d += x));
  c.on('close', () => resolve(d));
});
log('relative: connect', got);
await new Promise((resolve) => server.close(resolve));
log('relative: exists after close', fs.existsSync(rel));

fs.rmSync(dir, { recursive: true });
process.on('exit', (code) => log('exit', code));
