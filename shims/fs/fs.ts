/**
 * fs on the real disk (the default; for `disk: 'simulated'` this hands each call of a host to
 * its simulated disk, disk.ts): host code reads (and writes) the real files, but every
 * asynchronous fs call a host makes is real work the simulation waits for
 * (thread-pool/real-work.ts), as it waits for a host's modules to load. Virtual time stands
 * still until the call completes; then its completion reaches host code as an 'io' event at that
 * same instant, in the order the calls were made. So a run stays a pure function of its seed (and
 * of the files' contents), and a run cannot end, or move on, while a host still waits for the
 * disk.
 *
 * Without this, a host's `await fs.promises.readFile(...)` let the simulation run on (or end
 * as 'quiescent', the client never finished) while the read was in flight, and its completion
 * landed between simulated events at a point that depended on the real machine.
 *
 * It works on the fs binding that lib/fs.js and lib/internal/fs/promises.js call at call time
 * (so callbacks, promises, FileHandle methods and streams are all covered): a call from host
 * code with an FSReqCallback (the callback API) or kUsePromises (the promise API) among its
 * arguments is an asynchronous one; synchronous calls are left alone. Calls from outside
 * every host (the test runner) are untouched.
 */
import { captureContext, captureContextOf, thenDestroyed } from '../async-hooks/async-context.js';
import { currentHost, NODE_MAJOR, type Host } from '../context.js';
import { asyncFsError, callDisk, chdirIntoDisk, DirListing, type DirEntries, diskOf, encode, listRequest, madeByModuleLoader, noteInstalled, noteRestored, serve, serveReadFile, servesCall, tempSuffix, unsupportedOnDisk } from './disk.js';
import { socketOperation } from './socket-names.js';
import { closingReal, openedReal } from './real-descriptors.js';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { onRealDisk, realDiskCall } from '../../runtime/disk/real.js';
import { invalidArgType, invalidArgValue, validateAbortSignal, validateFunction } from '../node-errors.js';
import { mirrorFunction, mirrorSignature, type PatchSet } from '../registry.js';
import { nodeBinding } from '../node-binding.js';
import { loadingModuleGraph } from '../module/module-hosts.js';
import { filesChanged, filesUnchangedSinceLastRun, noteRunEnded } from '../module/resolution-cache.js';
import { abandonRealCall, beginRealCall, completeRealCall, heldPromise, type RealCall } from '../thread-pool/real-work.js';
import { hideRealPromiseRequest, trackRequest } from '../net/native-handles.js';
import type { Shim } from '../shim.js';
import type { World } from '../../runtime/world.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const binding = nodeBinding('fs') as Record<string, any>;
const FSReqCallback = binding.FSReqCallback as new () => { oncomplete?: (...results: unknown[]) => void };
const kUsePromises = binding.kUsePromises as symbol;
/**
 * Arrays the binding shares between calls: an asynchronous stat through the callback API
 * hands its result over in one of them, so a completion held back behind an earlier call
 * keeps a copy.
 */
const SHARED_ARRAYS = new Set<unknown>(['statValues', 'bigintStatValues', 'statFsValues', 'bigintStatFsValues'].map((k) => binding[k]).filter((a) => a !== undefined));

const kCall = Symbol('dst.fsCall');

