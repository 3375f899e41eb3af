/**
 * Asynchronous child processes from a simulated host: `spawn`, `exec`, `execFile` and what is
 * built on them (execa, cross-spawn, simple-git...). `fork()` and any child with an IPC channel
 * are refused here, after Node's own argument checks: they talk back and forth with their parent.
 *
 * A child cannot run inside the simulation (it is another program, on real time and real I/O),
 * and if it ran alongside it, where its output landed among the simulated events would depend on
 * the machine's speed. So a child runs as a synchronous one does (spawnSync), at one fixed point:
 *
 * - `spawn()` checks what the kernel would refuse at once, as libuv reports it from uv_spawn: the
 *   working directory (chdir) and the file, searched on the child's PATH as execvp does (ENOENT,
 *   EACCES, ENOTDIR). Node's own code then emits 'error' as plainly. Otherwise the child gets a pid
 *   drawn from its host's stream, 'spawn' is emitted, and the whole simulation is held (no event
 *   runs, virtual time stands still: shims/thread-pool/real-work.ts);
 * - when the turn that spawned it is over (its code, ticks and promise jobs), the child runs for
 *   real, to completion, with what the program wrote to its stdin in that turn as its input, then
 *   end of file. A kill() in that turn means it never runs: it ends by that signal. A child still
 *   running after CHILD_REAL_LIMIT_MS of real time (a server, `sleep 1000`) is killed for real and
 *   lingers in the simulation: it runs on until the program kills it;
 * - the simulation then goes on, and after the child's duration (drawn from the seed) its output
 *   reaches the program through Node's own ChildProcess and net.Socket code, in the order libuv's
 *   polls bring a fast child's: each output pipe's reads in fd order, then the exit. A kill()
 *   before that ends the child at once by the signal, its work done: its output is read first.
 *
 * So a child's output is a function of its input, its arguments and the real files it reads (a
 * child that prints the real time or a random number still does so), and when it arrives is a
 * function of the seed. What cannot be had this way is refused with a clear error: a write to a
 * child's stdin after the turn that spawned it (the child has already run: an interactive child),
 * a socket of the simulation as a child's stdio, and any child on a simulated disk (the child
 * would see the real one).
 *
 * The program's handles stay Node's own objects (ProcessWrap, and a PipeWrap per 'pipe' stdio, that
 * never reach libuv's spawn): as with sockets (shims/net/net-binding.ts) each gets its own
 * methods, which shadow the native prototype's.
 */
import type { AsyncResource } from 'node:async_hooks';
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import { UnsupportedError } from '../../runtime/errors.js';
import { onRealDisk } from '../../runtime/disk/real.js';
import { UV } from '../../runtime/network/errno.js';
import { HANGUP_EOF, READ_CHUNK_BYTES, READS_PER_POLL } from '../../runtime/network/tcp.js';
import type { RandomStream } from '../../runtime/random/stream.js';
import type { World } from '../../runtime/world.js';
import { queueOwnImmediate } from '../../runtime/driver/own-immediates.js';
import { captureSite, captureStack } from '../../runtime/trace/site.js';
import { captureContext } from '../async-hooks/async-context.js';
import { currentHost, forgetHost, type Host } from '../context.js';
import { uvErrno } from '../fs/disk.js';
import { AS_HOST, simulatedDiskRefusal } from '../strict/escapes.js';
import { deliverRead, deliverReadStatus, joinWritev, type KeepAlive, noteWrite, ownerOf, pendingWriteRequest } from '../net/net-binding.js';
import { own, type NativeHandle } from '../net/native-handles.js';
import { nodeBinding } from '../node-binding.js';
import { nodeError } from '../node-errors.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';
import { beginRealCall, completeInPlace, type RealCall } from '../thread-pool/real-work.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** Node's bindings for children, taken when child_process first loads (install). */
interface Bindings {
  Process: { prototype: Record<string, (...args: any[]) => any> };
  /** process_wrap's flags (Node 24 passes spawn flags as a number: kProcessFlagDetached, ...). */
  processConstants: Record<string, number>;
  /** HandleWrap.prototype.close: frees a native handle (a ProcessWrap never spawned, a PipeWrap never opened). */
  nativeClose: (this: NativeHandle, cb?: () => void) => void;
  /** uv_spawn_sync: what child_process.spawnSync runs on; the same options as an asynchronous spawn. */
  spawnSync: { spawn(options: unknown): SyncResult };
}

let bindings: Bindings | undefined;

function B(): Bindings {
  if (bindings !== undefined) return bindings;
  const processWrap = nodeBinding('process_wrap');
  const Pipe = nodeBinding('pipe_wrap').Pipe as { prototype: object };
  bindings = {
    Process: processWrap.Process,
    processConstants: processWrap.constants ?? {},
    nativeClose: Object.getPrototypeOf(Object.getPrototypeOf(Pipe.prototype)).close,
    spawnSync: nodeBinding('spawn_sync'),
  };
  return bindings;
}

