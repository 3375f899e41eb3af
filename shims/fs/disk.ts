/**
 * The fs binding served from a host's simulated disk (runtime/disk/disk.ts), for worlds made with
 * `disk: 'simulated'` (or DST_DISK=simulated). lib/fs.js, lib/internal/fs/promises.js and the
 * streams validate the program's arguments and then call the binding; here each binding function
 * a host calls is answered from its disk instead, in the form the caller asked for:
 *
 * - synchronously, by returning the result or throwing the error Node's C++ would throw;
 * - synchronously with a `ctx` object (writeSync's calls), by setting its errno and syscall, as
 *   Node's C++ does, for lib's handleErrorFromBinding() to throw;
 * - with an FSReqCallback (the callback API), by calling its oncomplete in an 'io' event of the
 *   host at the current instant, in call order with all other real work (thread-pool/real-work.ts);
 * - with kUsePromises (the promise API), by a promise settled in such an event.
 *
 * The operation itself takes effect when it is called; only its completion is delivered later.
 * Errors have Node's shape: `ENOENT: no such file or directory, open 'x'`, with errno, code,
 * syscall, path and dest; asynchronous ones have no stack frames, as Node's have none.
 *
 * File descriptors of a simulated disk are numbered from FD_BASE up, per host incarnation, so a
 * program's fd 0-2 (and any real descriptor below FD_BASE) still reach the real binding, while a
 * closed simulated descriptor can never close a real one.
 */
import fs from 'node:fs';
import nodePath from 'node:path';
import util from 'node:util';
import { blockBytes, chargedBytes, Disk, DiskError, type DiskStat, FileNode, type LowerFs, type Meta, type Node } from '../../runtime/disk/disk.js';
import type { World, WorldHost } from '../../runtime/world.js';
import type { PathFaults } from '../../runtime/disk/faults.js';
import { UnsupportedError } from '../../runtime/errors.js';
import { captureStack, programFrames } from '../../runtime/trace/site.js';
import { onRealDisk } from '../../runtime/disk/real.js';
import { openedReal } from './real-descriptors.js';
import { captureContext, captureContextOf, thenDestroyed } from '../async-hooks/async-context.js';
import { NODE_MAJOR, type Host } from '../context.js';
import type { RandomStream } from '../../runtime/random/stream.js';
import { nodeBinding } from '../node-binding.js';
import { beginRealCall, completeRealCall, deliverAfter } from '../thread-pool/real-work.js';
import { completeListed, hideRealRequest, trackRequest } from '../net/native-handles.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const binding = nodeBinding('fs') as Record<string, any>;
const FSReqCallback = binding.FSReqCallback as new () => { oncomplete?: (...results: unknown[]) => void };
const kUsePromises = binding.kUsePromises as symbol;
const C = fs.constants;

/** The first descriptor number of a simulated disk. */
export const FD_BASE = 1000;
const STAT_FIELDS = 18;
const NS_PER_S = 1_000_000_000n;
/**
 * The process's umask, applied to the mode of what a host creates, as the kernel applies it.
 * Read by setting it and putting it back (reading it alone is deprecated, DEP0139); a worker
 * thread may do neither, and gets the usual 022.
 */
export function umask(): number {
  try {
    const mask = process.umask(0o022);
    process.umask(mask);
    return mask;
  } catch {
    return 0o022;
  }
}

const lower: LowerFs = {
  stat(abs) {
    return onRealDisk(() => {
      let stats: fs.BigIntStats | undefined;
      let target: string | undefined;
      try {
        // The entry itself: a real symbolic link is one on the simulated disk too, followed by its walk.
        stats = fs.lstatSync(abs, { bigint: true, throwIfNoEntry: false });
        if (stats?.isSymbolicLink()) target = fs.readlinkSync(abs);
      } catch {
        return undefined; // EACCES...: as if it were not there
      }
      if (stats === undefined) return undefined;
      const kind = stats.isFile() ? 'file' : stats.isDirectory() ? 'dir' : target !== undefined ? 'link' : 'other';
      const stat: DiskStat = {
        dev: Number(stats.dev),
        mode: Number(stats.mode),
        nlink: Number(stats.nlink),
        uid: Number(stats.uid),
        gid: Number(stats.gid),
        rdev: Number(stats.rdev),
        blksize: Number(stats.blksize),
        ino: Number(stats.ino),
        size: Number(stats.size),
        blocks: Number(stats.blocks),
        atimeNs: stats.atimeNs,
        mtimeNs: stats.mtimeNs,
        ctimeNs: stats.ctimeNs,
        birthtimeNs: stats.birthtimeNs,
      };
      return target === undefined ? { kind, stat } : { kind, stat, target };
    });
  },
  readdir(abs) {
    return onRealDisk(() => fs.readdirSync(abs));
  },
  readFile(abs) {
    return onRealDisk(() => fs.readFileSync(abs));
  },
};

/** The host incarnation that last used each disk: the file times it sets are on its clock. */
const lastUser = new WeakMap<Disk, Host>();

/** The simulated disk of `host`, or undefined when its world uses the real one. */
export function diskOf(host: Host): Disk | undefined {
  const world = host.world;
  if (world.options.disk !== 'simulated') return undefined;
  const disk = world.disks.of(host.name, () => {
    const made: Disk = new Disk(lower, () => BigInt(lastUser.get(made)!.dateNowMs()) * 1_000_000n);
    // What the host incarnation using it holds open (a crashed one's descriptors are closed).
    made.openNodes = () => {
      const user = lastUser.get(made);
      return user === undefined || user.state !== 'running' ? [] : [...tableOf(user).values()].map((file) => file.node);
    };
    return made;
  });
  lastUser.set(disk, host);
  return disk;
}

// ---- errors ----------------------------------------------------------------------------------

const errorMap = util.getSystemErrorMap();
/** uv error numbers by code (negative, as libuv reports them). */
const errnoByCode = new Map<string, number>([...errorMap].map(([errno, [code]]) => [code, errno]));

/** libuv's (negative) error number for errno name `code`; -1 for a name Node does not know. */
export function uvErrno(code: string): number {
  return errnoByCode.get(code) ?? -1;
}

/** An fs failure on the simulated disk: made into Node's error when it reaches the program. */
class Failure {
  constructor(
    readonly code: string,
    readonly syscall: string,
    readonly path?: string,
    readonly dest?: string,
  ) {}

  get errno(): number {
    return uvErrno(this.code);
  }

  message(): string {
    const description = errorMap.get(this.errno)?.[1] ?? 'unknown error';
    let text = `${this.code}: ${description}, ${this.syscall}`;
    if (this.path !== undefined) text += ` '${this.path}'`;
    if (this.dest !== undefined) text += ` -> '${this.dest}'`;
    return text;
  }

  /** The Error Node's C++ makes (UVException): for a sync call, with the stack above `callee`. */
  toError(callee: ((...args: any[]) => unknown) | undefined): Error {
    let error: Error;
    if (callee === undefined) {
      // Made in libuv's completion, Node's asynchronous errors have no stack frames.
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        error = new Error(this.message());
      } finally {
        Error.stackTraceLimit = limit;
      }
    } else {
      error = new Error(this.message());
      Error.captureStackTrace(error, callee);
    }
    const fields = error as Error & Record<string, unknown>;
    fields.errno = this.errno;
    fields.code = this.code;
    fields.syscall = this.syscall;
    if (this.path !== undefined) fields.path = this.path;
    if (this.dest !== undefined) fields.dest = this.dest;
    return error;
  }
}
/** The error Node's libuv completion makes for an asynchronous call that failed (no stack frames). */
export function asyncFsError(code: string, syscall: string, path?: string): Error {
  return new Failure(code, syscall, path).toError(undefined);
}

export function fail(code: string, syscall: string, path?: string, dest?: string): never {
  throw new Failure(code, syscall, path, dest);
}

// ---- descriptors -----------------------------------------------------------------------------

interface OpenFile {
  node: Node;
  position: number;
  readable: boolean;
  writable: boolean;
  append: boolean;
  /** O_SYNC or O_DSYNC: every write is synced. */
  sync: boolean;
  /** The absolute, normalised path it was opened by (what disk fault patterns match). */
  path: string;
  /** The disk faults that apply to it, and the faults' generation they were taken at. */
  faults: PathFaults | undefined;
  faultsGeneration: number;
  /** The file's writeback errors this descriptor has been told of (FileNode.writebackErrors). */
  writebackErrors: number;
}