/**
 * After holderOf() left a call to Node: the host whose dynamic import() Node's module loader is
 * reading a file for. On Node 20 (without a hooks thread) the ES module loader
 * reads a module not loaded before with fs/promises, real requests one after another with only
 * microtasks between them, and the import settles in the microtasks after the last. Held, the
 * simulation runs no event meanwhile, so the import settles at the virtual instant it was made,
 * whatever the reads take; left alone, other hosts' timers ran on while they were in flight (a
 * probe, 2026-12-05: a host's import() beside a 1 ms interval settled after 1,023 to 5,887 ticks,
 * 4 outcomes in 15 runs of one seed). So in register mode, where DST_HELD_IMPORTS=1 (what the
 * CLI sets) holds a program's imports on the loader-hooks thread instead, at 28+ ms of start-up:
 * without it a lazy import() loaded in real time while events ran, and `DST_SEED=S node --import
 * dst-runtime/register app.mjs` did not replay (a probe, 2026-12-06: one seed, three
 * fingerprints). A module host's own graph is held as it loads. An import() a register-mode
 * program's top level makes before the first event is held too (World.holdForImport): its first
 * read could still be in flight when the driver runs the first slice of events (one seed, 256 or
 * 512 ticks of a 1 ms interval before the import settled, as the thread pool was quick or not).
 */
function importingHost(): Host | undefined {
  const host = currentHost();
  if (host === undefined || loadingModuleGraph(host)) return undefined;
  return host;
}

/** Holds `host`'s world until `req`'s completion (a callback request of the module loader's). */
function holdUntilComplete(host: Host, req: InstanceType<typeof FSReqCallback> | undefined): void {
  const oncomplete = req?.oncomplete;
  if (typeof oncomplete !== 'function') return;
  const release = (host.world as World).holdForImport();
  req!.oncomplete = function (this: unknown, ...results: unknown[]) {
    release();
    return Reflect.apply(oncomplete, this, results);
  };
}

function heldCallback(host: Host, req: { oncomplete?: (...results: unknown[]) => void; [kCall]?: RealCall }): void {
  const oncomplete = req.oncomplete!;
  const scope = captureContextOf(req, 'FSREQCALLBACK', true);
  const call = beginRealCall(host, scope);
  req[kCall] = call;
  req.oncomplete = function heldOncomplete(this: unknown, ...results: unknown[]) {
    const kept = results.map((r) => (SHARED_ARRAYS.has(r) ? (r as Float64Array).slice() : r));
    completeRealCall(call, thenDestroyed(scope, () => Reflect.apply(oncomplete, req, kept)));
  };
}

/**
 * The host whose asynchronous call this is, or undefined when the call is to be left alone:
 * made outside every host; made while that host's own module graph loads (the simulation
 * already waits for the loading, and its reads are part of it: held, they would wait behind
 * it); or made by Node's module loader itself (its reads of the program's modules), recognised
 * by the loader's frames on the (async) stack with none of the program's own beside them.
 *
 * Only the calling host's own loading counts. Whether other real work holds the world does not
 * matter: a module host's top-level code runs while the next host's graph loads, or while
 * Node's loader thread has a message of its own in flight (issue 20 item 1: three hosts calling
 * fs.stat at their top level gave two orders in four processes), and a database host read its
 * 9 MB WebAssembly file unheld while a client's graph loaded, so the run moved on to the
 * client's connect before the server listened (issue 18).
 */
function holderOf(): Host | undefined {
  const host = currentHost();
  if (host === undefined) return undefined;
  if (loadingModuleGraph(host)) return undefined;
  return madeByModuleLoader(holderOf) ? undefined : host;
}

/**
 * The argument that makes a binding call asynchronous: an FSReqCallback (the callback API) or
 * kUsePromises (the promise API). Usually the last, not always (Node 24's stat takes one more
 * after it), so the arguments are searched from the end.
 */
function asyncMarker(args: unknown[]): unknown {
  for (let i = args.length - 1; i >= 0; i--) {
    const arg = args[i];
    if (arg === kUsePromises || arg instanceof FSReqCallback) return arg;
  }
  return undefined;
}

/**
 * Binding calls that cannot create, remove, rename or change a file: every other call tells the
 * module hosts' resolution cache that files may have changed (module/resolution-cache.ts).
 */
