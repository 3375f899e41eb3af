/**
 * The names of unix domain sockets: where bind(2) makes a socket's file and where connect(2)
 * finds it (net-binding.ts drives the sockets themselves, as TCP connections of one host).
 *
 * - On a host's simulated disk (`disk: 'simulated'`) the file is on that disk, as in production:
 *   stat shows a socket, readdir lists it, open(2) gets ENXIO, a rename or a hard link carries the
 *   socket with it. Closing the server unlinks it (libuv unlinks the name it bound); a process that
 *   dies, or a machine that crashes, leaves it: a stale socket file, which refuses connections
 *   (ECONNREFUSED) and makes the restarted server's listen() fail with EADDRINUSE until the
 *   program unlinks it.
 * - On the real disk no file is made: runs (seeds explored in parallel, a replay beside its
 *   exploration) would otherwise take each other's socket names, and a simulated socket is no
 *   socket another process could use. The names are kept per host, in the world, and the host's
 *   own fs calls see them as files (shims/fs/socket-names.ts); a real entry at the name makes
 *   bind fail (EADDRINUSE) and connect refuse (ECONNREFUSED: no simulated socket is there), as it
 *   would plainly. Closing unlinks the name; a process that dies leaves it, stale, as on a disk.
 * - Abstract names (a leading NUL byte, Linux's abstract namespace) are kept the same way.
 *
 * Errors follow libuv on Linux: a missing directory in bind is EACCES (uv_pipe_bind turns ENOENT
 * into EACCES, for Windows' sake), a name longer than sun_path (108 bytes) is truncated to it by
 * Node 20 and 22 and refused with EINVAL by Node 24.
 */
import fs from 'node:fs';
import nodePath from 'node:path';
import { DiskError, type Meta } from '../../runtime/disk/disk.js';
import { onRealDisk } from '../../runtime/disk/real.js';
import type { TcpListener } from '../../runtime/network/tcp.js';
import type { World } from '../../runtime/world.js';
import { NODE_MAJOR, type Host } from '../context.js';
import { diskOf, umask, uvErrno } from '../fs/disk.js';

/** What stat(2) shows of a socket's file kept in the world for the real disk (shims/fs/socket-names.ts): mode is S_IFSOCK and the permission bits. */
export type SocketMeta = Meta;

/** A socket's file: what connect(2) through its name reaches. */
export class SocketFile {
  /** The socket listening on it, once listen(2) ran (closed when the socket went away). */
  listener: TcpListener | undefined;
  /** A name on the real disk: what the file system shows of it (abstract names have none). */
  meta: SocketMeta | undefined;
  constructor(
    /** Kept in the world, not on a simulated disk (the real disk, an abstract name). */
    readonly virtual: boolean,
  ) {}
}

/** sockaddr_un's sun_path: Linux takes a name of up to 108 bytes (no NUL needed). */
const SUN_PATH_BYTES = 108;
/** Node 24 binds and connects with UV_PIPE_NO_TRUNCATE: a longer name is EINVAL, not truncated. */
const REFUSES_LONG_NAMES = NODE_MAJOR >= 24;
const [UV_MAJOR, UV_MINOR] = process.versions.uv.split('.').map(Number) as [number, number];
/**
 * libuv 1.51 (Node 22, 24): uv_pipe_chmod sets the mode to exactly what was asked (fchmod,
 * libuv #4749), and close unlinks the name bound. Before (1.46, Node 20) it added the bits to
 * the file's mode, and close unlinked the name given, so a truncated name's file stayed.
 * Measured on 20, 22 and 24.
 */
const UV_1_51 = UV_MAJOR > 1 || UV_MINOR >= 51;

/** Names kept in the world (real disk, abstract): per world, by host name and then name. */
const kept = new WeakMap<World, Map<string, Map<string, SocketFile>>>();

/** Inode numbers of the socket files kept for the real disk, per world (high: no real file's). */
const inodes = new WeakMap<World, number>();
const S_IFSOCK = fs.constants.S_IFSOCK;

/**
 * The names of unix sockets kept in the world for `host` (the real disk and abstract names), by
 * absolute path: shims/fs/socket-names.ts shows those on the real disk to the host's fs calls.
 */
export function keptOf(host: Host): Map<string, SocketFile> {
  const world = host.world as World;
  let byHost = kept.get(world);
  if (byHost === undefined) kept.set(world, (byHost = new Map()));
  let names = byHost.get(host.name);
  if (names === undefined) byHost.set(host.name, (names = new Map()));
  return names;
}

/**
 * The name a pipe handle binds or connects to, as the kernel gets it: an absolute path (relative
 * ones resolve against the working directory), or an abstract name. A UV error code (EINVAL) when
 * it is too long for this Node.
 */
export function socketName(name: string): string | number {
  let given = name;
  if (Buffer.byteLength(given) > SUN_PATH_BYTES) {
    if (REFUSES_LONG_NAMES) return uvErrno('EINVAL');
    given = Buffer.from(given).subarray(0, SUN_PATH_BYTES).toString();
  }
  return given.startsWith('\0') ? given : nodePath.resolve(given);
}

