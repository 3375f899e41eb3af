// Which calls change a file's mtime and ctime (Linux): a change of mode or owner (even to the
// same values), a new or removed name and a rename change ctime only; an O_TRUNC open of an
// existing file changes both even when it was empty; a write of no bytes changes neither; a
// read neither. The simulated disk left ctime alone on chmod, chown, link and unlink, skipped
// an empty file's O_TRUNC, and changed both on a write of no bytes (found by a probe,
// 2026-12-05).
import fs from 'node:fs';
import path from 'node:path';
import { cleanUp, log, root } from './lib.mjs';

const file = path.join(root, 'f');
fs.writeFileSync(file, 'x');
// Far apart in real time too: the plain run reads the real clock, at the file system's resolution.
const apart = () => new Promise((resolve) => setTimeout(resolve, 20));

async function changes(label, change) {
  const before = fs.statSync(file);
  await apart();
  change();
  const after = fs.statSync(file);
  log(label, 'mtime changed:', before.mtimeMs !== after.mtimeMs, 'ctime changed:', before.ctimeMs !== after.ctimeMs);
}

const withFd = (flags, use) => {
  const fd = fs.openSync(file, flags);
  try {
    use(fd);
  } finally {
    fs.closeSync(fd);
  }
};
await changes('chmod', () => fs.chmodSync(file, 0o600));
await changes('fchmod', () => withFd('r', (fd) => fs.fchmodSync(fd, 0o640)));
await changes('chown to the same ids', () => fs.chownSync(file, process.getuid(), process.getgid()));
await changes('fchown to the same ids', () => withFd('r', (fd) => fs.fchownSync(fd, process.getuid(), process.getgid())));
await changes('link', () => fs.linkSync(file, `${file}2`));
await changes('unlink of the other name', () => fs.unlinkSync(`${file}2`));
await changes('rename and back', () => {
  fs.renameSync(file, `${file}3`);
  fs.renameSync(`${file}3`, file);
});
fs.truncateSync(file, 0);
await changes('O_TRUNC open of an empty file', () => withFd('w', () => {}));
await changes('write of no bytes', () => withFd('r+', (fd) => fs.writeSync(fd, Buffer.alloc(0))));
await changes('writev of no bytes', () => withFd('r+', (fd) => fs.writevSync(fd, [Buffer.alloc(0)])));
await changes('write of one byte', () => withFd('r+', (fd) => fs.writeSync(fd, 'a')));
await changes('read', () => fs.readFileSync(file));
cleanUp();
