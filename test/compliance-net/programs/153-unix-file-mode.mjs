// listen({ path, readableAll, writableAll }) and the socket file's mode, under the inherited
// umask (booleans) and under explicit umasks 077, 022 and 777.
// VERSION DIFFERENCE (stable within each version):
//   Node 20 (libuv 1.46): the bits are OR-ed into the bind mode: umask 022 -> readableAll 755,
//     writableAll 777, both 777; umask 077 -> 744 / 722 / 766.
//   Node 22 (libuv 1.51) and 24 (libuv 1.52): the mode is SET to exactly the requested bits:
//     readableAll 444, writableAll 222, both 666, whatever the umask (so the owner loses write
//     with readableAll alone: ownerRW false).
// The default mode is 0777 & ~umask (755 under 022, 700 under 077, 0 under 777) on all three.
// The options are ignored for TCP. fs.chmod on the socket file works.
// Measured: 5 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const log = (...args) => console.log(...args);
const sockPath = path.join(dir, 's.sock');

function bits(mode) {
  const m = mode & 0o777;
  return {
    type: (mode & fs.constants.S_IFMT) === fs.constants.S_IFSOCK ? 'socket' : 'other',
    ownerRW: (m & 0o600) === 0o600,
    groupR: !!(m & 0o040), groupW: !!(m & 0o020),
    otherR: !!(m & 0o004), otherW: !!(m & 0o002),
  };
}

async function modeWith(options) {
  const server = net.createServer();
  await new Promise((resolve) => server.listen({ path: sockPath, ...options }, resolve));
  const mode = fs.statSync(sockPath).mode;
  await new Promise((resolve) => server.close(resolve));
  return mode;
}

// Under whatever umask the process has (group/other write bits are usually masked):
// readableAll/writableAll add read/write for everyone.
const cases = [
  ['readableAll+writableAll', { readableAll: true, writableAll: true }],
  ['readableAll', { readableAll: true }],
  ['writableAll', { writableAll: true }],
];
for (const [name, options] of cases) {
  const b = bits(await modeWith(options));
  const want = {
    groupR: !!options.readableAll || undefined, otherR: !!options.readableAll || undefined,
    groupW: !!options.writableAll || undefined, otherW: !!options.writableAll || undefined,
  };
  const ok = Object.entries(want).every(([k, v]) => v === undefined || b[k] === v);
  log(name, 'type', b.type, 'ownerRW', b.ownerRW, 'requested bits set', ok);
}

// With an explicit umask the whole mode is fixed.
const old = process.umask(0o077);
log('umask 077: default', (await modeWith({}) & 0o777).toString(8));
log('umask 077: readableAll', (await modeWith({ readableAll: true }) & 0o777).toString(8));
log('umask 077: writableAll', (await modeWith({ writableAll: true }) & 0o777).toString(8));
log('umask 077: both', (await modeWith({ readableAll: true, writableAll: true }) & 0o777).toString(8));
process.umask(0o022);
log('umask 022: default', (await modeWith({}) & 0o777).toString(8));
log('umask 022: readableAll', (await modeWith({ readableAll: true }) & 0o777).toString(8));
log('umask 022: writableAll', (await modeWith({ writableAll: true }) & 0o777).toString(8));
log('umask 022: both', (await modeWith({ readableAll: true, writableAll: true }) & 0o777).toString(8));
process.umask(0o777);
log('umask 777: default', (await modeWith({}) & 0o777).toString(8));
log('umask 777: both', (await modeWith({ readableAll: true, writableAll: true }) & 0o777).toString(8));
process.umask(old);

// readableAll/writableAll on a TCP listen are ignored
const tcp = net.createServer();
await new Promise((resolve) => tcp.listen({ port: 0, host: '127.0.0.1', readableAll: true, writableAll: true }, resolve));
log('tcp with readableAll: family', tcp.address().family);
await new Promise((resolve) => tcp.close(resolve));

// fs.chmod on a listening socket file works like on any file
const server = net.createServer();
await new Promise((resolve) => server.listen(sockPath, resolve));
fs.chmodSync(sockPath, 0o600);
log('after chmod 600', (fs.statSync(sockPath).mode & 0o777).toString(8));
await new Promise((resolve) => server.close(resolve));

fs.rmSync(dir, { recursive: true });
process.on('exit', (code) => log('exit', code));