interface SyncResult {
  error?: number;
  status: number | null;
  signal: string | null;
  output: Array<Buffer | null> | null;
  pid: number;
}

/** One entry of the `stdio` Node gives the Process handle (getValidStdio in internal/child_process). */
interface StdioEntry {
  type: 'pipe' | 'ignore' | 'inherit' | 'fd' | 'wrap' | string;
  readable?: boolean;
  writable?: boolean;
  handle?: NativeHandle;
  ipc?: boolean;
  fd?: number;
  /** A 'wrap' of another child's output pipe as this child's stdin: a pipeline (cat | grep). */
  source?: ChildPipe;
}

/** The options Node gives the Process handle (normalizeSpawnArguments, then ChildProcess.spawn). */
interface SpawnOptions {
  file: string;
  args?: string[];
  cwd?: string;
  envPairs?: string[];
  stdio: StdioEntry[];
  detached?: boolean;
  uid?: number;
  gid?: number;
  windowsHide?: boolean;
  windowsVerbatimArguments?: boolean;
}

/**
 * What a child's stdin takes before a write waits (write() returns false): a Linux pipe's 64 KiB.
 * (libuv's stdio are socket pairs, whose room depends on the kernel's buffer sizes: 57-94 KiB
 * measured here.)
 */
const PIPE_CAPACITY = 64 * 1024;

/** kill(2) of a process that is gone. */
const ESRCH = -3;
/** spawn_sync's answer for a child it killed at its timeout. */
const ETIMEDOUT = -110;

const kChild = Symbol('dst.child');
const kPipe = Symbol('dst.childPipe');


/**
 * Each host incarnation's children, by pid: those that have not exited yet (process.kill reaches
 * them), and the pids of those that have (process.kill answers ESRCH).
 */
interface Family {
  /** Pids go up from the host's own by small seeded steps, as a busy machine hands them out. */
  readonly pids: RandomStream;
  /** How long each child takes, in virtual time (childDurationNs). */
  readonly durations: RandomStream;
  last: number;
  readonly alive: Map<number, SimChild>;
  readonly gone: Set<number>;
}

const families = new WeakMap<Host, Family>();

/**
 * The children that keep `world` alive, themselves or through their pipes, for the idle report
 * (shims/register-mode.ts): found among the native resources their hosts hold.
 */
export function childKeepAlive(world: World): KeepAlive[] {
  const children = new Set<SimChild>();
  for (const resource of world.natives.held(undefined)) {
    if (resource instanceof SimChild) children.add(resource);
    else if (resource instanceof ChildPipe) children.add(resource.child);
  }
  const out: KeepAlive[] = [];
  for (const child of children) {
    if (child.host.state !== 'running' || child.refsHeld === 0) continue;
    const lingering = child.state === 'lingering'
      ? `, still running: it did not exit within ${CHILD_REAL_LIMIT_MS / 1000} s of real time, so it runs until the program kills it`
      : '';
    out.push({ refs: child.refsHeld, what: `child process ${describe(child.options)} (pid ${child.pid})${lingering}`, site: child.site });
  }
  return out;
}

function familyOf(host: Host): Family {
  let family = families.get(host);
  if (family === undefined) families.set(host, (family = { pids: host.stream('child-pids'), durations: host.stream('child-durations'), last: hostPid(host), alive: new Map(), gone: new Set() }));
  return family;
}

/**
 * How long a child runs, in virtual time: drawn from the seed, not measured (a real duration is
 * the machine's). Most children take 1-5 ms (a fork and exec, a short command), one in ten up to
 * 100 ms (a cold start, a loaded machine), so a timer or a timeout racing a child can fire on
 * either side of its exit, as in production.
 */
function childDurationNs(family: Family): number {
  const { durations } = family;
  const ms = durations.next() < 0.9 ? durations.int(1, 6) : durations.int(5, 101);
  return ms * 1_000_000 + durations.int(0, 1_000_000);
}

/** The child is gone: its pid names no process any more. */
function reap(child: SimChild): void {
  const family = families.get(child.host);
  if (family === undefined || !family.alive.has(child.pid)) return;
  family.alive.delete(child.pid);
  family.gone.add(child.pid);
}

/** A child of a simulated host: its Process handle's simulated state. */
class SimChild {
  /**
   * failed: uv_spawn refused it; pending: spawned, not run yet (its turn is not over); ran: it ran
   * and exited, the program has not seen that yet; lingering: it did not exit by itself within
   * CHILD_REAL_LIMIT_MS, and runs until the program kills it; exiting: its exit is queued;
   * exited: the program has its exit.
   */
  state: 'failed' | 'pending' | 'ran' | 'lingering' | 'exiting' | 'exited' = 'pending';
  /** What the real run gave: status or signal, output, or ETIMEDOUT for a child that lingers. */
  result: SyncResult | undefined;
  /** Its output has been handed to its pipes. */
  outputRead = false;
  pid = 0;
  /** A signal sent before the child ran: it never runs, and ends by this signal. */
  killedBefore: number | undefined;
  /**
   * A signal sent after the child ran, before its exit reached the program: it had done its work
   * (its output is read) and dies by this signal instead of exiting.
   */
  killedAfter: number | undefined;
  /** Its virtual running time: its output and exit reach the program this long after spawn(). */
  durationNs = 0;
  refed = true;
  closed = false;
  holdsRef = false;
  readonly pipes: ChildPipe[] = [];
  call: RealCall | undefined;
  options: SpawnOptions | undefined;
  /** Where the program spawned it, for the idle report. */
  site: string | undefined;