const READS_ONLY = new Set([
  'access',
  'close',
  'cpSyncCheckPaths',
  'existsSync',
  'fdatasync',
  'fstat',
  'fsync',
  'getFormatOfExtensionlessFile',
  'internalModuleReadJSON',
  'internalModuleStat',
  'legacyMainResolve',
  'lstat',
  'read',
  'readBuffers',
  'readFileUtf8',
  'readdir',
  'readlink',
  'realpath',
  'stat',
  'statfs',
]);
const { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND } = fs.constants;
const OPEN_CHANGES = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;

/** Whether a binding call may change the files (an open for writing counts: its writes may not come through here, a FileHandle's). */
function mayChangeFiles(name: string, args: unknown[]): boolean {
  if (READS_ONLY.has(name)) return false;
  // Writes to stdout and stderr (a SyncWriteStream when they are files): no module file.
  if ((name === 'writeBuffer' || name === 'writeString' || name === 'writeBuffers') && (args[0] === 1 || args[0] === 2)) return false;
  if (name === 'open' || name === 'openFileHandle') return typeof args[1] !== 'number' || (args[1] & OPEN_CHANGES) !== 0;
  return true;
}

/**
 * mkdtemp on the real disk from a host: the directory libuv would name with six random
 * characters gets six from the host's seeded stream instead (the simulated disk's own rule), so
 * a program that prints, sorts or compares its temporary paths replays by seed. A name already
 * taken (a directory a killed run left behind) is drawn again, as mkdtemp(3) retries. Another
 * failure (no parent, no permission) gives its code and the name last tried, which an
 * asynchronous mkdtemp's error carries in Node (a synchronous one's carries the template).
 * Undefined for a prefix of another type, or after 100 taken names: Node's own call then runs.
 */
function seededMkdtemp(host: Host, prefix: unknown, encoding: unknown): { made: string | Buffer } | { code: string; tried: string } | undefined {
  if (typeof prefix !== 'string' && !Buffer.isBuffer(prefix)) return undefined;
  const text = Buffer.isBuffer(prefix) ? prefix.toString('latin1') : prefix;
  for (let attempt = 0; attempt < 100; attempt++) {
    const candidate = text + tempSuffix(host);
    const path = Buffer.isBuffer(prefix) ? Buffer.from(candidate, 'latin1') : candidate;
    try {
      onRealDisk(() => fs.mkdirSync(path, 0o700));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      return { code: code ?? 'EIO', tried: path.toString() };
    }
    return { made: Buffer.isBuffer(path) ? (encoding === 'buffer' ? path : path.toString((encoding ?? 'utf8') as BufferEncoding)) : encode(path, encoding) };
  }
  return undefined;
}

/** Binding calls that open a real descriptor (real-descriptors.ts keeps a host's until it goes down). */
const OPENS = new Set(['open', 'openFileHandle']);

