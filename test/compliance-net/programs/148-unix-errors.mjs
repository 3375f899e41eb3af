// Unix socket errors and their exact fields. connect: missing path ENOENT (errno -2), regular
// file / directory / stale socket file (hard link kept after the server closed) ECONNREFUSED
// (-111), a path unlinked from under a listening server ENOENT. listen: on a path held by a
// listening server, on a regular file, on a directory, on a stale socket file: EADDRINUSE (-98),
// syscall 'listen' (although bind() failed), port -1, keys address,code,errno,port,syscall
// (connect errors have no port key). A missing directory gives EACCES (-13), not ENOENT (libuv
// maps the bind ENOENT to EACCES). Listen errors come asynchronously (after listen() returns);
// connect errors too, and before an immediate queued just before net.connect(). After a failed
// listen server.address() still returns the path. Unlinking the stale file and calling
// listen() again on the same server works.
// Measured: Node 20, 22, 24 identical, 6 plain + 3 loaded runs each.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const hide = (s) => (typeof s === 'string' ? s.split(dir).join('DIR') : s);
const log = (...args) => console.log(...args.map(hide));

function describe(err) {
  return {
    name: err.name,
    message: hide(err.message),
    code: err.code,
    errno: err.errno,
    syscall: err.syscall,
    address: hide(err.address),
    port: err.port,
    keys: Object.keys(err).sort().join(','),
  };
}

function connectTo(label, p) {
  return new Promise((resolve) => {
    let sync = true;
    let immediateRan = false;
    setImmediate(() => (immediateRan = true));
    const socket = net.connect(p);
    sync = false;
    socket.on('connect', () => {
      log(label, 'connect (unexpected)');
      socket.destroy();
    });
    socket.on('error', (err) => {
      log(label, 'error', describe(err), 'sync', sync, 'after an immediate', immediateRan);
      log(label, 'state at error', socket.destroyed, socket.connecting, socket.readyState);
    });
    socket.on('close', (hadError) => {
      log(label, 'close', hadError);
      resolve();
    });
  });
}

function listenOn(label, server, p) {
  return new Promise((resolve) => {
    const onListening = () => {
      server.off('error', onError);
      log(label, 'listening', hide(server.address()));
      resolve(true);
    };
    let sync = true;
    const onError = (err) => {
      server.off('listening', onListening);
      log(label, 'listen error', describe(err), 'sync', sync, 'listening', server.listening, 'address', server.address());
      resolve(false);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(p);
    sync = false;
  });
}

const close = (server) => new Promise((resolve) => server.close(resolve));

// 1. connect to a path that does not exist
await connectTo('missing', path.join(dir, 'nope.sock'));
// 2. connect to a regular file
const file = path.join(dir, 'file');
fs.writeFileSync(file, 'x');
await connectTo('regular file', file);
// 3. connect to a directory
await connectTo('directory', dir);
// 4. stale socket file: keep a hard link to a bound socket after the server closed
const live = path.join(dir, 'live.sock');
const stale = path.join(dir, 'stale.sock');
const s1 = net.createServer();
await listenOn('s1', s1, live);
fs.linkSync(live, stale);
await close(s1);
log('after close: live exists', fs.existsSync(live), 'stale exists', fs.existsSync(stale), 'stale isSocket', fs.statSync(stale).isSocket());
await connectTo('stale', stale);
// 5. listen on a path in use by a listening server
const s2 = net.createServer();
await listenOn('s2', s2, live);
const s3 = net.createServer();
await listenOn('s3 same path', s3, live);
await close(s2);
// 6. listen on a path that is a regular file
await listenOn('regular file', net.createServer(), file);
// 7. listen in a directory that does not exist
await listenOn('missing dir', net.createServer(), path.join(dir, 'no', 'such', 's.sock'));
// 8. listen on the stale socket file, then recover by unlinking it
const s4 = net.createServer();
await listenOn('stale', s4, stale);
fs.unlinkSync(stale);
await listenOn('stale after unlink', s4, stale);
await close(s4);
log('after close exists', fs.existsSync(stale));
// 9. listen on a directory
await listenOn('directory', net.createServer(), dir);
// 10. connect after unlinking the file of a listening server: ENOENT, the server still listens
const s5 = net.createServer();
await listenOn('s5', s5, live);
fs.unlinkSync(live);
await connectTo('unlinked', live);
log('s5 listening', s5.listening);
await close(s5);

fs.rmSync(dir, { recursive: true });
process.on('exit', (code) => log('exit', code));
