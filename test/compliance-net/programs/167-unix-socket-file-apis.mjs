// A listening unix socket's file through fs's three APIs (sync, callback, promise): stat and
// lstat show a socket, readdir lists it (withFileTypes: a socket), a path through it is
// ENOTDIR, open/readFile/writeFile are ENXIO, chmod and utimes change it, link adds a name and
// rename moves one (over a file, which goes; a file renamed over it replaces it), rmdir of its
// directory is ENOTEMPTY, unlink removes the name while the server keeps listening (connect by
// the name is then ENOENT), and a directory renamed or removed takes the names in it along.
// Measured: Node 20.20.2, 22.23.5, 24.22.3 identical (run as root: access W_OK passes).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'x-'));
const hide = (s) => String(s).split(dir).join('DIR');
const sock = path.join(dir, 's.sock');
const at = (name) => path.join(dir, name);
const show = async (label, f) => {
  try {
    const r = await f();
    console.log(label, 'ok', hide(JSON.stringify(r)));
  } catch (e) {
    console.log(label, e.code, e.syscall, hide(e.message));
  }
};
const cb = (fn, ...args) => new Promise((resolve, reject) => fn(...args, (e, v) => (e ? reject(e) : resolve(v))));
const connect = (p) =>
  new Promise((resolve, reject) => {
    const c = net.connect(p);
    c.on('connect', () => {
      c.destroy();
      resolve('connected');
    });
    c.on('error', reject);
  });

const server = net.createServer((s) => s.destroy());
server.listen(sock, async () => {
  await show('stat cb', async () => {
    const st = await cb(fs.stat, sock);
    return [st.isSocket(), st.isFile(), st.size, st.nlink];
  });
  await show('lstat promise', async () => (await fsp.lstat(sock)).isSocket());
  await show('stat bigint', () => {
    const st = fs.statSync(sock, { bigint: true });
    return [st.isSocket(), typeof st.ino, st.size.toString()];
  });
  await show('readdir cb withFileTypes', async () => (await cb(fs.readdir, dir, { withFileTypes: true })).map((d) => [d.name, d.isSocket()]));
  await show('readdir promise', () => fsp.readdir(dir));
  await show('readdir buffer', () => fs.readdirSync(dir, 'buffer').map((b) => Buffer.isBuffer(b) && b.toString()));
  await show('stat through', () => fs.statSync(path.join(sock, 'x')));
  await show('stat through no throw', () => fs.statSync(path.join(sock, 'x'), { throwIfNoEntry: false }) ?? 'undefined');
  await show('exists through', () => fs.existsSync(path.join(sock, 'x')));
  await show('open through promise', () => fsp.open(path.join(sock, 'x')));
  await show('readFile cb', () => cb(fs.readFile, sock));
  await show('readFile promise', () => fsp.readFile(sock, 'utf8'));
  await show('writeFile promise', () => fsp.writeFile(sock, 'x'));
  await show('open wx cb', () => cb(fs.open, sock, 'wx'));
  await show('mkdir promise', () => fsp.mkdir(sock));
  await show('chmod promise', async () => {
    await fsp.chmod(sock, 0o600);
    return (fs.statSync(sock).mode & 0o777).toString(8);
  });
  await show('utimes cb', async () => {
    await cb(fs.utimes, sock, 1000, 2000);
    const st = fs.statSync(sock);
    return [st.atimeMs, st.mtimeMs];
  });
  await show('access R promise', () => fsp.access(sock, fs.constants.R_OK));
  fs.writeFileSync(at('f'), 'f');
  await show('link cb', () => cb(fs.link, sock, at('l.sock')));
  await show('nlink', () => [fs.statSync(sock).nlink, fs.statSync(at('l.sock')).nlink]);
  await show('link onto a file', () => fs.linkSync(sock, at('f')));
  await show('link a file onto it', () => fs.linkSync(at('f'), sock));
  await show('rename promise over a file', () => fsp.rename(at('l.sock'), at('f')));
  await show('listing', () => fs.readdirSync(dir).sort());
  await show('f is a socket', () => fs.statSync(at('f')).isSocket());
  await show('connect through the moved name', () => connect(at('f')));
  await show('rename a file over it', () => {
    fs.writeFileSync(at('g'), 'g');
    fs.renameSync(at('g'), at('f'));
    return [fs.statSync(at('f')).isFile(), fs.readFileSync(at('f'), 'utf8')];
  });
  await show('rmdir with the socket in it', () => fs.rmdirSync(dir));
  await show('connect by name', () => connect(sock));
  await show('unlink promise', () => fsp.unlink(sock));
  await show('exists after unlink', () => fs.existsSync(sock));
  await show('connect after unlink', () => connect(sock));
  await show('still listening', () => server.listening);
  // A second server in a subdirectory: the directory renamed, then removed, takes its name along.
  fs.mkdirSync(at('sub'));
  const second = net.createServer((s) => s.destroy());
  await new Promise((resolve) => second.listen(at('sub/t.sock'), resolve));
  await show('in sub', () => fs.readdirSync(at('sub')));
  await show('rename sub', () => fs.renameSync(at('sub'), at('moved')));
  await show('after rename', () => [fs.existsSync(at('sub/t.sock')), fs.statSync(at('moved/t.sock')).isSocket()]);
  await show('rm -r moved', () => fs.rmSync(at('moved'), { recursive: true }));
  fs.mkdirSync(at('moved'));
  await show('after rm and mkdir', () => [fs.existsSync(at('moved/t.sock')), fs.readdirSync(at('moved'))]);
  second.close(() => {
    server.close(() => {
      fs.rmSync(dir, { recursive: true });
      console.log('closed');
    });
  });
});
