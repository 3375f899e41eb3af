// Symbolic and hard links: how the kernel follows them (or not) for each call, and the errors it
// gives, which a simulated disk must reproduce.
import fs from 'node:fs';
import path from 'node:path';
import { attempt, attemptAsync, cleanUp, log, root } from './lib.mjs';

const at = (...parts) => path.join(root, ...parts);
fs.writeFileSync(at('file'), 'contents');
fs.mkdirSync(at('dir'));
fs.writeFileSync(at('dir', 'inner'), 'inner');

// Creating links: relative and absolute targets, a dangling one, a link to a directory.
attempt('symlink relative', () => fs.symlinkSync('file', at('rel')));
attempt('symlink absolute', () => fs.symlinkSync(at('file'), at('abs')));
attempt('symlink dangling', () => fs.symlinkSync('nowhere', at('dangling')));
attempt('symlink to dir', () => fs.symlinkSync('dir', at('dirlink')));
attempt('symlink chain', () => fs.symlinkSync('rel', at('chain')));
attempt('symlink over existing', () => fs.symlinkSync('file', at('file')));
attempt('symlink over dangling', () => fs.symlinkSync('file', at('dangling')));
attempt('symlink in missing dir', () => fs.symlinkSync('file', at('missing', 'l')));
attempt('symlink empty target', () => fs.symlinkSync('', at('empty')));

// Reading them: readlink, lstat against stat, through a link to a directory.
attempt('readlink rel', () => fs.readlinkSync(at('rel')));
attempt('readlink abs', () => fs.readlinkSync(at('abs')));
attempt('readlink buffer', () => fs.readlinkSync(at('rel'), 'buffer').toString('hex'));
attempt('readlink file', () => fs.readlinkSync(at('file')));
attempt('readlink missing', () => fs.readlinkSync(at('missing')));
attempt('readlink through link dir', () => fs.readlinkSync(at('dirlink', 'inner')));
for (const name of ['rel', 'abs', 'dangling', 'dirlink', 'chain']) {
  attempt(`lstat ${name}`, () => {
    const s = fs.lstatSync(at(name));
    return { link: s.isSymbolicLink(), size: s.size, mode: (s.mode & 0o170000).toString(8), perm: (s.mode & 0o777).toString(8), nlink: s.nlink };
  });
  attempt(`stat ${name}`, () => {
    const s = fs.statSync(at(name));
    return { file: s.isFile(), dir: s.isDirectory(), size: s.size };
  });
}
attempt('read through rel', () => fs.readFileSync(at('rel'), 'utf8'));
attempt('read through chain', () => fs.readFileSync(at('chain'), 'utf8'));
attempt('read through dangling', () => fs.readFileSync(at('dangling'), 'utf8'));
attempt('read dir through link', () => fs.readFileSync(at('dirlink', 'inner'), 'utf8'));
attempt('readdir through link', () => fs.readdirSync(at('dirlink')));
attempt('readdir withFileTypes', () => fs.readdirSync(root, { withFileTypes: true }).map((d) => `${d.name}:${d.isSymbolicLink() ? 'link' : d.isDirectory() ? 'dir' : 'file'}`));
attempt('existsSync dangling', () => fs.existsSync(at('dangling')));
attempt('access dangling', () => fs.accessSync(at('dangling')));
attempt('dirlink/.. is root', () => fs.readdirSync(at('dirlink', '..')).length);
attempt('dirlink/ trailing slash', () => fs.statSync(at('dirlink') + '/').isDirectory());
attempt('lstat dirlink/ follows', () => fs.lstatSync(at('dirlink') + '/').isDirectory());
attempt('rel/ trailing slash', () => fs.statSync(at('rel') + '/'));

// realpath: the path with every link resolved.
attempt('realpath chain', () => fs.realpathSync(at('chain')));
attempt('realpath.native chain', () => fs.realpathSync.native(at('chain')));
attempt('realpath dir/inner through link', () => fs.realpathSync(at('dirlink', 'inner')));
attempt('realpath.native through link', () => fs.realpathSync.native(at('dirlink', 'inner')));
attempt('realpath dangling', () => fs.realpathSync(at('dangling')));
attempt('realpath.native dangling', () => fs.realpathSync.native(at('dangling')));

