/**
 * Unix socket files on the real disk, as a host's fs calls see them.
 *
 * On the real disk a simulated unix socket makes no file (shims/net/unix-names.ts says why); its
 * name is kept in the world, per host. Plainly, bind(2) makes a socket file there, and programs
 * look at it: `existsSync` to see a daemon is up, `chmodSync(path, 0o660)` after listen, `unlink`
 * of a stale name, `readdir` of the socket's directory, `stat().isSocket()`. Without this layer
 * those saw nothing (ENOENT; a chmod after listen crashed the program).
 *
 * So a call from a host on the real disk that names a kept socket path (or a path through one)
 * is answered here, as Linux answers it (measured on Node 20 and 24, the same):
 * - stat, lstat: a socket (S_IFSOCK, 0777 less the umask, size 0, nlink its names), times on the
 *   host's clock; access by its mode bits; existsSync true;
 * - open, readFile, writeFile, truncate, appendFile: ENXIO (EEXIST for an exclusive create);
 *   copyFile from or to it: ENXIO; mkdir: EEXIST; rmdir: ENOTDIR; anything under it: ENOTDIR;
 * - unlink and rm remove the name (the socket keeps listening; connect by that name then fails
 *   with ENOENT); link adds a name, rename moves it (over a real file, which goes), chmod, chown
 *   and utimes change it;
 * - readdir of its directory lists it (withFileTypes: a socket) after the real entries; rmdir of
 *   that directory is ENOTEMPTY.
 * A name whose directory was removed underneath it (rm -r by Node's C++) is forgotten. Calls that
 * name no kept socket go to the real disk as before; with no socket names kept, nothing is checked.
 */
import fs from 'node:fs';
import nodePath from 'node:path';
import type { Meta } from '../../runtime/disk/disk.js';
import { onRealDisk } from '../../runtime/disk/real.js';
import { NODE_MAJOR, type Host } from '../context.js';
import { keptOf, type SocketFile } from '../net/unix-names.js';
import { encode, fail, pathText, permits, setMode, setOwner, setTimes, statArray } from './disk.js';

const C = fs.constants;
const UV = C as unknown as Record<string, number>;
const DIRENT_SOCKET = UV.UV_DIRENT_SOCKET ?? 5;
/** The syscall a binding function's error names, where it is not the function's own name. */
const SYSCALL: Record<string, string> = { openFileHandle: 'open', readFileUtf8: 'open', writeFileUtf8: 'open', utimes: 'utime', lutimes: 'lutime', rmSync: 'rm' };
/** Code whose answer is the real disk's. */
const NOT_SERVED = Symbol('dst.notServed');

function resolved(value: unknown): string | undefined {
  if (typeof value !== 'string' && !(value instanceof Uint8Array)) return undefined;
  const text = pathText(value);
  return text === '' ? undefined : nodePath.resolve(text);
}

function realEntry(abs: string): fs.Stats | undefined {
  return onRealDisk(() => fs.lstatSync(abs, { throwIfNoEntry: false }));
}

/** The socket file kept at `abs`, if its directory is still there (else the name is forgotten). */
function keptAt(host: Host, abs: string): SocketFile | undefined {
  const names = keptOf(host);
  const file = names.get(abs);
  if (file?.meta === undefined) return undefined;
  if (realEntry(nodePath.dirname(abs))?.isDirectory() === true) return file;
  names.delete(abs);
  return undefined;
}

/** A kept socket file that `abs` goes through as a directory (a/s.sock/x), if any. */
function keptAbove(host: Host, abs: string): boolean {
  for (let dir = nodePath.dirname(abs); dir !== nodePath.dirname(dir); dir = nodePath.dirname(dir)) {
    if (keptAt(host, dir) !== undefined) return true;
  }
  return false;
}

function namesIn(host: Host, dir: string): string[] {
  const found: string[] = [];
  for (const [name, file] of keptOf(host)) {
    if (file.meta !== undefined && nodePath.dirname(name) === dir && keptAt(host, name) !== undefined) found.push(nodePath.basename(name));
  }
  return found.sort();
}

/** The kept names anywhere under directory `dir`. */
function namesUnder(host: Host, dir: string): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return [...keptOf(host).keys()].filter((name) => name.startsWith(prefix));
}