function holding(name: string, original: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  const opens = OPENS.has(name);
  const held = function (this: unknown, ...args: unknown[]): unknown {
    if (mayChangeFiles(name, args)) filesChanged();
    if (name === 'close') closingReal(args[0]);
    if (realDiskCall()) return Reflect.apply(original, this, args);
    const marker = asyncMarker(args);
    if (marker === undefined) {
      // A synchronous call: from a host with a simulated disk, the disk answers it (the
      // loader's own reads too: they read through to the real files, which are the same).
      const host = currentHost();
      const disk = host === undefined ? undefined : diskOf(host);
      if (disk !== undefined && servesCall(name, args)) return callDisk(name, host!, disk, args, undefined, held);
      const socketFile = host === undefined || disk !== undefined ? undefined : socketOperation(name, host, args);
      if (socketFile !== undefined) return serve(host!, args, undefined, held, socketFile);
      if (name === 'mkdtemp' && host !== undefined) {
        // A failure is Node's own (its error names the template, prefix + 'XXXXXX').
        const outcome = seededMkdtemp(host, args[0], args[1]);
        if (outcome !== undefined && 'made' in outcome) return outcome.made;
      }
      let result: unknown;
      try {
        result = Reflect.apply(original, this, args);
      } catch (error) {
        // Its stack starts at lib's frame, as Node's does, not at this one (which would push
        // one of the program's frames past Error.stackTraceLimit).
        if (error instanceof Error) Error.captureStackTrace(error, held);
        throw error;
      }
      // A number: lib opens FileHandles asynchronously only. (A WeakRef made now would keep a
      // FileHandle from the binding's synchronous form alive to the end of this job, through a
      // gc() the program calls: Node's test-fs-filehandle.)
      if (opens && host !== undefined && typeof result === 'number') openedReal(host, result);
      return result;
    }
    const host = holderOf();
    if (host === undefined) {
      const importing = importingHost();
      if (importing !== undefined && marker !== kUsePromises) holdUntilComplete(importing, marker as InstanceType<typeof FSReqCallback>);
      const result = opens ? openUnheld(this, original, args, marker) : Reflect.apply(original, this, args);
      if (importing !== undefined && marker === kUsePromises) (importing.world as World).waitForImport(result as Promise<unknown>);
      return result;
    }
    const disk = diskOf(host);
    const served = disk !== undefined && servesCall(name, args);
    // A kept unix socket's file on the real disk (socket-names.ts), answered as a disk would.
    const socketFile = disk === undefined ? socketOperation(name, host, args) : undefined;
    const made = !served && socketFile === undefined && name === 'mkdtemp' ? seededMkdtemp(host, args[0], args[1]) : undefined;
    if (marker === kUsePromises) {
      const listed = trackRequest(host, 'FSReqPromise');
      if (socketFile !== undefined) {
        const result = serve(host, args, marker, held, socketFile) as Promise<unknown>;
        result.then(listed, listed);
        return result;
      }
      const realCall = () => hideRealPromiseRequest('FSReqPromise', () => Reflect.apply(original, this, args) as Promise<unknown>);
      const real =
        made === undefined
          ? opens
            ? () => realCall().then((value) => {
                openedReal(host, value);
                return value;
              })
            : realCall
          : () => ('made' in made ? Promise.resolve(made.made) : Promise.reject(asyncFsError(made.code, 'mkdtemp', made.tried)));
      const result = (served ? callDisk(name, host, disk!, args, marker, held) : heldPromise(host, real)) as Promise<unknown>;
      result.then(listed, listed);
      return result;
    }
    const req = marker as InstanceType<typeof FSReqCallback> & { [kCall]?: RealCall };
    if (typeof req.oncomplete !== 'function') return Reflect.apply(original, this, args);
    const listed = listRequest(host, req);
    if (socketFile !== undefined) return serve(host, args, marker, held, socketFile);
    if (serveReadFile(name, host, served ? disk : undefined, args, marker, listed)) return undefined;
    if (served) return callDisk(name, host, disk!, args, marker, held);
    heldCallback(host, req);
    // Kept from the real completion on, so one that reaches a host gone down is closed too.
    if (opens) keepOpened(host, req);
    if (made !== undefined) {
      // Made already: the completion goes through the line as the real call's would.
      if ('made' in made) req.oncomplete!(null, made.made);
      else req.oncomplete!(asyncFsError(made.code, 'mkdtemp', made.tried));
      return undefined;
    }
    try {
      return Reflect.apply(original, this, args);
    } catch (error) {
      if (req[kCall] !== undefined) abandonRealCall(req[kCall]);
      throw error;
    }
  };
  mirrorSignature(held, original);
  return held;
}

/** The descriptor an open's callback request `req` completes with becomes `host`'s. */
function keepOpened(host: Host, req: { oncomplete?: (...results: unknown[]) => void }): void {
  const oncomplete = req.oncomplete;
  if (typeof oncomplete !== 'function') return;
  req.oncomplete = function openedOncomplete(this: unknown, ...results: unknown[]) {
    if (results[0] === null || results[0] === undefined) openedReal(host, results[1]);
    return Reflect.apply(oncomplete, this, results);
  };
}