// Writing through links: a write reaches the target; O_CREAT through a dangling link creates it.
attempt('append through rel', () => fs.appendFileSync(at('rel'), '+more'));
attempt('target after append', () => fs.readFileSync(at('file'), 'utf8'));
fs.symlinkSync('created', at('tocreate'));
attempt('write through dangling creates target', () => fs.writeFileSync(at('tocreate'), 'new'));
attempt('created target', () => fs.readFileSync(at('created'), 'utf8'));
attempt('open wx on a link', () => fs.openSync(at('rel'), 'wx'));
attempt('open O_NOFOLLOW on a link', () => fs.openSync(at('rel'), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW));
attempt('mkdir over a link', () => fs.mkdirSync(at('dangling')));
attempt('mkdir over a dangling link/', () => fs.mkdirSync(at('dangling') + '/'));
attempt('rmdir a link to a dir', () => fs.rmdirSync(at('dirlink')));
attempt('unlink dirlink/', () => fs.unlinkSync(at('dirlink') + '/'));
attempt('rmdir dirlink/', () => fs.rmdirSync(at('dirlink') + '/'));
attempt('rename dirlink/', () => fs.renameSync(at('dirlink') + '/', at('renamed')));
attempt('rename rel/', () => fs.renameSync(at('rel') + '/', at('renamed')));
attempt('dir survives', () => fs.readdirSync(at('dir')));

// Loops: ELOOP.
fs.symlinkSync('loop2', at('loop1'));
fs.symlinkSync('loop1', at('loop2'));
attempt('stat loop', () => fs.statSync(at('loop1')));
attempt('lstat loop', () => fs.lstatSync(at('loop1')).isSymbolicLink());
attempt('read loop', () => fs.readFileSync(at('loop1')));
attempt('realpath loop', () => fs.realpathSync(at('loop1')));

// Hard links: one file, several names; nlink counts them; link() does not follow a symbolic link.
attempt('link', () => fs.linkSync(at('file'), at('hard')));
attempt('nlink after link', () => fs.statSync(at('file')).nlink);
attempt('same inode', () => fs.statSync(at('file')).ino === fs.statSync(at('hard')).ino);
attempt('write through hard link', () => fs.appendFileSync(at('hard'), '!'));
attempt('read other name', () => fs.readFileSync(at('file'), 'utf8'));
attempt('link over existing', () => fs.linkSync(at('file'), at('hard')));
attempt('link a dir', () => fs.linkSync(at('dir'), at('dirhard')));
attempt('link missing', () => fs.linkSync(at('missing'), at('x')));
attempt('link a symlink', () => fs.linkSync(at('dangling'), at('dangling2')));
attempt('the new name is a symlink', () => fs.lstatSync(at('dangling2')).isSymbolicLink());
attempt('unlink one name', () => fs.unlinkSync(at('file')));
attempt('nlink after unlink', () => fs.statSync(at('hard')).nlink);
attempt('rel now dangles', () => fs.readFileSync(at('rel'), 'utf8'));

// Removing and renaming links acts on the link, never the target.
attempt('unlink a link', () => fs.unlinkSync(at('abs')));
attempt('rename a link', () => fs.renameSync(at('dirlink'), at('moved')));
attempt('moved still works', () => fs.readdirSync(at('moved')));
attempt('dir intact', () => fs.readdirSync(at('dir')));
attempt('rm -r a link to a dir', () => fs.rmSync(at('moved'), { recursive: true }));
attempt('dir intact after rm', () => fs.readdirSync(at('dir')));

// The callback and promise forms.
await attemptAsync('promises.symlink', () => fs.promises.symlink('dir', at('plink')));
await attemptAsync('promises.readlink', () => fs.promises.readlink(at('plink')));
await attemptAsync('promises.lstat', async () => (await fs.promises.lstat(at('plink'))).isSymbolicLink());
await attemptAsync('promises.realpath', () => fs.promises.realpath(at('plink')));
await attemptAsync('promises.symlink exists', () => fs.promises.symlink('dir', at('plink')));
await attemptAsync('promises.readlink not a link', () => fs.promises.readlink(at('dir')));
await attemptAsync('callback readlink', () => new Promise((resolve, reject) => fs.readlink(at('plink'), (e, t) => (e ? reject(e) : resolve(t)))));
await attemptAsync('callback symlink exists', () => new Promise((resolve, reject) => fs.symlink('x', at('plink'), (e) => (e ? reject(e) : resolve()))));
await attemptAsync('callback realpath.native', () => new Promise((resolve, reject) => fs.realpath.native(at('plink'), (e, p) => (e ? reject(e) : resolve(p)))));

log('listing', fs.readdirSync(root).sort());
cleanUp();