  constructor(
    readonly handle: NativeHandle,
    readonly host: Host,
    readonly scope: AsyncResource | undefined,
  ) {}

  /** A child keeps its host alive until its exit is delivered, unless unref'd. */
  updateRefs(): void {
    const want = this.refed && !this.closed && this.state !== 'failed' && this.state !== 'exited';
    if (want === this.holdsRef) return;
    this.holdsRef = want;
    if (want) this.host.world.refHandle(this.host);
    else this.host.world.unrefHandle(this.host);
  }

  /** The refs of the host this child and its pipes hold. */
  get refsHeld(): number {
    return (this.holdsRef ? 1 : 0) + this.pipes.reduce((sum, pipe) => sum + (pipe.holdsRef ? 1 : 0), 0);
  }

  release(): void {
    this.closed = true;
    this.updateRefs();
    reap(this);
    releaseNative(this.handle);
  }
}

/**
 * The program's end of one 'pipe' stdio of a child: stdin (fd 0), whose writes are the child's
 * input, or an output (fd 1, 2, and any further 'pipe'), whose reads are what the child wrote.
 */
class ChildPipe {
  /** Bytes written to stdin before the child ran. */
  readonly input: Buffer[] = [];
  /** Of them, how many are in the pipe's buffer, and the writes waiting for room in it. */
  private buffered = 0;
  private readonly waiting: NativeHandle[] = [];
  /**
   * Bytes the program's stream held back when the child ran (behind a write that waited): part of
   * the child's input already, so their writes, which come later, are taken as they come.
   */
  private heldBack = 0;
  /** What is still to be read: chunks, then end of file (null); undefined until the child ran. */
  pending: Array<Buffer | null> | undefined;
  reading = false;
  /** The end of file has been read. */
  ended = false;
  /** An output that is another child's stdin (a pipeline): the program reads none of it. */
  diverted = false;
  refed = true;
  closed = false;
  /** Each readStart/readStop starts a new generation: reads queued by an older one do nothing. */
  private generation = 0;
  holdsRef = false;
  bytesRead = 0;
  bytesWritten = 0;
  userBuffer: Uint8Array | undefined;

  constructor(
    readonly handle: NativeHandle,
    readonly child: SimChild,
    readonly fd: number,
  ) {}

  get host(): Host {
    return this.child.host;
  }

  /** libuv: a reading pipe keeps the loop alive until its end of file. */
  updateRefs(): void {
    const want = this.refed && !this.closed && this.reading;
    if (want === this.holdsRef) return;
    this.holdsRef = want;
    if (want) this.host.world.refHandle(this.host);
    else this.host.world.unrefHandle(this.host);
  }

  /**
   * The child ran: what it wrote to this pipe is there to read, then end of file. Returns how many
   * reads libuv makes in each of its polls from now: after a full 64 KiB read it reads again in the
   * same poll (up to 32 times), and the end of file comes with the last data, except after a
   * partial read from libuv 1.52 (Node 24) on, where it comes in the next poll.
   */
  supply(data: Buffer | null | undefined, eof = true): number[] {
    const chunks: Array<Buffer | null> = [];
    if (data !== null && data !== undefined && !this.diverted) {
      for (let at = 0; at < data.length; at += READ_CHUNK_BYTES) chunks.push(data.subarray(at, at + READ_CHUNK_BYTES));
    }
    const last = chunks[chunks.length - 1];
    const polls: number[] = [];
    for (let left = chunks.length; left > 0; left -= READS_PER_POLL) polls.push(Math.min(left, READS_PER_POLL));
    if (eof) {
      if (last === undefined || last!.length === READ_CHUNK_BYTES || HANGUP_EOF) {
        if (polls.length === 0 || polls[polls.length - 1] === READS_PER_POLL) polls.push(1);
        else polls[polls.length - 1]!++;
      } else polls.push(1);
      chunks.push(null);
    }
    this.pending = [...(this.pending ?? []), ...chunks];
    return polls;
  }

