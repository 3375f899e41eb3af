// Edges of path resolution, permissions and positions: what the kernel and libuv decide, which a
// simulated disk must decide the same way.
import fs from 'node:fs';
import path from 'node:path';
import { attempt, cleanUp, log, root } from './lib.mjs';

const file = path.join(root, 'f.txt');
fs.writeFileSync(file, 'x');

// The empty path (an unset setting) is ENOENT, not the working directory.
attempt('existsSync("")', () => fs.existsSync(''));
attempt('statSync("")', () => fs.statSync('').isDirectory());
attempt('readdirSync("")', () => fs.readdirSync('').length);

// A trailing slash names a directory; '..' needs the component before it to be one.
attempt('existsSync(file/)', () => fs.existsSync(file + '/'));
attempt('statSync(file/)', () => fs.statSync(file + '/').isFile());
attempt('readFileSync(file/)', () => fs.readFileSync(file + '/', 'utf8'));
attempt('writeFileSync(new/)', () => fs.writeFileSync(path.join(root, 'new') + '/', 'y'));
attempt('unlinkSync(file/)', () => fs.unlinkSync(file + '/'));
attempt('renameSync(file, other/)', () => fs.renameSync(file, path.join(root, 'other') + '/'));
attempt('stat file/../f.txt', () => fs.statSync(file + '/../f.txt').size);
attempt('stat missing/../f.txt', () => fs.statSync(path.join(root, 'missing') + '/../f.txt').size);
attempt('mkdir missing/../m', () => fs.mkdirSync(path.join(root, 'missing') + '/../m'));
attempt('stat dir/./../f.txt', () => fs.statSync(root + '/./../' + path.basename(root) + '/f.txt').size);
attempt('mkdir dir/', () => fs.mkdirSync(path.join(root, 'slash') + '/'));
attempt('rmdir dir/.', () => fs.rmdirSync(path.join(root, 'slash') + '/.'));

// mkdir -p returns the first directory it made, as the program wrote the path.
const rel = path.relative(process.cwd(), root);
attempt('mkdir -p relative', () => fs.mkdirSync(path.join(rel, 'a', 'b'), { recursive: true }).split(rel).join('<rel>'));
attempt('mkdir -p trailing slash', () => fs.mkdirSync(path.join(root, 'c', 'd') + '/', { recursive: true }));
attempt('mkdir -p double slash', () => fs.mkdirSync(path.join(root, 'w1') + '//w2', { recursive: true }));
attempt('mkdir -p over a file', () => fs.mkdirSync(path.join(file, 'x'), { recursive: true }));
attempt('mkdtemp in a missing dir', () => fs.mkdtempSync(path.join(root, 'missing', 'x-')));

// The umask the program sets applies to what it creates.
const old = process.umask(0o077);
fs.writeFileSync(path.join(root, 'secret.key'), 'k');
fs.mkdirSync(path.join(root, 'private'));
process.umask(old);
log('umask 077', (fs.statSync(path.join(root, 'secret.key')).mode & 0o777).toString(8), (fs.statSync(path.join(root, 'private')).mode & 0o777).toString(8));

// access() checks the mode bits (as root: X_OK needs an execute bit); the mode itself is checked first.
fs.writeFileSync(path.join(root, 'script'), '#!/bin/sh\n', { mode: 0o644 });
attempt('access X_OK 644', () => fs.accessSync(path.join(root, 'script'), fs.constants.X_OK));
fs.chmodSync(path.join(root, 'script'), 0o755);
attempt('access X_OK 755', () => fs.accessSync(path.join(root, 'script'), fs.constants.X_OK));
attempt('access mode 8', () => fs.accessSync(file, 8));

// copyFile: onto itself changes nothing; the copy takes the source's mode; no clone is forced.
fs.writeFileSync(path.join(root, 'precious'), 'precious');
fs.copyFileSync(path.join(root, 'precious'), path.join(root, '.', 'precious'));
log('copyFile onto itself', fs.readFileSync(path.join(root, 'precious'), 'utf8'));
fs.writeFileSync(path.join(root, 'dest'), 'old', { mode: 0o600 });
fs.chmodSync(path.join(root, 'precious'), 0o640);
fs.copyFileSync(path.join(root, 'precious'), path.join(root, 'dest'));
log('copyFile mode', (fs.statSync(path.join(root, 'dest')).mode & 0o777).toString(8));
attempt('copyFile FICLONE_FORCE', () => fs.copyFileSync(path.join(root, 'precious'), path.join(root, 'clone'), fs.constants.COPYFILE_FICLONE_FORCE));

// A positioned write on an O_APPEND descriptor appends and leaves the position alone.
const appendFd = fs.openSync(path.join(root, 'log'), 'a+');
fs.writeSync(appendFd, 'abc');
fs.writeSync(appendFd, 'X', 0);
const buffer = Buffer.alloc(10);
log('append then read at the position', fs.readSync(appendFd, buffer, 0, 10, null), fs.readFileSync(path.join(root, 'log'), 'utf8'));
fs.closeSync(appendFd);

// Reads into any ArrayBufferView count in bytes.
fs.writeFileSync(path.join(root, 'doubles'), Buffer.from(new Float64Array([1.5, 2.5]).buffer));
const doublesFd = fs.openSync(path.join(root, 'doubles'), 'r');
const doubles = new Float64Array(2);
fs.readSync(doublesFd, doubles, 0, 16, 0);
const view = new DataView(new ArrayBuffer(8));
fs.readSync(doublesFd, view, 0, 8, 8);
log('typed reads', [...doubles], view.getFloat64(0, true));
fs.closeSync(doublesFd);

// Two names of one file: renaming one onto the other changes nothing; a directory's link count.
fs.writeFileSync(path.join(root, 'l1'), 'x');
fs.linkSync(path.join(root, 'l1'), path.join(root, 'l2'));
fs.renameSync(path.join(root, 'l1'), path.join(root, 'l2'));
log('rename onto own link', fs.existsSync(path.join(root, 'l1')), fs.statSync(path.join(root, 'l2')).nlink);
fs.mkdirSync(path.join(root, 'tree', 'x', 'y'), { recursive: true });
fs.mkdirSync(path.join(root, 'tree', 'z'));
log('directory nlink', fs.statSync(path.join(root, 'tree')).nlink, fs.statSync(path.join(root, 'tree', 'x')).nlink);
fs.rmdirSync(path.join(root, 'tree', 'z'));
log('directory nlink after rmdir', fs.statSync(path.join(root, 'tree')).nlink);

// utimes keeps what libuv keeps of a Date (microseconds before Node 24).
const date = new Date(1700000000123);
fs.utimesSync(file, date, date);
log('utimes', fs.statSync(file).mtimeMs, fs.statSync(file, { bigint: true }).mtimeNs.toString());
fs.utimesSync(file, 1000.5, 2000.25);
log('utimes seconds', fs.statSync(file).atimeMs, fs.statSync(file).mtimeMs);

// Devices are not the disk's.
attempt('write /dev/null', () => fs.writeFileSync('/dev/null', 'x'));
attempt('read /dev/null', () => fs.readFileSync('/dev/null').length);
cleanUp();