/** bind(2): the socket's file made at `name` (socketName's), or a UV error code. */
export function bindName(host: Host, name: string): SocketFile | number {
  const disk = name.startsWith('\0') ? undefined : diskOf(host);
  if (disk !== undefined) {
    const file = new SocketFile(false);
    try {
      disk.makeSocket(name, 0o777 & ~umask(), file);
    } catch (error) {
      if (!(error instanceof DiskError)) throw error;
      return uvErrno(error.code === 'ENOENT' ? 'EACCES' : error.code);
    }
    return file;
  }
  const names = keptOf(host);
  if (names.has(name)) return uvErrno('EADDRINUSE');
  const file = new SocketFile(true);
  if (!name.startsWith('\0')) {
    const dir = onRealDisk(() => realBindDirectory(name));
    if (typeof dir === 'number') return dir;
    file.meta = metaFor(host, dir.dev);
  }
  names.set(name, file);
  return file;
}

/** The new socket file in a directory on device `dev`, as bind(2) makes it: mode 0777 less the umask, the host's clock. */
function metaFor(host: Host, dev: number): SocketMeta {
  const world = host.world as World;
  const ino = (inodes.get(world) ?? 0x7000_0000) + 1;
  inodes.set(world, ino);
  const now = BigInt(host.dateNowMs()) * 1_000_000n;
  return { dev, ino, mode: S_IFSOCK | (0o777 & ~umask()), uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, atimeNs: now, mtimeNs: now, ctimeNs: now, birthtimeNs: now };
}

/**
 * The real directory bind(2) of `name` would make its file in, or what bind(2) would say of the
 * real disk: a name taken, or a directory missing.
 */
function realBindDirectory(name: string): fs.Stats | number {
  if (fs.lstatSync(name, { throwIfNoEntry: false }) !== undefined) return uvErrno('EADDRINUSE');
  const dir = fs.statSync(nodePath.dirname(name), { throwIfNoEntry: false });
  if (dir === undefined) return uvErrno('EACCES');
  if (!dir.isDirectory()) return uvErrno('ENOTDIR');
  return dir;
}

/** connect(2): the socket file at `name`, or a UV error code (ENOENT, ECONNREFUSED). */
export function findName(host: Host, name: string): SocketFile | number {
  const disk = name.startsWith('\0') ? undefined : diskOf(host);
  if (disk !== undefined) {
    try {
      return disk.socketAt(name) as SocketFile;
    } catch (error) {
      if (!(error instanceof DiskError)) throw error;
      return uvErrno(error.code);
    }
  }
  const file = keptOf(host).get(name);
  if (file !== undefined) return file;
  if (name.startsWith('\0')) return uvErrno('ECONNREFUSED');
  // A real file there is no simulated socket: refused, as a file that is not a socket is.
  const real = onRealDisk(() => fs.statSync(name, { throwIfNoEntry: false }));
  return uvErrno(real === undefined ? 'ENOENT' : 'ECONNREFUSED');
}

/**
 * The name libuv unlinks when the socket bound to `bound` closes: that one, or (libuv before
 * 1.51) the name the program gave, made absolute, which is not the file's when it was truncated:
 * on a disk, real or simulated, that file stays. An abstract name goes by the name it was bound to.
 */
export function unlinkedName(given: string, bound: string, file: SocketFile): string {
  return UV_1_51 || (file.virtual && file.meta === undefined) ? bound : nodePath.resolve(given);
}

/** The socket bound to `name` closed: libuv unlinks `name` (unlinkedName). */
export function closeName(host: Host, name: string, file: SocketFile): void {
  if (file.virtual) {
    forgetName(host, name, file);
    return;
  }
  const disk = diskOf(host);
  if (disk === undefined) return;
  try {
    disk.unlink(name);
  } catch {
    // Gone already (the program unlinked it), as unlink(2)'s error is ignored by libuv.
  }
}

/**
 * The socket bound to `name` went away without closing (its process died, its machine crashed,
 * the run ended): its file stays, on a simulated disk and, kept in the world, on the real one (a
 * stale socket file, as in production: connect is refused, and a new bind fails with EADDRINUSE
 * until the name is unlinked). An abstract name goes with its socket, as Linux frees it.
 */
export function abandonName(host: Host, name: string, file: SocketFile): void {
  if (file.virtual && file.meta === undefined) forgetName(host, name, file);
}

function forgetName(host: Host, name: string, file: SocketFile): void {
  const names = keptOf(host);
  if (names.get(name) === file) names.delete(name);
}

/**
 * uv_pipe_chmod: read and/or write permission for everyone on the socket's file: the file's mode
 * becomes exactly that (libuv 1.51 on), or gets those bits added (before).
 */
export function chmodName(host: Host, name: string, file: SocketFile, bits: number): number {
  if (file.virtual) {
    if (file.meta !== undefined) file.meta.mode = S_IFSOCK | (UV_1_51 ? bits : (file.meta.mode & 0o7777) | bits);
    return 0;
  }
  const disk = diskOf(host);
  if (disk === undefined) return 0;
  try {
    disk.chmodSocket(name, bits, UV_1_51);
  } catch (error) {
    if (!(error instanceof DiskError)) throw error;
    return uvErrno(error.code);
  }
  return 0;
}