const descriptors = new WeakMap<Host, Map<number, OpenFile>>();

function tableOf(host: Host): Map<number, OpenFile> {
  let table = descriptors.get(host);
  if (table === undefined) descriptors.set(host, (table = new Map()));
  return table;
}

function allocate(host: Host, file: OpenFile): number {
  const table = tableOf(host);
  let fd = FD_BASE;
  while (table.has(fd)) fd++;
  table.set(fd, file);
  return fd;
}

/** Whether `fd` belongs to the simulated disk (any number from FD_BASE up does). */
export function isDiskFd(fd: unknown): boolean {
  // Not an int32 (2**32, Infinity, 1000.5): Node's C++ refuses it before any call
  // (ERR_OUT_OF_RANGE), so it is left to the binding, which says so.
  return typeof fd === 'number' && Number.isInteger(fd) && fd >= FD_BASE && fd <= 0x7fffffff;
}

/**
 * A mode argument as Node's C++ checks it before the call (GetValidMode: access and copyFile),
 * thrown whatever the call's form: `fallback` for undefined or null.
 */
function validMode(mode: unknown, fallback: number): number {
  if (mode === undefined || mode === null) return fallback;
  if (typeof mode !== 'number' || !Number.isInteger(mode) || mode < -0x80000000 || mode > 0x7fffffff) {
    throw Object.assign(new TypeError('mode must be int32 or null/undefined'), { code: 'ERR_INVALID_ARG_TYPE' });
  }
  if (mode < 0 || mode > 7) throw Object.assign(new RangeError('mode is out of range: >= 0 && <= 7'), { code: 'ERR_OUT_OF_RANGE' });
  return mode;
}

function fileOf(host: Host, fd: number, syscall: string): OpenFile {
  const file = tableOf(host).get(fd);
  if (file === undefined) fail('EBADF', syscall);
  return file;
}

// ---- arguments -------------------------------------------------------------------------------

/** A path argument as the binding got it: a string, or a Buffer (Node passes those on). */
export function pathText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString();
  return String(value);
}

/**
 * The path as the kernel gets it, made absolute against the working directory but not
 * normalised: the disk resolves '.', '..' and a trailing '/' component by component, as the
 * kernel does. The empty path stays empty (ENOENT).
 */
function absolute(value: unknown): string {
  const text = pathText(value);
  if (text === '' || text.startsWith('/')) return text;
  return `${process.cwd()}/${text}`;
}

/** Kernel file systems that are no disk: their paths go to Node as they are. */
const NOT_A_DISK = ['/dev', '/proc', '/sys'];

function onNoDisk(value: unknown): boolean {
  if (typeof value !== 'string' && !(value instanceof Uint8Array)) return false;
  const text = pathText(value);
  if (text === '') return false;
  const normal = nodePath.resolve(text);
  return NOT_A_DISK.some((root) => normal === root || normal.startsWith(`${root}/`));
}

function positionOf(value: unknown): number | undefined {
  if (typeof value === 'bigint') return value >= 0n ? Number(value) : undefined;
  if (typeof value === 'number' && value >= 0) return value;
  return undefined;
}

/** A path as the binding hands it back for `encoding` (a Buffer for 'buffer'). */
export function encode(name: string, encoding: unknown): string | Buffer {
  if (encoding === 'buffer') return Buffer.from(name);
  if (encoding === undefined || encoding === null || encoding === 'utf8' || encoding === 'utf-8') return name;
  return Buffer.from(name).toString(encoding as BufferEncoding);
}

export function statArray(stat: DiskStat, bigint: boolean): Float64Array | BigInt64Array {
  const times = [stat.atimeNs, stat.mtimeNs, stat.ctimeNs, stat.birthtimeNs];
  const head = [stat.dev, stat.mode, stat.nlink, stat.uid, stat.gid, stat.rdev, stat.blksize, stat.ino, stat.size, stat.blocks];
  if (bigint) {
    const array = new BigInt64Array(STAT_FIELDS);
    head.forEach((v, i) => (array[i] = BigInt(v)));
    times.forEach((t, i) => {
      array[10 + 2 * i] = t / NS_PER_S;
      array[11 + 2 * i] = t % NS_PER_S;
    });
    return array;
  }
  const array = new Float64Array(STAT_FIELDS);
  head.forEach((v, i) => (array[i] = v));
  times.forEach((t, i) => {
    array[10 + 2 * i] = Number(t / NS_PER_S);
    array[11 + 2 * i] = Number(t % NS_PER_S);
  });
  return array;
}

/** Runs a disk operation, turning its DiskError into the Failure the program will see. */
function onDisk<T>(operation: () => T, path?: string, dest?: string): T {
  try {
    return operation();
  } catch (error) {
    if (error instanceof DiskError) fail(error.code, error.syscall, path, dest);
    throw error;
  }
}

// ---- operations --------------------------------------------------------------------------------

/** One binding function on the disk: its arguments (without the call form's) to its result. */
type Operation = (host: Host, disk: Disk, args: unknown[]) => unknown;

function openFile(host: Host, disk: Disk, pathArg: unknown, flags: number, mode: number): number {
  const given = pathText(pathArg);
  const abs = absolute(pathArg);
  const node = onDisk(() => disk.open(abs, flags, mode & ~umask(), C), given);
  const access = flags & 3;
  return allocate(host, {
    node,
    position: 0,
    readable: access !== C.O_WRONLY,
    writable: access !== C.O_RDONLY,
    append: (flags & C.O_APPEND) !== 0,
    sync: (flags & (C.O_SYNC | C.O_DSYNC)) !== 0,
    path: abs,
    faults: undefined,
    faultsGeneration: 0,
    writebackErrors: node.kind === 'file' ? node.writebackErrors : 0,
  });
}

/** The disk faults that apply to an open file (undefined when its disk has none). */
function faultsOf(disk: Disk, file: OpenFile): PathFaults | undefined {
  const faults = disk.faults;
  if (faults === undefined) return undefined;
  if (file.faultsGeneration !== faults.generation) {
    file.faults = faults.forPath(nodePath.posix.normalize(file.path));
    file.faultsGeneration = faults.generation;
  }
  return file.faults;
}

function readInto(host: Host, fd: number, target: Uint8Array, offset: number, length: number, position: unknown, disk: Disk): number {
  const file = fileOf(host, fd, 'read');
  if (!file.readable) fail('EBADF', 'read');
  if (file.node.kind === 'dir') fail('EISDIR', 'read');
  const faults = disk.faults === undefined ? undefined : faultsOf(disk, file);
  const at = positionOf(position);
  const from = at ?? file.position;
  const node = file.node as FileNode;
  // Only a read that reaches the device can fail there: none of no bytes, or at the end of the file.
  if (faults !== undefined && length > 0 && from < node.size && disk.faults!.chance(faults.readErrorRate)) fail('EIO', 'read');
  const count = node.read(from, target, offset, length);
  if (at === undefined) file.position += count;
  if (faults !== undefined && count > 0 && disk.faults!.chance(faults.corruptReadRate)) {
    // One bit of what the program gets flips on its way (the file itself is intact).
    const bit = disk.faults!.random.int(0, count * 8);
    target[offset + (bit >> 3)]! ^= 1 << (bit & 7);
  }
  return count;
}