  /**
   * Queues `count` read events, each of which delivers what is next to read, while this pipe
   * reads: at this instant, or (`nextPoll`) in the next poll of the host's loop, after this turn's
   * immediates and close callbacks.
   */
  scheduleReads(count: number, nextPoll = false): void {
    if (!this.reading || this.closed || this.pending === undefined) return;
    const generation = this.generation;
    const world = this.host.world as World;
    const read = (): void => {
      if (generation !== this.generation || this.closed || this.pending === undefined || this.pending.length === 0) return;
      this.deliver(this.pending.shift()!);
    };
    for (let i = 0; i < count; i++) {
      if (nextPoll) world.scheduleNextPoll(this.host, read, this.child.scope);
      else world.schedule(this.host, 0, 'io', read, undefined, true, this.child.scope);
    }
  }

  /** Queues a read event for everything still to be read (reading again after a stop). */
  pump(): void {
    this.generation++;
    this.scheduleReads(this.pending?.length ?? 0);
  }

  private deliver(chunk: Buffer | null): void {
    if (chunk === null) {
      this.ended = true;
      this.reading = false;
      this.generation++;
      this.updateRefs();
      deliverReadStatus(this.handle, UV.EOF);
      return;
    }
    this.bytesRead += chunk.length;
    if (this.userBuffer !== undefined) {
      // Larger than the user's buffer: the rest waits for the next read.
      const fits = chunk.subarray(0, this.userBuffer.byteLength);
      if (fits.length < chunk.length) {
        this.pending!.unshift(chunk.subarray(fits.length));
        this.scheduleReads(1);
      }
      this.userBuffer = deliverRead(this.handle, fits, this.userBuffer);
      return;
    }
    deliverRead(this.handle, Buffer.from(chunk), undefined);
  }

  readStart(): number {
    if (this.closed) return UV.EINVAL;
    // Reading again after the end of file: libuv would get it again at once; Node never asks.
    if (this.ended) return UV.ENOTCONN;
    if (this.reading) return 0;
    this.reading = true;
    this.updateRefs();
    this.pump();
    return 0;
  }

  readStop(): number {
    this.reading = false;
    this.generation++;
    this.updateRefs();
    return 0;
  }

  /**
   * A write of the program (`req`: Node 20/22's WriteWrap; null on Node 24, which takes a pending
   * one back). Before the child runs, into the pipe's buffer: the child reads it all when it runs.
   * Beyond PIPE_CAPACITY the write waits, as for a child that has not read yet (write() returns
   * false), and completes once the child has run. After that, the child has had its input.
   */
  write(req: NativeHandle | null, data: Buffer): number | NativeHandle {
    noteWrite(data.length, false);
    if (this.closed) return UV.EBADF;
    const child = this.child;
    if (child.state === 'pending') {
      if (this.fd === 0) this.input.push(Buffer.from(data));
      this.bytesWritten += data.length;
      this.buffered += data.length;
      if (this.buffered <= PIPE_CAPACITY) return 0;
      noteWrite(data.length, true);
      const pending = pendingWriteRequest(req);
      pending.bytes = data.length;
      this.waiting.push(pending);
      return req === null ? pending : 0;
    }
    // A child that failed to start has no reader: libuv's write fails on the closed pipe.
    if (child.state === 'failed' || child.state === 'exited') return UV.EPIPE;
    if (this.heldBack >= data.length) {
      this.heldBack -= data.length;
      this.bytesWritten += data.length;
      return 0;
    }
    throw new UnsupportedError(
      `writing to a child process's stdin after the turn that spawned it (pid ${child.pid}, ${describe(child.options)})`,
      'a child runs to completion when the turn that spawned it is over, with what was written to its stdin in that turn as its input; ' +
        `write all of its input (and end() it) right after spawn(), or, for a child that must talk back and forth with its parent, ${AS_HOST}`,
    );
  }

  /** The handle's writeQueueSize: the waiting writes' bytes beyond what the pipe's buffer took. */
  writeQueueSize(): number {
    return this.waiting.length === 0 ? 0 : Math.max(0, this.buffered - PIPE_CAPACITY);
  }

  /**
   * The child runs now: its input is what was written in its spawning turn, with what the
   * program's stream still holds back behind a write that waits for room (its writable buffer:
   * an end(data) after a large write), which the stream writes once that write completes.
   */
  takeInput(): Buffer {
    if (this.waiting.length > 0) {
      const socket = ownerOf(this.handle) as { writableBuffer?: Array<{ chunk: unknown; encoding: unknown }> } | undefined;
      for (const { chunk, encoding } of socket?.writableBuffer ?? []) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, Buffer.isEncoding(String(encoding)) ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
        this.input.push(bytes);
        this.heldBack += bytes.length;
      }
    }
    return Buffer.concat(this.input);
  }

  /** The child has run and read all of its input: the writes that waited complete. */
  inputRead(): void {
    const world = this.host.world as World;
    for (const req of this.waiting.splice(0)) {
      world.schedule(this.host, 0, 'io', () => {
        if (!this.closed) req.oncomplete(0, this.handle, undefined);
      }, undefined, true, this.child.scope);
    }
  }

  close(callback: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.reading = false;
    this.generation++;
    this.updateRefs();
    this.host.world.natives.drop(this.host, this);
    if (typeof callback === 'function') {
      (this.host.world as World).scheduleClose(this.host, () => (callback as () => void).call(this.handle), undefined, this.child.scope);
    }
    releaseNative(this.handle);
  }

  release(): void {
    this.closed = true;
    this.reading = false;
    this.updateRefs();
    releaseNative(this.handle);
  }
}