/**
 * An asynchronous open left to Node (made while its host's module graph loads, a top-level
 * await's): the descriptor is still the host's, kept from its completion on.
 */
function openUnheld(self: unknown, original: (...args: unknown[]) => unknown, args: unknown[], marker: unknown): unknown {
  const host = currentHost();
  if (host === undefined || diskOf(host) !== undefined) return Reflect.apply(original, self, args);
  if (marker !== kUsePromises) {
    keepOpened(host, marker as InstanceType<typeof FSReqCallback>);
    return Reflect.apply(original, self, args);
  }
  const result = Reflect.apply(original, self, args) as Promise<unknown>;
  // Beside the program's own reaction, which it neither delays nor answers.
  result.then((value) => openedReal(host, value), () => undefined);
  return result;
}

// ---- directories opened by fs.opendir ------------------------------------------------------------

/**
 * Node's fs.opendir reads through a binding of its own (fs_dir, which process.binding does not
 * give out), so a host's Dir would read the real disk behind a simulated one's back, and on the
 * real disk its reads completed where the thread pool put them among the simulation's events (a
 * probe, 2026-12-05: one seed, 13 different runs in 20). From a host, the three opendir functions
 * make Node's own fs.Dir over a handle of ours instead: the simulated disk's (disk.ts), or a
 * listing of the real directory taken as it is opened, whose reads complete in the host's line of
 * real work (thread-pool/real-work.ts) like any other fs call of it. With `recursive`, Node's Dir
 * opens each subdirectory through its binding itself: refused on a simulated disk.
 */
const NodeDir = fs.Dir as unknown as new (handle: unknown, path: unknown, options: unknown) => fs.Dir;

/** Node's isURL: what fs functions take as a file URL. */
function isURL(value: unknown): value is URL {
  const url = value as { href?: unknown; protocol?: unknown; auth?: unknown; path?: unknown } | null | undefined;
  return Boolean(url?.href && url.protocol && url.auth === undefined && url.path === undefined);
}

/** Node's getValidatedPath: a file URL's path, or a string or Uint8Array without null bytes. */
function validatedPath(value: unknown, hideFrom: Function): string | Buffer {
  const path = isURL(value) ? fileURLToPath(value) : value;
  if (typeof path !== 'string' && !(path instanceof Uint8Array)) throw invalidArgType('path', 'of type string or an instance of Buffer or URL', path, hideFrom);
  if (typeof path === 'string' ? path.includes('\u0000') : path.includes(0)) {
    throw invalidArgValue('path', path, 'must be a string, Uint8Array, or URL without null bytes', hideFrom);
  }
  return path as string | Buffer;
}

/** Node's getOptions(options, { encoding: 'utf8' }), as opendir checks its options. */
function dirOptions(options: unknown, hideFrom: Function): Record<string, unknown> {
  if (options === null || options === undefined || typeof options === 'function') return { encoding: 'utf8' };
  let checked: Record<string, unknown>;
  if (typeof options === 'string') checked = { encoding: options };
  else if (typeof options === 'object') checked = options as Record<string, unknown>;
  else throw invalidArgType('options', 'one of type string or object', options, hideFrom);
  const { encoding } = checked;
  if (encoding !== 'buffer' && encoding && !Buffer.isEncoding(encoding as string)) throw invalidArgValue('encoding', encoding, 'is invalid encoding', hideFrom);
  if (checked.signal !== undefined) validateAbortSignal(checked.signal, 'options.signal', hideFrom);
  return checked;
}

/** UV_DIRENT_* of a Dirent of the real disk. */
const { UV_DIRENT_FILE, UV_DIRENT_DIR, UV_DIRENT_LINK, UV_DIRENT_FIFO, UV_DIRENT_SOCKET, UV_DIRENT_CHAR, UV_DIRENT_BLOCK, UV_DIRENT_UNKNOWN } = fs.constants as unknown as Record<string, number>;