function linkCount(host: Host, file: SocketFile): number {
  let n = 0;
  for (const kept of keptOf(host).values()) if (kept === file) n++;
  return n;
}

function statOf(host: Host, file: SocketFile) {
  const meta = file.meta!;
  return { ...meta, nlink: linkCount(host, file), rdev: 0, blksize: 4096, size: 0, blocks: 0 };
}

/** Whether anything (a kept socket file or a real entry) is at `abs`. */
function taken(host: Host, abs: string): boolean {
  return keptAt(host, abs) !== undefined || realEntry(abs) !== undefined;
}

function nowNs(host: Host): bigint {
  return BigInt(host.dateNowMs()) * 1_000_000n;
}

/**
 * A change of the socket file's inode by the simulated disk's own rule (`change`: setMode,
 * setOwner, setTimes); chmod and chown also set its ctime to the host's now, as Linux does.
 */
function changed(host: Host, file: SocketFile, change: (meta: Meta, now: bigint) => void): () => void {
  return () => {
    const now = nowNs(host);
    change(file.meta!, now);
    file.meta!.ctimeNs = now;
  };
}

/**
 * The answer to binding call `name` from `host` (on the real disk) when it concerns a kept socket
 * file, served in the call's form; NOT_SERVED when it does not.
 */
function answer(name: string, host: Host, args: unknown[]): (() => unknown) | typeof NOT_SERVED {
  const abs = resolved(args[0]);
  if (abs === undefined) return NOT_SERVED;
  const given = pathText(args[0]);
  const file = keptAt(host, abs);
  const through = file === undefined && keptAbove(host, abs);
  switch (name) {
    case 'stat':
    case 'lstat':
      if (file !== undefined) return () => statArray(statOf(host, file), args[1] === true);
      // throwIfNoEntry: false hides ENOTDIR too from Node 22 on (Node 20 only ENOENT).
      if (through) return () => (args[3] === false && NODE_MAJOR >= 22 ? undefined : fail('ENOTDIR', name, given));
      return NOT_SERVED;
    case 'existsSync':
      return file !== undefined ? () => true : through ? () => false : NOT_SERVED;
    case 'access':
      if (file !== undefined) return () => (permits(statOf(host, file), Number(args[1]) & 7) ? undefined : fail('EACCES', 'access', given));
      break;
    case 'open':
    case 'openFileHandle':
    case 'readFileUtf8':
    case 'writeFileUtf8': {
      const flags = Number(name === 'writeFileUtf8' ? args[2] : args[1]);
      if (file !== undefined) return () => fail((flags & C.O_CREAT) !== 0 && (flags & C.O_EXCL) !== 0 ? 'EEXIST' : 'ENXIO', 'open', given);
      break;
    }
    case 'copyFile': {
      const to = resolved(args[1]);
      if (file !== undefined || (to !== undefined && keptAt(host, to) !== undefined)) return () => fail('ENXIO', 'copyfile', given, pathText(args[1]));
      return NOT_SERVED;
    }
    case 'mkdir':
      if (file !== undefined) return () => fail('EEXIST', 'mkdir', given);
      break;
    case 'rmdir':
      if (file !== undefined) return () => fail('ENOTDIR', 'rmdir', given);
      if (namesIn(host, abs).length > 0) return () => fail('ENOTEMPTY', 'rmdir', given);
      return NOT_SERVED;
    case 'unlink':
      if (file !== undefined) return () => void keptOf(host).delete(abs);
      break;
    case 'rmSync':
      // Node 22 and 24 remove a tree in C++, which sees no kept name: the names under it go first.
      if (file !== undefined) return () => void keptOf(host).delete(abs);
      if (args[2] === true) for (const name of namesUnder(host, abs)) keptOf(host).delete(name);
      return NOT_SERVED;
    case 'chmod':
      if (file !== undefined) return changed(host, file, (meta) => setMode(meta, args[1]));
      break;
    case 'chown':
    case 'lchown':
      if (file !== undefined) return changed(host, file, (meta) => setOwner(meta, args[1], args[2]));
      break;
    case 'utimes':
    case 'lutimes':
      if (file !== undefined) return changed(host, file, (meta, now) => setTimes(meta, args[1], args[2], now));
      break;
    case 'realpath':
      if (file !== undefined) return () => nodePath.join(onRealDisk(() => fs.realpathSync(nodePath.dirname(abs))), nodePath.basename(abs));
      break;
    case 'link':
    case 'rename':
      return linkOrRename(name, host, args, abs, file);
    case 'readdir':
      return namesIn(host, abs).length > 0 ? () => listing(host, abs, args) : NOT_SERVED;
    default:
      return NOT_SERVED;
  }
  return through ? () => fail('ENOTDIR', SYSCALL[name] ?? name, given) : NOT_SERVED;
}