/** Frees a native handle that never touched the OS; its close callback (if any) is the simulation's. */
function releaseNative(handle: NativeHandle): void {
  forgetHost(handle);
  B().nativeClose.call(handle);
}

function describe(options: SpawnOptions | undefined): string {
  if (options === undefined) return 'a child';
  const args = (options.args ?? []).slice(1).map((arg) => JSON.stringify(arg));
  return `${options.file}${args.length > 0 ? ` ${args.join(' ')}` : ''}`;
}

// ---- what uv_spawn refuses at once ---------------------------------------------------------------

function errnoOf(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? uvErrno(code) : UV.EINVAL;
}

/** execve(2)'s answer for `path`, short of running it: 0, or EACCES/ENOENT/ENOTDIR. */
function executable(path: string): number {
  try {
    const stats = fs.statSync(path);
    if (!stats.isFile()) return uvErrno('EACCES');
    fs.accessSync(path, fs.constants.X_OK);
    return 0;
  } catch (error) {
    return errnoOf(error);
  }
}

/**
 * What uv_spawn would return for these options without running anything: chdir(2) of `cwd`, then
 * the file as execvp finds it, on the PATH of the child's environment (libuv's uv__execvpe: a
 * name with a slash is taken as it is; otherwise each PATH entry in turn, EACCES if one was found
 * but could not be run, else ENOENT; no PATH: "/usr/bin:/bin").
 */
function spawnError(options: SpawnOptions): number {
  return onRealDisk(() => {
    const cwd = typeof options.cwd === 'string' && options.cwd.length > 0 ? options.cwd : undefined;
    if (cwd !== undefined) {
      try {
        if (!fs.statSync(cwd).isDirectory()) return uvErrno('ENOTDIR');
        fs.accessSync(cwd, fs.constants.X_OK);
      } catch (error) {
        return errnoOf(error);
      }
    }
    const file = options.file;
    if (file.length === 0) return uvErrno('ENOENT');
    const base = cwd ?? process.cwd();
    if (file.includes('/')) return executable(nodePath.resolve(base, file));
    const pathEntry = (options.envPairs ?? []).find((pair) => pair.startsWith('PATH='));
    const search = pathEntry === undefined ? '/usr/bin:/bin' : pathEntry.slice('PATH='.length);
    let denied = false;
    for (const dir of search.split(':')) {
      const result = executable(nodePath.resolve(base, dir === '' ? '.' : dir, file));
      if (result === 0) return 0;
      if (result === uvErrno('EACCES')) denied = true;
    }
    return uvErrno(denied ? 'EACCES' : 'ENOENT');
  });
}

// ---- the Process handle ------------------------------------------------------------------------

/** The stdio spawnSync is given for the real run: the program's pipes become captured pipes. */
function realStdio(child: SimChild, stdio: StdioEntry[]): unknown[] {
  return stdio.map((entry, fd) => {
    if (entry.type === 'pipe') {
      const pipe = child.pipes.find((p) => p.fd === fd);
      if (fd === 0) return { type: 'pipe', readable: true, writable: false, input: pipe?.takeInput() ?? Buffer.alloc(0) };
      return { type: 'pipe', readable: false, writable: true };
    }
    if (entry.source !== undefined) {
      // What the other child wrote there, then its end: it ran first (spawned first).
      const { child: writer, fd: from } = entry.source;
      return { type: 'pipe', readable: true, writable: false, input: writer.result?.output?.[from] ?? Buffer.alloc(0) };
    }
    if (entry.type === 'wrap') return { type: 'fd', fd: entry.fd };
    return entry;
  });
}

/** A forked child, or a simulated socket as a child's stdio: what cannot be had (else undefined). */
function stdioRefusal(host: Host, stdio: StdioEntry[]): UnsupportedError | undefined {
  for (const [fd, entry] of stdio.entries()) {
    if (entry.ipc === true) {
      return new UnsupportedError(
        `child_process.fork(), or any child process with an IPC channel ('ipc' in its stdio; cluster's workers too)`,
        `a forked child runs alongside the simulation and talks with its parent in real time; ${AS_HOST}`,
      );
    }
    if (entry.type === 'wrap') {
      const handle = entry.handle;
      const source = handle?.[kPipe] as ChildPipe | undefined;
      if (fd === 0 && source !== undefined && source.fd !== 0 && source.host === host && source.child.state !== 'failed') {
        // Another child's output as this one's input: its bytes go here, not to the program.
        source.diverted = true;
        entry.source = source;
        continue;
      }
      const realFd = typeof handle?.fd === 'number' ? handle.fd : -1;
      if (realFd < 0) {
        return new UnsupportedError(
          `a socket of the simulation as a child process's stdio ${fd} (host "${host.name}")`,
          `a child is a real process and cannot read or write a simulated socket (another child's output can be its stdin, as in a pipeline, but not its stdout); use 'pipe' and copy between the two, or ${AS_HOST}`,
        );
      }
      entry.fd = realFd;
    }
  }
  return undefined;
}