function direntType(entry: fs.Dirent): number {
  if (entry.isFile()) return UV_DIRENT_FILE!;
  if (entry.isDirectory()) return UV_DIRENT_DIR!;
  if (entry.isSymbolicLink()) return UV_DIRENT_LINK!;
  if (entry.isFIFO()) return UV_DIRENT_FIFO!;
  if (entry.isSocket()) return UV_DIRENT_SOCKET!;
  if (entry.isCharacterDevice()) return UV_DIRENT_CHAR!;
  if (entry.isBlockDevice()) return UV_DIRENT_BLOCK!;
  return UV_DIRENT_UNKNOWN!;
}

/**
 * The real directory `path`'s entries, in the order the file system lists them, names as their
 * bytes; an error as Node's opendir gives it (its path only for an asynchronous call).
 */
function realListing(path: string | Buffer, withPath: boolean): DirEntries {
  try {
    return onRealDisk(() => fs.readdirSync(path, { withFileTypes: true, encoding: 'buffer' })).map((entry) => ({ name: entry.name, type: direntType(entry as unknown as fs.Dirent) }));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || (error as NodeJS.ErrnoException).syscall === undefined) throw error;
    throw asyncFsError(code, 'opendir', withPath ? path.toString() : undefined);
  }
}

/**
 * Completes `req` (an FSReqCallback of `host`) with what `compute` gives, in the host's line of
 * real work, as the thread pool would have: after the host's earlier calls.
 */
function inRealLine(host: Host, req: InstanceType<typeof FSReqCallback>, compute: () => unknown): void {
  listRequest(host, req);
  heldCallback(host, req);
  let value: unknown;
  try {
    value = compute();
  } catch (error) {
    req.oncomplete!(error);
    return;
  }
  if (value === undefined) req.oncomplete!(null);
  else req.oncomplete!(null, value);
}

/** A Dir's handle on the real disk, over the listing taken at the open. */
class RealDirHandle extends DirListing {
  constructor(
    private readonly host: Host,
    entries: DirEntries,
  ) {
    super(entries);
  }

  read(encoding: unknown, bufferSize: unknown, req?: unknown): unknown {
    if (this.failsGone(this.host, req, 'scandir', RealDirHandle.prototype.read)) return undefined;
    if (!(req instanceof FSReqCallback)) return this.take(encoding, Number(bufferSize));
    inRealLine(this.host, req, () => this.take(encoding, Number(bufferSize)));
    return undefined;
  }

  close(req?: unknown): unknown {
    if (this.failsGone(this.host, req, 'closedir', RealDirHandle.prototype.close)) return undefined;
    if (req instanceof FSReqCallback) inRealLine(this.host, req, () => undefined);
    return undefined;
  }
}

/** The host calling an fs function now, unless the call is left to Node (outside every host, or the runtime's own). */
function callingHost(): Host | undefined {
  return realDiskCall() ? undefined : currentHost();
}

function refuseRecursive(options: Record<string, unknown>, api: string, host: Host): void {
  if (options.recursive && diskOf(host) !== undefined) throw unsupportedOnDisk(`${api} with { recursive: true }`, host);
}

/** Opens directory `pathArg` for `host`: `callback(error, dir)` in an 'io' event of the host. */
function openDir(host: Host, pathArg: unknown, optionsArg: unknown, callback: unknown, api: string, callee: (...args: any[]) => unknown): void {
  validateFunction(callback, 'callback', callee);
  const path = validatedPath(pathArg, callee);
  const options = dirOptions(optionsArg, callee);
  refuseRecursive(options, api, host);
  const req = new FSReqCallback();
  req.oncomplete = (error: unknown, handle?: unknown) => (error ? callback(error) : callback(null, new NodeDir(handle, path, options)));
  const disk = diskOf(host);
  if (disk === undefined) {
    inRealLine(host, req, () => new RealDirHandle(host, realListing(path, true)));
    return;
  }
  listRequest(host, req);
  callDisk('opendir', host, disk, [path, req], req, callee);
}