function linkOrRename(name: 'link' | 'rename', host: Host, args: unknown[], from: string, file: SocketFile | undefined): (() => unknown) | typeof NOT_SERVED {
  const to = resolved(args[1]);
  if (to === undefined) return NOT_SERVED;
  const [given, dest] = [pathText(args[0]), pathText(args[1])];
  const names = keptOf(host);
  if (file === undefined) {
    // A real directory renamed: the names under it move with it.
    if (name === 'rename' && realEntry(from)?.isDirectory() === true && realEntry(to)?.isDirectory() !== true) {
      for (const kept of namesUnder(host, from)) {
        const moved = names.get(kept)!;
        names.delete(kept);
        names.set(to + kept.slice(from.length), moved);
      }
    }
    // A real entry moved or linked onto a kept name: link fails (EEXIST); a rename replaces it.
    if (keptAt(host, to) === undefined) return NOT_SERVED;
    if (name === 'link') return () => fail('EEXIST', 'link', given, dest);
    if (realEntry(from) !== undefined) names.delete(to);
    return NOT_SERVED;
  }
  return () => {
    if (realEntry(nodePath.dirname(to))?.isDirectory() !== true) fail('ENOENT', name, given, dest);
    if (name === 'link') {
      if (taken(host, to)) fail('EEXIST', 'link', given, dest);
      names.set(to, file);
      return undefined;
    }
    if (to === from) return undefined;
    const real = realEntry(to);
    if (real?.isDirectory() === true) fail('EISDIR', 'rename', given, dest);
    if (real !== undefined) onRealDisk(() => fs.unlinkSync(to));
    names.delete(from);
    names.set(to, file);
    return undefined;
  };
}

/** readdir of a directory holding kept socket files: the real entries, then theirs. */
function listing(host: Host, dir: string, args: unknown[]): unknown {
  const [, encoding, withTypes] = args;
  let real: fs.Dirent[] | string[] | Buffer[];
  try {
    const readdir = fs.readdirSync as (path: string, options: object) => fs.Dirent[] | string[] | Buffer[];
    real = onRealDisk(() => readdir(dir, { encoding: encoding ?? 'utf8', withFileTypes: withTypes === true }));
  } catch (error) {
    return fail((error as NodeJS.ErrnoException).code ?? 'EIO', 'scandir', pathText(args[0]));
  }
  const extra = namesIn(host, dir);
  const named = extra.map((name) => encode(name, encoding));
  if (withTypes !== true) return [...(real as Array<string | Buffer>), ...named];
  const dirents = real as fs.Dirent[];
  const typeOf = (d: fs.Dirent) =>
    d.isFile() ? UV.UV_DIRENT_FILE : d.isDirectory() ? UV.UV_DIRENT_DIR : d.isSymbolicLink() ? UV.UV_DIRENT_LINK : d.isSocket() ? DIRENT_SOCKET : d.isFIFO() ? UV.UV_DIRENT_FIFO : d.isCharacterDevice() ? UV.UV_DIRENT_CHAR : d.isBlockDevice() ? UV.UV_DIRENT_BLOCK : UV.UV_DIRENT_UNKNOWN;
  return [[...dirents.map((d) => d.name), ...named], [...dirents.map(typeOf), ...extra.map(() => DIRENT_SOCKET)]];
}

/**
 * What binding call `name` of `host` (on the real disk) does to a kept socket file, to be served
 * in the call's form (disk.ts serve); undefined when the call concerns none (the real disk's).
 */
export function socketOperation(name: string, host: Host, args: unknown[]): (() => unknown) | undefined {
  if (keptOf(host).size === 0) return undefined;
  const operation = answer(name, host, args);
  return operation === NOT_SERVED ? undefined : operation;
}