function writeFrom(host: Host, fd: number, bytes: Uint8Array, position: unknown, disk: Disk): number {
  const file = fileOf(host, fd, 'write');
  if (!file.writable) fail('EBADF', 'write');
  const node = file.node as FileNode;
  const given = positionOf(position);
  // O_APPEND writes at the end, also a positioned write (which, as pwrite, leaves the offset).
  const at = file.append ? node.size : (given ?? file.position);
  const before = node.size;
  if (disk.faults !== undefined) bytes = faultyWrite(disk, file, node, at, bytes);
  node.write(at, bytes);
  if (given === undefined) file.position = at + bytes.length;
  // A write of no bytes changes no times (Linux returns before file_modified).
  if (bytes.length > 0) disk.modified(node);
  if (node.size !== before) disk.noteGrowth(node, before);
  // An O_SYNC write of no bytes returns before its sync (generic_write_checks gives 0).
  if (file.sync && bytes.length > 0) {
    if (disk.faults !== undefined && disk.faults.chance(faultsOf(disk, file)!.fsyncErrorRate)) {
      // O_SYNC: the write's own writeback failed, and write(2) reports it.
      writebackFailed(disk, file, node);
      fail('EIO', 'write');
    }
    node.sync();
    // Its sync reports a writeback error since this descriptor last looked, once, as fsync does
    // (the bytes are written and flushed; write(2) still fails: generic_write_sync).
    if (file.writebackErrors !== node.writebackErrors) {
      file.writebackErrors = node.writebackErrors;
      fail('EIO', 'write');
    }
  }
  return bytes.length;
}

/**
 * The part of a write that a faulty disk takes: EIO (nothing written); on a disk past its quota
 * (or full), what fits in the blocks left, or ENOSPC when nothing does (write(2) returns a short
 * count first, then fails). Starts the file's journal when the disk tears writes at a crash.
 */
function faultyWrite(disk: Disk, file: OpenFile, node: FileNode, at: number, bytes: Uint8Array): Uint8Array {
  const faults = disk.faults!;
  // A write of no bytes returns before it reaches the device.
  if (bytes.length === 0) return bytes;
  if (faults.chance(faultsOf(disk, file)!.writeErrorRate)) fail('EIO', 'write');
  const end = at + bytes.length;
  if (faults.limitsSpace && end > node.size) {
    const need = chargedBytes(node, end) - chargedBytes(node, node.size);
    const room = faults.full ? 0 : Math.max(0, faults.quotaBytes - disk.used());
    if (need > room) {
      const fits = Math.max(blockBytes(node.size), node.realBlocks) + Math.floor(room / 4096) * 4096 - at;
      if (fits <= 0) fail('ENOSPC', 'write');
      bytes = bytes.subarray(0, fits);
    }
  }
  if (faults.tornSectorBytes > 0) node.startJournal();
  return bytes;
}

/**
 * A failed writeback, reported to `file`: the kernel drops the file's dirty pages, and records
 * the error for the file's other descriptors (errseq), whose next fsync reports it once.
 */
function writebackFailed(disk: Disk, file: OpenFile, node: FileNode): void {
  const before = node.size;
  node.revert();
  if (node.size !== before) disk.noteGrowth(node, before);
  node.writebackErrors++;
  file.writebackErrors = node.writebackErrors;
}

/**
 * An fsync that takes time: its data is durable when it returns, not when it was called, so a
 * machine crash while it is in flight loses (or tears) what it was flushing. Delivered with the
 * completion, which a crash drops.
 */
class DeferredSync {
  constructor(readonly node: FileNode) {}
}

/**
 * fsync/fdatasync of `fd`: with disk faults, it may fail with EIO and lose the file's unsynced
 * data. With `defer` (an asynchronous call that takes time) the flush itself happens when it
 * completes (DeferredSync).
 */
function syncFile(host: Host, disk: Disk, fd: number, syscall: 'fsync' | 'fdatasync', defer = false): DeferredSync | undefined {
  const file = fileOf(host, fd, syscall);
  if (file.node.kind !== 'file') return undefined;
  const node = file.node;
  if (disk.faults !== undefined && node.dirty && disk.faults.chance(faultsOf(disk, file)!.fsyncErrorRate)) {
    writebackFailed(disk, file, node);
    fail('EIO', syscall);
  }
  if (file.writebackErrors !== node.writebackErrors) {
    // An error since this descriptor last looked (another descriptor's fsync, an O_SYNC write):
    // Linux flushes what is dirty now, then reports the earlier loss, once (4.13+).
    node.sync();
    file.writebackErrors = node.writebackErrors;
    fail('EIO', syscall);
  }
  if (defer) return new DeferredSync(node);
  node.sync();
  return undefined;
}

/** The rest of the file behind `fd`, from its position (which moves past it): what readFile reads. */
function readRest(host: Host, fd: number, disk: Disk): Buffer {
  const { node, position } = fileOf(host, fd, 'read');
  const rest = Buffer.alloc(node.kind === 'file' ? Math.max(0, node.size - position) : 0);
  readInto(host, fd, rest, 0, rest.length, undefined, disk);
  return rest;
}

/** Runs `use` on the descriptor `pathOrFd`, or on one opened for the path and closed after. */
function withFile<T>(host: Host, disk: Disk, pathOrFd: unknown, flags: number, mode: number, use: (fd: number) => T): T {
  if (typeof pathOrFd === 'number') return use(pathOrFd);
  const fd = openFile(host, disk, pathOrFd, flags, mode);
  try {
    return use(fd);
  } finally {
    tableOf(host).delete(fd);
  }
}