function opendirOf(original: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return mirrorFunction(function opendir(this: unknown, ...args: unknown[]): unknown {
    const host = callingHost();
    if (host === undefined) return Reflect.apply(original, this, args);
    openDir(host, args[0], args[1], typeof args[1] === 'function' ? args[1] : args[2], 'fs.opendir', opendir);
    return undefined;
  }, original);
}

function opendirSyncOf(original: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return mirrorFunction(function opendirSync(this: unknown, ...args: unknown[]): unknown {
    const host = callingHost();
    if (host === undefined) return Reflect.apply(original, this, args);
    const path = validatedPath(args[0], opendirSync);
    const options = dirOptions(args[1], opendirSync);
    refuseRecursive(options, 'fs.opendirSync', host);
    const disk = diskOf(host);
    let handle: unknown;
    if (disk !== undefined) handle = callDisk('opendir', host, disk, [path, undefined], undefined, opendirSync);
    else {
      try {
        handle = new RealDirHandle(host, realListing(path, false));
      } catch (error) {
        if (error instanceof Error) Error.captureStackTrace(error, opendirSync);
        throw error;
      }
    }
    return new NodeDir(handle, path, options);
  }, original);
}

function opendirPromiseOf(original: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  return mirrorFunction(function opendir(this: unknown, ...args: unknown[]): unknown {
    const host = callingHost();
    if (host === undefined) return Reflect.apply(original, this, args);
    // Node's is promisify(fs.opendir): what that throws rejects.
    return new Promise((resolve, reject) => {
      openDir(host, args[0], args[1], (error: unknown, dir: unknown) => (error ? reject(error) : resolve(dir)), 'fs.promises.opendir', opendir);
    });
  }, original);
}

/**
 * Node 20's FileHandle#readableWebStream() without `{ type: 'bytes' }` reads the file natively,
 * as a stream (StreamBase's readStart), not through the binding: from a host, its chunks arrived
 * wherever the real reads put them among the simulation's events (a probe, 2026-12-05: one seed,
 * 9 different runs in 20 on the real disk; and the simulated disk cannot serve it). Inside a host
 * it gives the byte stream instead, which reads through FileHandle#read, as Node 22 and 24 always
 * do. lib's FileHandle class is not exported: its prototype is patched once the first
 * fs.promises.open of a run settles, before the program's own reaction to it.
 */
function byteStreamsOnNode20(patches: PatchSet): void {
  if (NODE_MAJOR !== 20) return;
  const open = fs.promises.open as (...args: unknown[]) => Promise<object>;
  let patched = false;
  const patchClass = (handle: object): void => {
    if (patched) return;
    patched = true;
    const prototype = Object.getPrototypeOf(handle) as Record<string, unknown>;
    const original = prototype.readableWebStream as ((options?: unknown) => unknown) | undefined;
    if (typeof original !== 'function') return;
    patches.replace(
      prototype,
      'readableWebStream',
      mirrorFunction(function readableWebStream(this: unknown, ...args: unknown[]): unknown {
        const options = args[0] as { type?: unknown } | null | undefined;
        // Node's own checks and errors for anything but an options object with no type or a string one.
        if (currentHost() === undefined || options === null || (options !== undefined && typeof options !== 'object') || (options?.type !== undefined && typeof options.type !== 'string') || options?.type === 'bytes') {
          return Reflect.apply(original, this, args);
        }
        return Reflect.apply(original, this, [{ ...options, type: 'bytes' }]);
      }, original),
    );
  };
  patches.replace(
    fs.promises,
    'open',
    mirrorFunction(function (this: unknown, ...args: unknown[]): unknown {
      const result = Reflect.apply(open, this, args) as Promise<object>;
      if (!patched) result.then(patchClass, () => undefined);
      return result;
    }, open),
  );
}