/**
 * The node:child_process function the program called (exec, execFile, fork, spawn): the outermost
 * of that module's frames on the stack, which every one of them reaches spawn() through.
 */
function calledApi(): string {
  let name = 'spawn';
  for (const line of (captureStack(calledApi, 24).stack ?? '').split('\n')) {
    const match = /at (?:Object\.)?(\w+) \(node:child_process:/.exec(line);
    if (match !== null) name = match[1]!;
  }
  return `child_process.${name}()`;
}

function simulatedSpawn(handle: NativeHandle, host: Host, options: SpawnOptions): number {
  const stdio = Array.isArray(options.stdio) ? options.stdio : [];
  const refusal = simulatedDiskRefusal(calledApi(), host) ?? stdioRefusal(host, stdio);
  if (refusal !== undefined) {
    // What Node made for the child is never used: freed, as Node frees it when spawn fails.
    for (const entry of stdio) if (entry.type === 'pipe' && entry.handle !== undefined) releaseNative(entry.handle);
    throw refusal;
  }
  const child = new SimChild(handle, host, captureContext('PROCESSWRAP'));
  child.options = options;
  // Always: spawning is rare and costly anyway, and the idle report names the line.
  const site = captureSite();
  child.site = site === undefined ? undefined : `spawn() at ${site}`;
  handle[kChild] = child;
  own(handle, 'kill', kill);
  own(handle, 'close', closeProcess);
  own(handle, 'ref', refProcess);
  own(handle, 'unref', unrefProcess);
  own(handle, 'hasRef', hasRefProcess);
  host.world.natives.hold(host, child);
  for (const [fd, entry] of stdio.entries()) {
    if (entry.type !== 'pipe' || entry.handle === undefined) continue;
    const pipe = new ChildPipe(entry.handle, child, fd);
    child.pipes.push(pipe);
    simulatePipe(pipe);
    host.world.natives.hold(host, pipe);
  }
  const error = spawnError(options);
  if (error !== 0) {
    // Node emits 'error' from a tick and closes the handle; the pipes read end of file.
    child.state = 'failed';
    for (const pipe of child.pipes) if (pipe.fd !== 0) pipe.supply(null);
    return error;
  }
  const family = familyOf(host);
  family.last += family.pids.int(1, 40);
  child.pid = family.last;
  own(handle, 'pid', child.pid);
  family.alive.set(child.pid, child);
  child.durationNs = childDurationNs(family);
  child.updateRefs();
  child.call = beginRealCall(host, child.scope);
  // Runs after this turn's code, ticks and promise jobs: the simulation is held meanwhile.
  queueOwnImmediate(() => run(child, stdio));
  return 0;
}

/**
 * The longest a child runs for real (5 s) before it counts as one that does not exit by itself: a
 * server, `cat` waiting for input that never comes, `sleep 1000` under a `timeout`. It is then
 * killed for real, and in the simulation it goes on running until the program kills it.
 */
export const CHILD_REAL_LIMIT_MS = 5_000;

/** The child runs for real, once; what it did reaches the program in events from here. */
function run(child: SimChild, stdio: StdioEntry[]): void {
  const options = child.options!;
  if (child.killedBefore !== undefined) {
    child.result = { status: null, signal: signalName(child.killedBefore), output: null, pid: child.pid };
  } else {
    const { file, args, envPairs, uid, gid, windowsHide, windowsVerbatimArguments } = options;
    // uv_spawn ignores an empty cwd (ProcessWrap does; spawn_sync would chdir to it).
    const cwd = typeof options.cwd === 'string' && options.cwd.length > 0 ? options.cwd : undefined;
    // In a process group of its own, so that a child killed at the limit takes what it started
    // with it: `exec('node server.js')` is a shell whose node would run on, an orphan, for ever.
    child.result = onRealDisk(() =>
      B().spawnSync.spawn({
        file, args, cwd, envPairs, detached: true, uid, gid, windowsHide, windowsVerbatimArguments,
        stdio: realStdio(child, stdio),
        maxBuffer: Infinity,
        timeout: CHILD_REAL_LIMIT_MS,
        killSignal: os.constants.signals.SIGKILL,
      }),
    );
    if (child.result.error === ETIMEDOUT && child.result.pid > 0) {
      (process as unknown as { _kill(pid: number, signal: number): number })._kill(-child.result.pid, os.constants.signals.SIGKILL);
    }
  }
  child.state = child.result.error === ETIMEDOUT ? 'lingering' : 'ran';
  for (const pipe of child.pipes) pipe.inputRead();
  // The simulation goes on; what the child did reaches the program at the end of its duration
  // (what keeps the host alive meanwhile is the child's handle and its pipes, as in libuv).
  const world = child.host.world as World;
  world.schedule(child.host, child.durationNs, 'io', () => arrive(child), undefined, false, child.scope);
  completeInPlace(child.call!);
}

function signalName(signum: number): string {
  const known = os.constants.signals as Record<string, number>;
  return Object.keys(known).find((name) => known[name] === signum) ?? `${signum}`;
}

/** The end of the child's duration: its output, and its exit unless it is one that lingers. */
function arrive(child: SimChild): void {
  if (child.state === 'ran') deliver(child, exitOf(child));
  else if (child.state === 'lingering' && !child.outputRead) deliver(child, undefined);
}

/** The exit the program sees: by the signal it sent, else the child's own. */
function exitOf(child: SimChild): { code: number; signal: string } {
  const result = child.result!;
  if (typeof result.error === 'number' && result.error < 0 && result.error !== ETIMEDOUT) return { code: result.error, signal: '' };
  if (child.killedAfter !== undefined) return { code: 0, signal: signalName(child.killedAfter) };
  return { code: result.signal === null ? (result.status ?? 0) : 0, signal: result.signal ?? '' };
}

/**
 * What libuv's polls bring: in each poll, each output pipe's reads in fd order, and in the first,
 * after them, the exit if there is one (the SIGCHLD's signal pipe is read after them). The output
 * is read once, the first time; without an exit (a child that lingers) no end of file either.
 */
function deliver(child: SimChild, exit: { code: number; signal: string } | undefined): void {
  const outputs = child.pipes.filter((pipe) => pipe.fd !== 0);
  const output = child.outputRead ? undefined : child.result?.output;
  child.outputRead = true;
  const polls = outputs.map((pipe) => pipe.supply(output?.[pipe.fd] ?? null, exit !== undefined));
  outputs.forEach((pipe, i) => pipe.scheduleReads(polls[i]![0] ?? 0));
  if (exit === undefined) return;
  child.state = 'exiting';
  const world = child.host.world as World;
  world.schedule(child.host, 0, 'io', () => {
    child.state = 'exited';
    child.updateRefs();
    reap(child);
    if (!child.closed) child.handle.onexit(exit.code, exit.signal);
    // What the first poll left: read in the next (the end of file after a partial read, Node 24).
    outputs.forEach((pipe, i) => pipe.scheduleReads(polls[i]!.slice(1).reduce((sum, n) => sum + n, 0), true));
  }, undefined, true, child.scope);
}

function childOf(handle: NativeHandle): SimChild {
  return handle[kChild] as SimChild;
}

/**
 * uv_process_kill. Before the child ran, it never will: it ends by the signal. After, it ends by
 * the signal now, its work done (a child that lingers, its output so far): what it wrote is read,
 * then the exit. A child whose exit has arrived is gone.
 */
function signalChild(child: SimChild, signal: number): number {
  if (child.state === 'exited' || child.state === 'failed') return ESRCH;
  // Dead, not reaped yet (its exit is on the way): kill(2) of a zombie succeeds, and changes nothing.
  if (signal === 0 || child.state === 'exiting') return 0;
  if (child.state === 'pending') {
    child.killedBefore ??= signal;
    return 0;
  }
  child.killedAfter = signal;
  deliver(child, { code: 0, signal: signalName(signal) });
  return 0;
}

function kill(this: NativeHandle, signal: number): number {
  return signalChild(childOf(this), signal);
}

function closeProcess(this: NativeHandle, callback?: () => void): void {
  const child = childOf(this);
  if (child.closed) return;
  child.closed = true;
  child.updateRefs();
  child.host.world.natives.drop(child.host, child);
  if (typeof callback === 'function') (child.host.world as World).scheduleClose(child.host, () => callback.call(this), undefined, child.scope);
  releaseNative(this);
}

function refProcess(this: NativeHandle): void {
  const child = childOf(this);
  child.refed = true;
  child.updateRefs();
}

function unrefProcess(this: NativeHandle): void {
  const child = childOf(this);
  child.refed = false;
  child.updateRefs();
}

function hasRefProcess(this: NativeHandle): boolean {
  const child = childOf(this);
  return child.refed && !child.closed;
}

// ---- the program's ends of the stdio pipes ---------------------------------------------------------

function pipeOf(handle: NativeHandle): ChildPipe {
  return handle[kPipe] as ChildPipe;
}

function simulatePipe(pipe: ChildPipe): void {
  const handle = pipe.handle;
  handle[kPipe] = pipe;
  own(handle, 'readStart', function readStart(this: NativeHandle) {
    return pipeOf(this).readStart();
  });
  own(handle, 'readStop', function readStop(this: NativeHandle) {
    return pipeOf(this).readStop();
  });
  own(handle, 'writeBuffer', function writeBuffer(this: NativeHandle, req: NativeHandle | null, data: Uint8Array) {
    if (!(data instanceof Uint8Array)) throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'Second argument must be a buffer', writeBuffer);
    return pipeOf(this).write(req, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  own(handle, 'writev', function writev(this: NativeHandle, req: NativeHandle | null, chunks: unknown[], allBuffers: boolean) {
    return pipeOf(this).write(req, joinWritev(chunks, allBuffers));
  });
  for (const [name, encoding] of [['writeUtf8String', 'utf8'], ['writeAsciiString', 'ascii'], ['writeLatin1String', 'latin1'], ['writeUcs2String', 'ucs2']] as const) {
    own(handle, name, function (this: NativeHandle, req: NativeHandle | null, s: string) {
      return pipeOf(this).write(req, Buffer.from(String(s), encoding));
    });
  }
  own(handle, 'shutdown', function shutdown(this: NativeHandle, req: NativeHandle) {
    const p = pipeOf(this);
    // Completes as libuv's does, from the pending queue; the child has its end of file already
    // (it runs with what was written before it), or gets it when it runs.
    const world = p.host.world as World;
    world.pendingPhase(world.schedule(p.host, 0, 'io', () => req.oncomplete(0), undefined, true, p.child.scope), p.host);
    return 0;
  });
  own(handle, 'close', function close(this: NativeHandle, callback?: () => void) {
    pipeOf(this).close(callback);
  });
  own(handle, 'ref', function ref(this: NativeHandle) {
    const p = pipeOf(this);
    p.refed = true;
    p.updateRefs();
  });
  own(handle, 'unref', function unref(this: NativeHandle) {
    const p = pipeOf(this);
    p.refed = false;
    p.updateRefs();
  });
  own(handle, 'hasRef', function hasRef(this: NativeHandle) {
    const p = pipeOf(this);
    return p.refed && !p.closed;
  });
  own(handle, 'useUserBuffer', function useUserBuffer(this: NativeHandle, buffer: Uint8Array) {
    pipeOf(this).userBuffer = buffer;
  });
  own(handle, 'setBlocking', () => 0);
  // libuv's queue: what the pipe's buffer has no room for, until the child has read its input.
  Object.defineProperty(handle, 'writeQueueSize', { get: () => pipe.writeQueueSize(), configurable: true });
  own(handle, 'fd', -1);
  Object.defineProperty(handle, 'bytesRead', { get: () => pipe.bytesRead, configurable: true });
  Object.defineProperty(handle, 'bytesWritten', { get: () => pipe.bytesWritten, configurable: true });
}

// ---- process.kill of a child's pid -----------------------------------------------------------------

/** The host's own pid (process-host.ts registers how it is drawn). */
let hostPid: (host: Host) => number = () => 0;

export function setHostPidSource(source: (host: Host) => number): void {
  hostPid = source;
}

/**
 * process.kill(pid, signal) from `host` of one of its children: what kill(2) returns (0, or ESRCH
 * for a child that has exited), or undefined when `pid` is no child of `host`.
 */
export function killChild(host: Host, pid: number, signal: number): number | undefined {
  const family = families.get(host);
  const child = family?.alive.get(pid);
  if (child !== undefined) return signalChild(child, signal);
  return family?.gone.has(pid) === true ? ESRCH : undefined;
}

/**
 * The spawn's options as Node 20 and 22 pass them (one object), from Node 24's arguments too
 * (file, args, cwd, envPairs, stdio, flags, uid, gid); undefined for what Node's own spawn must
 * reject.
 */
function spawnOptions(args: unknown[]): SpawnOptions | undefined {
  const [first] = args;
  if (typeof first === 'object' && first !== null) {
    const options = first as SpawnOptions;
    return typeof options.file === 'string' && Array.isArray(options.stdio) ? options : undefined;
  }
  const [file, argv, cwd, envPairs, stdio, flags, uid, gid] = args as [string, string[], string | undefined, string[], StdioEntry[], number, number | undefined, number | undefined];
  if (typeof file !== 'string' || !Array.isArray(stdio)) return undefined;
  const constants = B().processConstants;
  const has = (name: string): boolean => constants[name] !== undefined && (Number(flags) & constants[name]!) !== 0;
  return {
    file, args: argv, cwd, envPairs, stdio, uid, gid,
    detached: has('kProcessFlagDetached'),
    windowsHide: has('kProcessFlagWindowsHide'),
    windowsVerbatimArguments: has('kProcessFlagWindowsVerbatimArguments'),
  };
}

export const childProcessShim: Shim = {
  name: 'child-processes',
  builtins: ['child_process'],
  install(patches: PatchSet) {
    const { Process } = B();
    const realSpawn = Process.prototype.spawn!;
    const spawn = function spawn(this: NativeHandle, ...args: unknown[]): number {
      const host = currentHost();
      const options = host === undefined ? undefined : spawnOptions(args);
      if (options === undefined) return Reflect.apply(realSpawn, this, args) as number;
      return simulatedSpawn(this, host!, options);
    };
    patches.replace(Process.prototype, 'spawn', spawn);
  },
};