/** The bytes of any ArrayBufferView (a Float64Array or a DataView too: lib counts in bytes). */
function bytesOf(view: unknown): Uint8Array {
  const v = view as ArrayBufferView;
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function views(list: unknown): Uint8Array[] {
  return (list as ArrayBufferView[]).map(bytesOf);
}

/** What `throwIfNoEntry: false` lets pass as "no entry": ENOTDIR too since Node 22. */
const NO_ENTRY = NODE_MAJOR >= 22 ? ['ENOENT', 'ENOTDIR'] : ['ENOENT'];

/** The stat of a path; with throwIfNoEntry false, a missing one is undefined. */
function statPath(disk: Disk, args: unknown[], syscall: 'stat' | 'lstat', throwIfNoEntry: unknown): unknown {
  const given = pathText(args[0]);
  try {
    return statArray(onDisk(() => disk.stat(absolute(args[0]), syscall, syscall === 'stat'), given), args[1] === true);
  } catch (error) {
    if (throwIfNoEntry === false && error instanceof Failure && NO_ENTRY.includes(error.code)) return undefined;
    throw error;
  }
}

const UV = C as unknown as Record<string, number>;
const DIRENT = { file: UV.UV_DIRENT_FILE!, dir: UV.UV_DIRENT_DIR!, link: UV.UV_DIRENT_LINK!, other: UV.UV_DIRENT_UNKNOWN! } as const;

function copyFile(disk: Disk, args: unknown[]): void {
  const [from, to] = args;
  const mode = validMode(args[2], 0);
  // Every failure is copyfile's, whichever step it came from (as libuv reports it).
  const step = <T>(operation: () => T): T =>
    onDisk(() => {
      try {
        return operation();
      } catch (error) {
        throw error instanceof DiskError ? new DiskError(error.code, 'copyfile') : error;
      }
    }, pathText(from), pathText(to));
  const source = step(() => disk.resolve(absolute(from), 'copyfile'));
  // libuv opens the source: a unix socket's file is ENXIO.
  if (source.kind === 'file' && source.socket !== undefined) fail('ENXIO', 'copyfile', pathText(from), pathText(to));
  const flags = C.O_WRONLY | C.O_CREAT | ((Number(mode) & C.COPYFILE_EXCL) !== 0 ? C.O_EXCL : 0);
  const target = step(() => disk.open(absolute(to), flags, source.meta.mode & 0o7777, C));
  // libuv checks for the same file before it truncates: copying a file onto itself changes nothing.
  if (target === source) return;
  if (target.kind !== 'file') fail('EISDIR', 'copyfile', pathText(from), pathText(to));
  // libuv removes the destination when the copy fails after it opened it.
  const failCopy = (code: string): never => {
    disk.unlink(absolute(to));
    return fail(code, 'copyfile', pathText(from), pathText(to));
  };
  // A directory opens as a source; reading it fails (EISDIR), with the destination made.
  if (source.kind !== 'file') return failCopy('EISDIR');
  // A simulated disk cannot clone extents (as ext4 cannot): FICLONE_FORCE fails, FICLONE copies.
  if ((Number(mode) & C.COPYFILE_FICLONE_FORCE) === C.COPYFILE_FICLONE_FORCE) failCopy('ENOTSUP');
  const faults = disk.faults;
  if (faults !== undefined) {
    // An empty source is copied without a read or a write (libuv's sendfile loop has nothing to do).
    if (source.size > 0 && faults.chance(faults.forPath(nodePath.posix.normalize(absolute(from))).readErrorRate)) failCopy('EIO');
    if (source.size > 0 && faults.chance(faults.forPath(nodePath.posix.normalize(absolute(to))).writeErrorRate)) failCopy('EIO');
    if (faults.limitsSpace && source.size > 0) {
      const room = faults.full ? 0 : faults.quotaBytes - (disk.used() - chargedBytes(target, target.size));
      if (chargedBytes(target, source.size) > Math.max(room, chargedBytes(target, target.size))) failCopy('ENOSPC');
    }
    if (faults.tornSectorBytes > 0) target.startJournal();
  }
  target.truncate(0);
  target.write(0, source.data.subarray(0, source.size));
  target.meta.mode = (target.meta.mode & ~0o7777) | (source.meta.mode & 0o7777);
  disk.modified(target);
  disk.usedBytes = undefined;
}

const RANDOM_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Each host incarnation's mkdtemp stream, drawn on from call to call as libuv draws afresh. */
const tempNames = new WeakMap<Host, RandomStream>();

/**
 * The six characters mkdtemp puts after a prefix (libuv's alphabet), from the host's seeded
 * stream: on the simulated disk and on the real one (fs.ts), so a run names its temporary
 * directories the same way every time.
 */
export function tempSuffix(host: Host): string {
  let stream = tempNames.get(host);
  if (stream === undefined) tempNames.set(host, (stream = host.stream('disk:mkdtemp')));
  let suffix = '';
  for (let i = 0; i < 6; i++) suffix += RANDOM_CHARS[stream.int(0, RANDOM_CHARS.length - 1)];
  return suffix;
}

/** Whether a mode's type is a directory (a socket's and a block device's type bits contain S_IFDIR's). */
function isDirectoryMode(mode: number): boolean {
  return (mode & 0o170000) === 0o040000;
}

/**
 * Whether this process may access an entry with `stat` in `wanted` ways (R_OK 4, W_OK 2, X_OK 1),
 * as access(2) decides: root may read and write anything, and execute what has an execute bit
 * (any directory); others get the owner's, the group's or everyone's bits.
 */
export function permits(stat: DiskStat, wanted: number): boolean {
  const uid = process.getuid?.() ?? 0;
  const isDir = isDirectoryMode(stat.mode);
  if (uid === 0) return (wanted & C.X_OK) === 0 || isDir || (stat.mode & 0o111) !== 0;
  const bits = stat.uid === uid ? (stat.mode >> 6) & 7 : stat.gid === (process.getgid?.() ?? 0) ? (stat.mode >> 3) & 7 : stat.mode & 7;
  return (bits & wanted) === wanted;
}

/**
 * mkdir -p the way Node's MKDirpSync does it on the path string: try the whole path, on ENOENT
 * its parent (the path cut at its last '/'), and so on back, then forward again. Returns the
 * first directory made, as the program wrote it, or undefined when there was none to make.
 */
function mkdirp(disk: Disk, given: string, mode: number): string | undefined {
  const base = absolute(given);
  // A made directory as the program wrote its path (a prefix of it; relative stays relative).
  const shown = (raw: string): string => raw.slice(base.length - given.length);
  const stack = [base];
  let first: string | undefined;
  while (stack.length > 0) {
    const next = stack.pop()!;
    try {
      disk.mkdir(next, mode);
      first ??= next;
      continue;
    } catch (error) {
      if (!(error instanceof DiskError)) throw error;
      if (error.code === 'ENOENT') {
        const parent = next.slice(0, next.lastIndexOf('/'));
        if (parent !== next && parent !== '') {
          stack.push(next, parent);
          continue;
        }
        if (stack.length === 0) throw new DiskError('EEXIST', 'mkdir');
        continue;
      }
      if (error.code !== 'EEXIST') throw error;
      let stat: DiskStat;
      try {
        stat = disk.stat(next, 'mkdir');
      } catch (cause) {
        if (cause instanceof DiskError) throw new DiskError(cause.code, 'mkdir');
        throw cause;
      }
      if (!isDirectoryMode(stat.mode)) throw new DiskError(stack.length > 0 ? 'ENOTDIR' : 'EEXIST', 'mkdir');
    }
  }
  return first === undefined ? undefined : shown(first);
}

/**
 * Lists an FSReqCallback the simulation answers (or delivers later than Node completes it) as
 * Node lists it: from the call until its callback, and what that queued, has run; the real object
 * is left out of Node's own list, where it stays until collected when never dispatched. Returns
 * the release, which the wrapped `oncomplete` calls (a readFile served whole calls it itself).
 */
export function listRequest(host: Host, req: { oncomplete?: (...results: unknown[]) => void }): () => void {
  hideRealRequest(req);
  const listed = trackRequest(host, 'FSReqCallback');
  const oncomplete = req.oncomplete!;
  req.oncomplete = function listedOncomplete(this: unknown, ...results: unknown[]) {
    completeListed(listed, () => Reflect.apply(oncomplete, this, results));
  };
  return listed;
}

/** A directory's entries as a Dir's handle hands them out (a name: a string, or a Buffer of its bytes). */
export type DirEntries = ReadonlyArray<{ name: string | Buffer; type: number }>;

/**
 * What Node's fs.Dir calls on its native DirHandle, over a listing taken as the directory was
 * opened (fs.ts makes Node's own Dir over a subclass, for fs.opendir, fs.opendirSync and
 * fs.promises.opendir): read(encoding, bufferSize, req) gives up to bufferSize entries as [name,
 * type, name, type, ...], null once none is left, and close(req) ends it; without a request the
 * call is synchronous (Node 20 adds a ctx for the error). Whether entries made or removed while
 * a directory stream is read appear is left unspecified by readdir(3): these never do.
 */
export abstract class DirListing {
  private next = 0;

  constructor(private readonly entries: DirEntries) {}

  abstract read(encoding: unknown, bufferSize: unknown, req?: unknown, ctx?: unknown): unknown;
  abstract close(req?: unknown, ctx?: unknown): unknown;

  /**
   * Whether `host`, whose handle this is, is gone (down, or its run over): its descriptors were
   * closed with it, so the call fails with EBADF, as a FileHandle's does: `req`'s callback in a
   * tick, a synchronous call's error thrown from `callee`.
   */
  protected failsGone(host: Host, req: unknown, syscall: string, callee: Function): boolean {
    if (host.state === 'running' && (host.world as World).result === undefined) return false;
    const error = asyncFsError('EBADF', syscall);
    if (req instanceof FSReqCallback) {
      const oncomplete = req.oncomplete;
      if (typeof oncomplete === 'function') process.nextTick(() => Reflect.apply(oncomplete, req, [error]));
      return true;
    }
    Error.captureStackTrace(error, callee);
    throw error;
  }

  /** The next entries, at most `count`, as Node's DirHandle gives them; null at the end. */
  take(encoding: unknown, count: number): Array<string | Buffer | number> | null {
    if (this.next >= this.entries.length) return null;
    const out: Array<string | Buffer | number> = [];
    const end = Math.min(this.entries.length, this.next + Math.max(1, count));
    for (; this.next < end; this.next++) {
      const { name, type } = this.entries[this.next]!;
      out.push(typeof name === 'string' ? encode(name, encoding) : encoding === 'buffer' ? name : name.toString((encoding ?? 'utf8') as BufferEncoding), type);
    }
    return out;
  }
}

/** A Dir's handle on a simulated disk: its reads take the disk's time (latency), in 'io' events. */
export class DiskDirHandle extends DirListing {
  constructor(
    private readonly host: Host,
    private readonly disk: Disk,
    private readonly path: string,
    entries: DirEntries,
  ) {
    super(entries);
  }

  read(encoding: unknown, bufferSize: unknown, req?: unknown, ctx?: unknown): unknown {
    if (this.failsGone(this.host, req, 'scandir', DiskDirHandle.prototype.read)) return undefined;
    const marker = req instanceof FSReqCallback ? req : undefined;
    if (marker !== undefined) listRequest(this.host, marker);
    return callDisk('dirRead', this.host, this.disk, [this.path, this, encoding, bufferSize, req, ctx], marker, DiskDirHandle.prototype.read);
  }

  close(req?: unknown, ctx?: unknown): unknown {
    if (this.failsGone(this.host, req, 'closedir', DiskDirHandle.prototype.close)) return undefined;
    const marker = req instanceof FSReqCallback ? req : undefined;
    if (marker !== undefined) listRequest(this.host, marker);
    return callDisk('dirClose', this.host, this.disk, [this.path, this, req, ctx], marker, DiskDirHandle.prototype.close);
  }
}

/**
 * The binding functions the disk serves, by name. Each gets the binding call's arguments as
 * they are (its own first, the call form's after them).
 */
const OPERATIONS: Record<string, Operation> = {
  // fs.ts's opendir: [path, req]. A synchronous open's error names no path (Node's C++ gives it none).
  opendir: (host, disk, [path, req]) => {
    const given = pathText(path);
    try {
      return new DiskDirHandle(host, disk, given, disk.readdir(absolute(path)).map((e) => ({ name: e.name, type: DIRENT[e.kind] })));
    } catch (error) {
      if (error instanceof DiskError) fail(error.code, 'opendir', req === undefined ? undefined : given);
      throw error;
    }
  },
  dirRead: (_host, _disk, [, handle, encoding, bufferSize]) => (handle as DiskDirHandle).take(encoding, Number(bufferSize)),
  dirClose: () => undefined,
  open: (host, disk, [path, flags, mode]) => openFile(host, disk, path, Number(flags), Number(mode)),
  openFileHandle: (host, disk, [path, flags, mode]) => new DiskFileHandle(host, openFile(host, disk, path, Number(flags), Number(mode))),
  close: (host, _disk, [fd]) => {
    fileOf(host, fd as number, 'close');
    tableOf(host).delete(fd as number);
    return undefined;
  },
  read: (host, disk, [fd, buffer, offset, length, position]) => readInto(host, fd as number, bytesOf(buffer), Number(offset), Number(length), position, disk),
  readBuffers: (host, disk, [fd, buffers, position]) => {
    let at = positionOf(position);
    let total = 0;
    for (const view of views(buffers)) {
      const count = readInto(host, fd as number, view, 0, view.length, at, disk);
      total += count;
      if (at !== undefined) at += count;
      if (count < view.length) break;
    }
    return total;
  },
  writeBuffer: (host, disk, [fd, buffer, offset, length, position]) => {
    const view = buffer as ArrayBufferView;
    const bytes = new Uint8Array(view.buffer, view.byteOffset + Number(offset), Number(length));
    return writeFrom(host, fd as number, bytes, position, disk);
  },
  writeBuffers: (host, disk, [fd, buffers, position]) => {
    const bytes = Buffer.concat(views(buffers));
    return writeFrom(host, fd as number, bytes, position, disk);
  },
  writeString: (host, disk, [fd, text, position, encoding]) => writeFrom(host, fd as number, Buffer.from(String(text), (encoding as BufferEncoding) ?? 'utf8'), position, disk),
  fsync: (host, disk, [fd]) => void syncFile(host, disk, fd as number, 'fsync'),
  fdatasync: (host, disk, [fd]) => void syncFile(host, disk, fd as number, 'fdatasync'),
  // fstat(fd, bigint, undefined, true): a sync call that answers undefined instead of throwing
  // (readFileSync's, for its own descriptors).
  fstat: (host, disk, [fd, bigint, , shouldNotThrow]) => {
    try {
      return statArray(disk.statOf(fileOf(host, fd as number, 'fstat').node), bigint === true);
    } catch (error) {
      if (shouldNotThrow === true && error instanceof Failure) return undefined;
      throw error;
    }
  },
  ftruncate: (host, disk, [fd, length]) => {
    const file = fileOf(host, fd as number, 'ftruncate');
    if (!file.writable || file.node.kind !== 'file') fail('EINVAL', 'ftruncate');
    const before = file.node.size;
    if (disk.faults !== undefined && disk.faults.tornSectorBytes > 0) file.node.startJournal();
    file.node.truncate(Number(length ?? 0));
    disk.modified(file.node);
    disk.noteGrowth(file.node, before);
    return undefined;
  },
  // The 4th argument: throwIfNoEntry, of sync stat and lstat, and on Node 24 of async stat too.
  stat: (_host, disk, args) => statPath(disk, args, 'stat', args[3]),
  lstat: (_host, disk, args) => statPath(disk, args, 'lstat', args[3]),
  symlink: (_host, disk, [target, path]) => onDisk(() => disk.symlink(pathText(target), absolute(path)), pathText(target), pathText(path)),
  readlink: (_host, disk, [path, encoding]) => encode(onDisk(() => disk.readlink(absolute(path)), pathText(path)), encoding),
  unlink: (_host, disk, [path]) => onDisk(() => disk.unlink(absolute(path)), pathText(path)),
  rmdir: (_host, disk, [path]) => onDisk(() => disk.rmdir(absolute(path)), pathText(path)),
  rename: (_host, disk, [from, to]) => onDisk(() => disk.rename(absolute(from), absolute(to)), pathText(from), pathText(to)),
  link: (_host, disk, [from, to]) => onDisk(() => disk.link(absolute(from), absolute(to)), pathText(from), pathText(to)),
  mkdir: (_host, disk, [path, mode, recursive]) => {
    const given = pathText(path);
    if (recursive === true) return onDisk(() => mkdirp(disk, given, Number(mode) & ~umask()), given);
    onDisk(() => disk.mkdir(absolute(path), Number(mode) & ~umask()), given);
    return undefined;
  },
  readdir: (_host, disk, [path, encoding, withTypes]) => {
    const entries = onDisk(() => disk.readdir(absolute(path)), pathText(path));
    const names = entries.map((e) => encode(e.name, encoding));
    return withTypes === true ? [names, entries.map((e) => DIRENT[e.kind])] : names;
  },
  access: (_host, disk, [path, mode]) => {
    const wanted = validMode(mode, C.F_OK);
    const stat = onDisk(() => disk.stat(absolute(path), 'access'), pathText(path));
    if (!permits(stat, wanted)) fail('EACCES', 'access', pathText(path));
    return undefined;
  },
  rmSync: (_host, disk, [path, _retries, recursive]) => {
    // Node 24's rmSync: lib has checked the path (lstat) and the options; a path that is
    // gone is no error here (only `force` lets lib get this far without one).
    const abs = absolute(path);
    if (!disk.exists(abs)) return undefined;
    if (recursive === true) onDisk(() => disk.removeTree(abs, 'rm'), pathText(path));
    else onDisk(() => disk.unlink(abs), pathText(path));
    return undefined;
  },
  internalModuleStat: (_host, disk, [path]) => {
    try {
      // 1 for a directory only, not for a socket.
      return isDirectoryMode(disk.stat(absolute(path), 'stat').mode) ? 1 : 0;
    } catch (error) {
      if (error instanceof DiskError) return uvErrno(error.code);
      throw error;
    }
  },
  existsSync: (_host, disk, [path]) => disk.exists(absolute(path)),
  copyFile: (_host, disk, args) => copyFile(disk, args),
  realpath: (_host, disk, [path, encoding]) => {
    return encode(onDisk(() => disk.realpath(absolute(path)), pathText(path)), encoding);
  },
  mkdtemp: (host, disk, [prefix, encoding, form]) => {
    // A synchronous call's error names the template ('prefix' + 'XXXXXX'); an asynchronous
    // one's, the last name tried (its request holds the copy mkdtemp(3) filled in), as Node's.
    const async = form === kUsePromises || form instanceof FSReqCallback;
    let tried = 'XXXXXX';
    let made: string;
    try {
      made = disk.mkdtemp(absolute(prefix), () => {
        const drawn = tempSuffix(host);
        if (async) tried = drawn;
        return drawn;
      });
    } catch (error) {
      if (error instanceof DiskError) fail(error.code, error.syscall, `${pathText(prefix)}${tried}`);
      throw error;
    }
    return encode(pathText(prefix) + made.slice(absolute(prefix).length), encoding);
  },
  utimes: (_host, disk, [path, atime, mtime]) => setTimes(onDisk(() => disk.resolve(absolute(path), 'utime'), pathText(path)).meta, atime, mtime, disk.now()),
  lutimes: (_host, disk, [path, atime, mtime]) => setTimes(onDisk(() => disk.resolve(absolute(path), 'lutime', false), pathText(path)).meta, atime, mtime, disk.now()),
  futimes: (host, disk, [fd, atime, mtime]) => setTimes(fileOf(host, fd as number, 'futime').node.meta, atime, mtime, disk.now()),
  // A change of mode or owner changes ctime, even to the values it had (Linux: notify_change).
  chmod: (_host, disk, [path, mode]) => attributes(disk, onDisk(() => disk.resolve(absolute(path), 'chmod'), pathText(path)).meta, (m) => setMode(m, mode)),
  fchmod: (host, disk, [fd, mode]) => attributes(disk, fileOf(host, fd as number, 'fchmod').node.meta, (m) => setMode(m, mode)),
  chown: (_host, disk, [path, uid, gid]) => attributes(disk, onDisk(() => disk.resolve(absolute(path), 'chown'), pathText(path)).meta, (m) => setOwner(m, uid, gid)),
  lchown: (_host, disk, [path, uid, gid]) => attributes(disk, onDisk(() => disk.resolve(absolute(path), 'lchown', false), pathText(path)).meta, (m) => setOwner(m, uid, gid)),
  fchown: (host, disk, [fd, uid, gid]) => attributes(disk, fileOf(host, fd as number, 'fchown').node.meta, (m) => setOwner(m, uid, gid)),
  readFileUtf8: (host, disk, [pathOrFd, flags]) => withFile(host, disk, pathOrFd, Number(flags), 0o666, (fd) => readRest(host, fd, disk).toString('utf8')),
  writeFileUtf8: (host, disk, [pathOrFd, data, flags, mode]) =>
    withFile(host, disk, pathOrFd, Number(flags), Number(mode), (fd) => {
      // Node's C++ writes until all is written (nothing for no bytes): after a short count (a
      // disk past its quota) the next write fails.
      let rest = Buffer.from(String(data), 'utf8');
      while (rest.length > 0) {
        const written = writeFrom(host, fd, rest, null, disk);
        if (written === 0) break;
        rest = rest.subarray(written);
      }
    }),
};

/**
 * What the binding's openFileHandle gives lib's FileHandle to wrap for a simulated descriptor:
 * the fd, and a close() whose promise settles in an 'io' event, as Node's native one settles in
 * its libuv completion.
 */
class DiskFileHandle {
  readonly #host: Host;
  #fd: number;

  constructor(host: Host, fd: number) {
    this.#host = host;
    this.#fd = fd;
  }

  get fd(): number {
    return this.#fd;
  }

  getAsyncId(): number {
    return -1;
  }

  close(): Promise<void> {
    const host = this.#host;
    const fd = this.#fd;
    this.#fd = -1;
    const closed = tableOf(host).delete(fd);
    // Node lists the close's CloseReq until the code after `await handle.close()` has run.
    const listed = trackRequest(host, 'CloseReq');
    const result = new Promise<void>((resolve, reject) => {
      const call = beginRealCall(host, undefined);
      completeRealCall(call, () => (closed ? resolve() : reject(new Failure('EBADF', 'close').toError(undefined))));
    });
    result.then(listed, listed);
    return result;
  }

  releaseFD(): number {
    const fd = this.#fd;
    this.#fd = -1;
    return fd;
  }

  /** Node 20's readableWebStream() reads a FileHandle natively, as a stream; this one cannot be. */
  readStart(): never {
    throw new UnsupportedError(
      'FileHandle#readableWebStream() on a simulated disk on Node 20',
      "Node 20 reads it natively; pass { type: 'bytes' } (it then reads through FileHandle#read), or run Node 22 or later",
    );
  }
}

/**
 * A time in seconds (a double, as lib passes it) in ns, as libuv turns it into a timespec: whole
 * seconds and the fraction; libuv before Node 24's keeps microseconds only.
 */
function timespecNs(time: number): bigint {
  let seconds = Math.trunc(time);
  let nanos = Math.trunc((time - seconds) * 1e9);
  if (NODE_MAJOR < 24) nanos -= nanos % 1000;
  if (nanos < 0) {
    seconds -= 1;
    nanos += 1e9;
  }
  return BigInt(seconds) * NS_PER_S + BigInt(nanos);
}

/**
 * utimes of an entry's `meta` (a disk node's, or a unix socket name's on the real disk:
 * socket-names.ts): NaN leaves a time as it is and Infinity sets it to now (UTIME_OMIT,
 * UTIME_NOW).
 */
export function setTimes(meta: Meta, atime: unknown, mtime: unknown, now: bigint): undefined {
  const set = (value: unknown, current: bigint): bigint => {
    const time = Number(value);
    if (Number.isNaN(time)) return current;
    if (!Number.isFinite(time)) return now;
    return timespecNs(time);
  };
  meta.atimeNs = set(atime, meta.atimeNs);
  meta.mtimeNs = set(mtime, meta.mtimeNs);
  meta.ctimeNs = now;
  return undefined;
}

/** Changes an entry's attributes (`change`), and its ctime to now. */
function attributes(disk: Disk, meta: Meta, change: (meta: Meta) => void): undefined {
  change(meta);
  meta.ctimeNs = disk.now();
  return undefined;
}

/** chmod of an entry's `meta`: the permission bits change, the kind stays. */
export function setMode(meta: Meta, mode: unknown): undefined {
  meta.mode = (meta.mode & ~0o7777) | (Number(mode) & 0o7777);
  return undefined;
}

/** chown of an entry's `meta`: -1 leaves an id as it is. */
export function setOwner(meta: Meta, uid: unknown, gid: unknown): undefined {
  if (Number(uid) !== -1) meta.uid = Number(uid);
  if (Number(gid) !== -1) meta.gid = Number(gid);
  return undefined;
}

/** Binding functions a simulated disk cannot serve yet: a host calling one gets this error. */
const UNSUPPORTED: Record<string, string> = {
  statfs: 'fs.statfs',
  cpSyncCheckPaths: 'fs.cpSync',
  cpSyncCopyDir: 'fs.cpSync',
  cpSyncOverrideFile: 'fs.cpSync',
};

/** The fs API `api` ('fs.statfs') as the program called it: its Sync form, its promise form or the callback one. */
function apiOfCall(api: string, marker: unknown): string {
  if (marker === undefined) return api.endsWith('Sync') ? api : `${api}Sync`;
  return marker === kUsePromises ? api.replace(/^fs\./, 'fs.promises.') : api;
}

/** The error for an fs API a simulated disk does not serve (yet). */
export function unsupportedOnDisk(api: string, host: Host): UnsupportedError {
  return new UnsupportedError(
    `${api} on a simulated disk (host "${host.name}")`,
    `the simulated disk does not serve it yet. Run with the real disk (the Sim option disk: 'real', or DST_DISK=real) ` +
      'to use it, or keep it out of the code under simulation',
  );
}

/**
 * The error for process.chdir(`directory`) that failed with `code` on the real disk from `host`,
 * when `directory` is one its simulated disk made: the working directory is the real process's,
 * which cannot enter it. Undefined otherwise (the real error stands).
 */
export function chdirIntoDisk(host: Host | undefined, directory: unknown, code: unknown): UnsupportedError | undefined {
  const disk = host === undefined ? undefined : diskOf(host);
  if (disk === undefined || (code !== 'ENOENT' && code !== 'ENOTDIR') || typeof directory !== 'string') return undefined;
  let made: boolean;
  try {
    made = isDirectoryMode(disk.stat(absolute(directory), 'chdir').mode);
  } catch {
    made = false;
  }
  if (!made) return undefined;
  return new UnsupportedError(
    `process.chdir() into a directory the simulated disk made ('${directory}', host "${host!.name}")`,
    'the working directory is the real process\'s, shared by every host, and exists on the real disk only; ' +
      'name files by absolute paths built from that directory instead (path.join(dir, name)), or make the directory before the run',
  );
}

/** Binding functions that take a descriptor first: a real one (below FD_BASE) goes to Node. */
const BY_FD = new Set(['close', 'read', 'readBuffers', 'writeBuffer', 'writeBuffers', 'writeString', 'fsync', 'fdatasync', 'fstat', 'ftruncate', 'futimes', 'fchmod', 'fchown']);

/** Whether the disk answers binding function `name` called with `args`. */
export function servesCall(name: string, args: unknown[]): boolean {
  if (BY_FD.has(name)) return isDiskFd(args[0]);
  if (typeof args[0] === 'number') return (name === 'readFileUtf8' || name === 'writeFileUtf8') && isDiskFd(args[0]);
  // /dev/null, /dev/stdout, /proc/self/...: devices and kernel files, not the disk's.
  if (onNoDisk(args[0])) return false;
  return name in OPERATIONS || name in UNSUPPORTED;
}

/**
 * fs.readFile (the callback API) reads through lib's ReadFileContext, which takes the binding's
 * read and close once, when it is first loaded. Loaded while the fs shim was installed, it took
 * our functions ('ours'); loaded before, Node's own ('nodes'): then its reads would bypass the
 * shim (on a simulated disk, a simulated descriptor would go to the real read(2); on the real
 * disk, the read would not be held, and land wherever the thread pool finishes it). So then the
 * whole readFile is served at its open (or, for a descriptor, its fstat), and the program's
 * callback is called in that call's 'io' event.
 */
let readFileContext: 'ours' | 'nodes' | undefined;
const CONTEXT_MODULE = 'NativeModule internal/fs/read/context';
const contextLoaded = (): boolean => ((process as unknown as { moduleLoadList: string[] }).moduleLoadList ?? []).includes(CONTEXT_MODULE);

/** At each install of the fs shim. */
export function noteInstalled(): void {
  if (readFileContext === undefined && contextLoaded()) readFileContext = 'nodes';
}

/** At each restore of the fs shim. */
export function noteRestored(): void {
  if (readFileContext === undefined && contextLoaded()) readFileContext = 'ours';
}

interface ReadFileContextLike {
  callback: (error: Error | null, data?: unknown) => void;
  encoding?: BufferEncoding | null;
  signal?: AbortSignal;
}

/** The ReadFileContext behind an open or fstat `req`, when it holds Node's own read and close. */
function readFileContextOf(name: string, req: unknown): ReadFileContextLike | undefined {
  if (readFileContext !== 'nodes' || (name !== 'open' && name !== 'fstat')) return undefined;
  const context = (req as { context?: { constructor?: { name?: string } } } | undefined)?.context;
  return context?.constructor?.name === 'ReadFileContext' ? (context as unknown as ReadFileContextLike) : undefined;
}

/**
 * Whether reading `source` on the real disk may wait for someone else: a FIFO, a socket, a
 * device. Served at its open, its read would be a readFileSync on the main thread, blocked until
 * a writer comes; when the writer is this process (a test writing the FIFO a host reads), for
 * ever (seen in a mocha worker whose earlier test file had called fs.readFile before any
 * simulation). Such a readFile is left to Node: its open and fstat are held as any call is,
 * its reads (Node's own read, taken before the shim) are not: what such a file yields, and
 * when, is decided outside the simulation anyway.
 */
function mayBlock(source: string | number): boolean {
  return onRealDisk(() => {
    try {
      const stat = typeof source === 'number' ? fs.fstatSync(source) : fs.statSync(source, { throwIfNoEntry: false });
      return stat !== undefined && !stat.isFile() && !stat.isDirectory();
    } catch {
      return false; // the read's own error will say what is wrong
    }
  });
}

/** Node's AbortError, as fs.readFile passes it when its signal is aborted meanwhile. */
function abortError(signal: AbortSignal): Error {
  const error = new Error('The operation was aborted', { cause: signal.reason }) as Error & { code: string };
  error.name = 'AbortError';
  error.code = 'ABORT_ERR';
  return error;
}

/** lib's chunk sizes for fs.readFile: a known size is read 512 KiB at a time, an unknown one 64 KiB. */
const READ_FILE_CHUNK = 512 * 1024;
const READ_FILE_UNKNOWN_CHUNK = 64 * 1024;

/**
 * How many reads Node's fs.readFile makes of a file whose fstat says `size` (0 for anything not
 * a regular file: read until a read returns nothing) when `available` bytes are left to read.
 */
function readFileReads(size: number, available: number): number {
  let reads = 0;
  let pos = 0;
  for (;;) {
    reads++;
    const wanted = size === 0 ? READ_FILE_UNKNOWN_CHUNK : Math.min(READ_FILE_CHUNK, size - pos);
    const got = Math.min(wanted, available - pos);
    if (got === 0) return reads;
    pos += got;
    if (size !== 0 && pos === size) return reads;
  }
}

/**
 * Serves an fs.readFile whose ReadFileContext holds Node's read and close (see readFileContext),
 * from the host's simulated disk, or from the real one when `disk` is undefined, in as many
 * 'io' events as Node's own readFile takes (open, fstat, one per chunk read, close; for a
 * descriptor, fstat and the reads, then a nextTick), each joining the line of the host's real
 * work when the previous one is delivered, as Node's next step would. The file is opened at the
 * call and read when its fstat is delivered, where Node issues its read. So calls interleave,
 * and see the file, as they do when lib holds our functions, and a run does not depend on
 * whether the process read a file before it. Returns false when the call is not such a readFile.
 */
export function serveReadFile(name: string, host: Host, disk: Disk | undefined, args: unknown[], req: unknown, listed?: () => void): boolean {
  const context = readFileContextOf(name, req);
  if (context === undefined) return false;
  const byFd = name === 'fstat';
  if (disk === undefined && mayBlock(byFd ? (args[0] as number) : pathText(args[0]))) return false;
  // As Node's: the file is opened now (Node starts its open now), its size taken when the open
  // completes, and its contents read when the fstat completes, so a write made meanwhile (the
  // program's next statement) is what the read sees.
  let data: Buffer | undefined;
  let error: (Error & { syscall?: string }) | undefined;
  let size = 0;
  const failed = (cause: unknown): void => {
    if (cause instanceof Failure) {
      error = cause.toError(undefined);
    } else if (disk === undefined && cause instanceof Error && typeof (cause as { errno?: unknown }).errno === 'number') {
      // Made by a sync call: an asynchronous call's error has no stack frames.
      cause.stack = `${cause.name}: ${cause.message}`;
      error = cause;
    } else {
      throw cause;
    }
  };
  let fd: number | undefined = byFd ? (args[0] as number) : undefined;
  if (!byFd) {
    try {
      if (disk === undefined) {
        // lib takes a numeric flag as it is (stringToFlags).
        fd = onRealDisk(() => fs.openSync(pathText(args[0]), args[1] as number));
        openedReal(host, fd);
      } else {
        fd = openFile(host, disk, args[0], Number(args[1]), Number(args[2]));
      }
    } catch (cause) {
      failed(cause);
    }
  }
  const measure = (): void => {
    try {
      if (disk === undefined) {
        const stat = onRealDisk(() => fs.fstatSync(fd!));
        size = stat.isFile() ? stat.size : 0;
      } else {
        const node = fileOf(host, fd!, 'fstat').node;
        size = node.kind === 'file' ? node.size : 0;
      }
    } catch (cause) {
      failed(cause);
    }
  };
  const read = (): void => {
    try {
      data = disk === undefined ? onRealDisk(() => fs.readFileSync(fd!)) : readRest(host, fd!, disk);
      // Node reads the size its fstat gave (a file grown since adds nothing).
      if (size > 0 && data.length > size) data = data.subarray(0, size);
    } catch (cause) {
      failed(cause);
    }
  };
  const close = (): void => {
    if (byFd || fd === undefined) return;
    const opened = fd;
    fd = undefined;
    if (disk !== undefined) tableOf(host).delete(opened);
    else {
      onRealDisk(() => {
        try {
          fs.closeSync(opened);
        } catch {
          // Nothing the program could see.
        }
      });
    }
  };
  const finish = (): void => {
    if (error !== undefined) context.callback(error);
    else if (context.signal?.aborted) context.callback(abortError(context.signal));
    else {
      let result: Buffer | string;
      try {
        result = context.encoding ? data!.toString(context.encoding) : data!;
      } catch (cause) {
        context.callback(cause as Error);
        return;
      }
      context.callback(null, result);
    }
  };
  const faults = disk?.faults;
  const stepLatency = faults?.hasLatency === true && typeof args[0] !== 'number' ? () => faults.latencyNs(faults.forPath(nodePath.posix.normalize(absolute(args[0]))).latency) : () => 0;
  // Each of Node's steps is an 'io' event, joining the line of the host's real work when the one before is delivered.
  const step = (then: () => void): void => {
    const scope = captureContext('FSREQCALLBACK');
    deliver(host, stepLatency(), scope, thenDestroyed(scope, then));
  };
  const done = (): void => {
    if (byFd) process.nextTick(() => completeListed(listed, finish));
    else completeListed(listed, finish);
  };
  const closing = (): void => {
    if (byFd) return done();
    close();
    step(done);
  };
  const reading = (left: number): void => {
    if (left > 0) step(() => reading(left - 1));
    else closing();
  };
  const afterFstat = (): void => {
    if (error !== undefined) return closing();
    read();
    // One read if it failed; otherwise as many as Node's chunks take.
    reading(error !== undefined ? 1 : readFileReads(size, data === undefined ? 0 : data.length));
  };
  if (error !== undefined) {
    // A failed open is one step.
    step(done);
  } else if (byFd) {
    measure();
    step(afterFstat);
  } else {
    step(() => {
      measure();
      step(afterFstat);
    });
  }
  return true;
}

/** Runs a completion after the flush its fsync did (a crash before it drops both). */
function deliverWithSync(node: FileNode): (then: () => void) => void {
  return (then) => {
    node.sync();
    then();
  };
}

/**
 * Delivers an operation's completion to `host`: at this instant, in call order with its other
 * real work (real-work.ts), or, when the disk takes `latencyNs`, in an 'io' event that much later.
 * At this instant means as a real disk's completion arrives: once the calling event and its
 * ticks are done, so it is queued behind the immediates that event queued after the call (Node
 * runs a check phase's immediates one after another, never with an fs callback between them).
 */
function deliver(host: Host, latencyNs: number, scope: ReturnType<typeof captureContext>, completion: () => void): void {
  if (latencyNs === 0) {
    const call = beginRealCall(host, scope);
    (host.world as World).afterEvent(host as WorldHost, () => completeRealCall(call, completion));
  } else deliverAfter(host, latencyNs, scope, completion);
}

/**
 * How long binding function `name` takes on a disk with latency faults: the file's (by its
 * descriptor or path) latency, or its fsync latency for fsync and fdatasync; close takes none.
 */
function latencyOf(name: string, host: Host, disk: Disk, args: unknown[]): number {
  if (name === 'close' || name === 'dirClose') return 0;
  const faults = disk.faults!;
  const first = args[0];
  let pathFaults: PathFaults;
  if (typeof first === 'number') {
    const file = tableOf(host).get(first);
    if (file === undefined) return 0;
    pathFaults = faultsOf(disk, file)!;
  } else {
    pathFaults = faults.forPath(nodePath.posix.normalize(absolute(first)));
  }
  return faults.latencyNs(name === 'fsync' || name === 'fdatasync' ? pathFaults.fsyncLatency : pathFaults.latency);
}

function isCtx(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * Whether the call being made is Node's module loader's own (its reads of the program's
 * modules): the loader's frames on the stack (below `below`), with none of the program's beside
 * them (a module's top-level code, which the loader evaluates, or the program's import()).
 */
export function madeByModuleLoader(below: Function): boolean {
  const text = captureStack(below, 40).stack ?? '';
  if (!text.includes('node:internal/modules/')) return false;
  return programFrames(text).length === 0;
}

/**
 * Answers binding function `name`, called by `host` with `args`, from `disk`, in the call's form.
 * `marker` is the call's FSReqCallback or kUsePromises (undefined for a synchronous call);
 * `callee` is the binding function the program's lib frame called (for a sync error's stack).
 */
export function callDisk(name: string, host: Host, disk: Disk, args: unknown[], marker: unknown, callee: (...args: any[]) => unknown): unknown {
  const unsupported = UNSUPPORTED[name];
  if (unsupported !== undefined) throw unsupportedOnDisk(apiOfCall(unsupported, marker), host);
  // Node 22 and 24's module loader reads the program's modules through the binding, at once (on
  // 20 its ES module loader reads them asynchronously, left to Node): the disk serves such a read,
  // but none of its faults or latency touch it (or draw from its stream), so the program that
  // runs, and its run, are the same on every version.
  if (disk.faults !== undefined && marker === undefined && madeByModuleLoader(callDisk)) {
    const faults = disk.faults;
    disk.faults = undefined;
    try {
      return serve(host, args, marker, callee, () => onDisk(() => OPERATIONS[name]!(host, disk, args)));
    } finally {
      disk.faults = faults;
    }
  }
  const latencyNs = disk.faults?.hasLatency === true ? latencyOf(name, host, disk, args) : 0;
  // An asynchronous fsync that takes time flushes when it completes (see DeferredSync).
  const served =
    latencyNs > 0 && marker !== undefined && (name === 'fsync' || name === 'fdatasync')
      ? (h: Host, d: Disk, a: unknown[]) => syncFile(h, d, a[0] as number, name, true)
      : OPERATIONS[name]!;
  // A DiskError that no step turned into the program's error (a file grown past the limit).
  return serve(host, args, marker, callee, () => onDisk(() => served(host, disk, args)), latencyNs);
}

/**
 * Answers a binding call from `host` with what `operation` gives (or the Failure it throws), in
 * the call's form: returned or thrown (into Node 20's ctx where the call has one) for a
 * synchronous call, and otherwise delivered as the callback's or the promise's settlement in an
 * 'io' event of the host, after `latencyNs` (0: at the current instant, in call order).
 */
export function serve(host: Host, args: unknown[], marker: unknown, callee: (...args: any[]) => unknown, operation: () => unknown, latencyNs = 0): unknown {
  if (marker === undefined) {
    // A synchronous call blocks its process for as long as the disk takes.
    if (latencyNs > 0) host.world.busy(host, latencyNs);
    const last = args[args.length - 1];
    const ctx = isCtx(last) ? last : undefined;
    try {
      return operation();
    } catch (error) {
      if (!(error instanceof Failure)) throw error;
      if (ctx !== undefined) {
        // What Node's C++ puts there (lib's uvException makes the rest: code, message).
        ctx.errno = error.errno;
        ctx.syscall = error.syscall;
        return undefined;
      }
      throw error.toError(callee);
    }
  }
  let outcome: { ok: true; value: unknown } | { ok: false; error: Error };
  try {
    outcome = { ok: true, value: operation() };
  } catch (error) {
    if (!(error instanceof Failure)) throw error;
    outcome = { ok: false, error: error.toError(undefined) };
  }
  if (outcome.ok && outcome.value instanceof DeferredSync) {
    const { node } = outcome.value;
    outcome.value = undefined;
    const completion = deliverWithSync(node);
    if (marker === kUsePromises) return new Promise((resolve) => deliver(host, latencyNs, undefined, () => completion(() => resolve(undefined))));
    const req = marker as InstanceType<typeof FSReqCallback>;
    const oncomplete = req.oncomplete;
    if (typeof oncomplete === 'function') {
      const scope = captureContextOf(req, 'FSREQCALLBACK', true);
      deliver(host, latencyNs, scope, thenDestroyed(scope, () => completion(() => Reflect.apply(oncomplete, req, [null]))));
    }
    return undefined;
  }
  if (marker === kUsePromises) {
    return new Promise((resolve, reject) => {
      deliver(host, latencyNs, undefined, () => (outcome.ok ? resolve(outcome.value) : reject(outcome.error)));
    });
  }
  const req = marker as InstanceType<typeof FSReqCallback>;
  const oncomplete = req.oncomplete;
  if (typeof oncomplete !== 'function') return undefined;
  const scope = captureContextOf(req, 'FSREQCALLBACK', true);
  deliver(host, latencyNs, scope, thenDestroyed(scope, () => {
    if (!outcome.ok) Reflect.apply(oncomplete, req, [outcome.error]);
    else if (outcome.value === undefined) Reflect.apply(oncomplete, req, [null]);
    else Reflect.apply(oncomplete, req, [null, outcome.value]);
  }));
  return undefined;
}

export { FSReqCallback, kUsePromises };