const DIR_OPENERS: Array<[object, string, (original: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown]> = [
  [fs, 'opendir', opendirOf],
  [fs, 'opendirSync', opendirSyncOf],
  [fs.promises, 'opendir', opendirPromiseOf],
];

/**
 * fs functions that reach Node's file system other than through the fs binding (the Blob
 * binding; cp's C++ copy, and its walk through the directory binding): from a host with a
 * simulated disk they would read or write the real disk behind its back, so they fail loudly
 * instead. (Watchers are refused inside every host: shims/strict/escapes.ts.)
 */
const BESIDE_THE_BINDING: Array<[object, string, string]> = [
  // fs.cp walks directories with opendir, and cpSync copies in C++ on Node 22 and 24.
  [fs, 'cp', 'fs.cp'],
  [fs, 'cpSync', 'fs.cpSync'],
  [fs.promises, 'cp', 'fs.promises.cp'],
  // A file-backed Blob reads the file natively.
  [fs, 'openAsBlob', 'fs.openAsBlob'],
];

function refusedOnDisk(original: (...args: unknown[]) => unknown, api: string): (...args: unknown[]) => unknown {
  return mirrorFunction(function (this: unknown, ...args: unknown[]): unknown {
    const host = callingHost();
    if (host !== undefined && diskOf(host) !== undefined) throw unsupportedOnDisk(api, host);
    return Reflect.apply(original, this, args);
  }, original);
}

export const fsShim: Shim = {
  name: 'fs',
  install(patches: PatchSet) {
    noteInstalled();
    patches.onRestore(noteRestored);
    // Files a test changed between runs move where a module host's imports resolve.
    filesUnchangedSinceLastRun();
    patches.onRestore(noteRunEnded);
    for (const [target, key, api] of BESIDE_THE_BINDING) {
      const original = (target as Record<string, unknown>)[key];
      if (typeof original === 'function') patches.replace(target, key, refusedOnDisk(original as (...args: unknown[]) => unknown, api));
    }
    byteStreamsOnNode20(patches);
    for (const [target, key, make] of DIR_OPENERS) {
      const original = (target as Record<string, unknown>)[key];
      if (typeof original === 'function') patches.replace(target, key, make(original as (...args: unknown[]) => unknown));
    }
    for (const key of Object.keys(binding).sort()) {
      const value = binding[key];
      // Constructors (FSReqCallback, FileHandle, StatWatcher) stay as they are.
      if (typeof value !== 'function' || /^[A-Z]/.test(key)) continue;
      patches.replace(binding, key, holding(key, value));
    }
    // process.chdir() into what a simulated disk made fails on the real disk: say why.
    const realChdir = process.chdir;
    patches.replace(
      process,
      'chdir',
      mirrorFunction(function chdir(this: unknown, directory: string): void {
        try {
          Reflect.apply(realChdir, this, [directory]);
        } catch (error) {
          throw chdirIntoDisk(callingHost(), directory, (error as NodeJS.ErrnoException)?.code) ?? error;
        }
      }, realChdir),
    );
    // FileHandle.close() (fs.promises) returns a promise of its own, not through the binding.
    const fileHandle = (binding.FileHandle as { prototype: Record<string, any> }).prototype;
    const close = fileHandle.close as (...args: unknown[]) => Promise<unknown>;
    patches.replace(fileHandle, 'close', function closeHeld(this: unknown, ...args: unknown[]) {
      closingReal((this as { fd?: unknown }).fd);
      const host = holderOf();
      if (host === undefined) {
        const result = Reflect.apply(close, this, args) as Promise<unknown>;
        const importing = importingHost();
        if (importing !== undefined) (importing.world as World).waitForImport(result);
        return result;
      }
      const listed = trackRequest(host, 'CloseReq');
      const result = heldPromise(host, () => hideRealPromiseRequest('CloseReq', () => Reflect.apply(close, this, args) as Promise<unknown>));
      result.then(listed, listed);
      return result;
    });
  },
};
