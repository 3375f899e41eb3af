/**
 * fs.watchFile / fs.unwatchFile inside a host: a stat poll on the host's clock, as libuv's
 * uv_fs_poll is a stat poll on the loop's. Node's own JavaScript (fs.watchFile, its StatWatcher,
 * the 'change' and 'stop' events, ref/unref counting) is kept; only the native handle's start,
 * close, ref, unref and hasRef are replaced for handles started inside a host. What it reads is
 * the host's disk through the simulated fs (the real disk or DST_DISK=simulated), held in virtual
 * time like any other fs call, so a program's own writes are seen at the same poll on every run.
 *
 * uv_fs_poll's rules (libuv src/fs-poll.c): the first stat is made at once and only recorded; a
 * failing stat calls back once per new error code, with zeroed stats; a successful stat calls
 * back when any of ctime, mtime, birthtime, size, mode, uid, gid, ino or dev differs from the
 * last one (or after an error); the next poll is due `interval - (now - start) % interval` ms
 * after each stat completes. Node's StatWatcher passes the status and a stats array (current
 * fields, then previous) to onchange, which decides what to emit.
 */
import type { AsyncResource } from 'node:async_hooks';
import fs from 'node:fs';
import { captureContext } from '../async-hooks/async-context.js';
import { UnsupportedError } from '../../runtime/errors.js';
import { currentHost, type Host } from '../context.js';
import { nodeBinding } from '../node-binding.js';
import { mirrorSignature, privateSymbolFinder, type PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';
import type { SimEvent } from '../../runtime/scheduler/event.js';
import { deliverAfter } from '../thread-pool/real-work.js';
import { diskOf } from './disk.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type NativeWatcher = Record<string | symbol, any>;

const binding = nodeBinding('fs');
const StatWatcher = binding.StatWatcher as { prototype: Record<string, (...args: any[]) => any> };
const proto = StatWatcher.prototype;
const real = { start: proto.start!, close: proto.close!, ref: proto.ref!, unref: proto.unref!, hasRef: proto.hasRef! };

/** Node's fields of one stats record, in its binding's order (lib/internal/fs/utils.js). */
const FIELDS = 18;
const NS_PER_S = 1_000_000_000n;

/** One simulated poll: the host, its timer, and what the last stat gave. */
interface Poll {
  host: Host;
  path: string;
  intervalMs: number;
  startMs: number;
  refed: boolean;
  closed: boolean;
  bigint: boolean;
  timer: SimEvent | undefined;
  /** The context Node's handle was started in: its polls and callbacks run in it. */
  scope: AsyncResource | undefined;
  /** 0 before the first stat, 1 after a successful one, a negative errno after a failure. */
  status: number;
  last: bigint[];
}

const polls = new WeakMap<object, Poll>();
/** The worlds whose hosts' going down stops their watchers (stopWatchers). */
const worldsSeen = new WeakSet<object>();
/** The live simulated poll of each path (a path has one watcher in Node's map at a time). */
const pollOfPath = new Map<string, Poll>();
const realWatchFile = fs.watchFile;
/** Taken at load: a program's spy on fs (sinon, graceful-fs) does not see the watcher's polls, as it does not see libuv's. */
const statSync = fs.statSync;
const statAsync = fs.stat;
const realUnwatchFile = fs.unwatchFile;
const findOwner = privateSymbolFinder('owner_symbol', () => ({}));
const findUseBigint = privateSymbolFinder('kUseBigint', () => ({}));

/** Whether the StatWatcher (Node's JS object) that owns `handle` was made with { bigint: true }. */
function usesBigint(handle: NativeWatcher): boolean {
  const ownerKey = findOwner(handle);
  const owner = ownerKey === undefined ? undefined : (handle[ownerKey] as Record<symbol, unknown> | undefined);
  if (owner === undefined) return false;
  const key = findUseBigint(owner);
  return key !== undefined && owner[key] === true;
}

const ZERO: bigint[] = new Array(FIELDS).fill(0n);

/** A BigIntStats as the binding's fields (times as seconds and nanoseconds). */
function fieldsOf(s: fs.BigIntStats): bigint[] {
  const time = (ns: bigint): [bigint, bigint] => [ns / NS_PER_S, ns % NS_PER_S];
  return [
    s.dev, s.mode, s.nlink, s.uid, s.gid, s.rdev, s.blksize, s.ino, s.size, s.blocks,
    ...time(s.atimeNs), ...time(s.mtimeNs), ...time(s.ctimeNs), ...time(s.birthtimeNs),
  ];
}

/** libuv's statbuf_eq: ctime, mtime, birthtime, size, mode, uid, gid, ino, dev. */
function same(a: bigint[], b: bigint[]): boolean {
  for (const i of [14, 15, 12, 13, 16, 17, 8, 1, 3, 4, 7, 0]) if (a[i] !== b[i]) return false;
  return true;
}

function callBack(handle: NativeWatcher, poll: Poll, status: number, current: bigint[], previous: bigint[]): void {
  const values = [...current, ...previous];
  const array = poll.bigint ? BigInt64Array.from(values) : Float64Array.from(values, Number);
  handle.onchange(status, array);
}

/**
 * One poll. On the real disk the stat is taken at this moment, synchronously, and what it found
 * reaches the watcher in an 'io' event at this instant (as libuv's stat completes on the loop).
 * Handed to the thread pool, it raced the program's next statements, so that `fs.watchFile(f)`
 * then `fs.unlinkSync(f)` reported the removal at the first stat in some runs of a seed and at
 * the next poll in others (Node's test-fs-watch-file-enoent-after-deletion, 5 runs in 12 on
 * Node 24). A simulated disk serves an asynchronous stat at the moment it is made already, and
 * delivers it after its latency without blocking the host, as the thread pool would.
 */
function stat(handle: NativeWatcher, poll: Poll): void {
  poll.timer = undefined;
  const host = poll.host;
  if (poll.closed || host.state !== 'running') return;
  if (diskOf(host) !== undefined) {
    statAsync(poll.path, { bigint: true }, (error, stats) => polled(handle, poll, error, stats));
    return;
  }
  let error: NodeJS.ErrnoException | null = null;
  let stats: fs.BigIntStats | undefined;
  try {
    stats = statSync(poll.path, { bigint: true });
  } catch (thrown) {
    error = thrown as NodeJS.ErrnoException;
  }
  deliverAfter(host, 0, poll.scope, () => polled(handle, poll, error, stats));
}

/** What one poll's stat found reaches the watcher (libuv's poll_cb rules, in the header). */
function polled(handle: NativeWatcher, poll: Poll, error: NodeJS.ErrnoException | null, stats: fs.BigIntStats | undefined): void {
  if (poll.closed) return;
  if (error !== null) {
    const code = -(Math.abs(error.errno ?? 2));
    if (poll.status !== code) {
      poll.status = code;
      callBack(handle, poll, code, ZERO, poll.last);
    }
  } else {
    const current = fieldsOf(stats!);
    if (poll.status < 0 || (poll.status === 1 && !same(poll.last, current))) callBack(handle, poll, 0, current, poll.last);
    poll.last = current;
    poll.status = 1;
  }
  if (poll.closed) return;
  const nowMs = Math.floor(poll.host.clock.perfNowMs(poll.host.readNowNs()));
  const delayMs = poll.intervalMs - ((nowMs - poll.startMs) % poll.intervalMs);
  poll.timer = poll.host.world.schedule(poll.host, poll.host.clock.virtualDelayNs(delayMs * 1e6), 'timeout', () => stat(handle, poll), undefined, false, poll.scope);
}

function start(this: NativeWatcher, path: string, interval: number): number {
  const host = currentHost();
  if (host === undefined || polls.has(this)) return Reflect.apply(real.start, this, [path, interval]) as number;
  const poll: Poll = {
    host,
    path,
    intervalMs: Math.max(1, interval),
    startMs: Math.floor(host.clock.perfNowMs(host.readNowNs())),
    refed: Reflect.apply(real.hasRef, this, []) as boolean,
    closed: false,
    bigint: usesBigint(this),
    timer: undefined,
    scope: captureContext('STATWATCHER'),
    status: 0,
    last: ZERO,
  };
  polls.set(this, poll);
  pollOfPath.set(path, poll);
  if (poll.refed) host.world.refHandle(host);
  // The first stat at once (libuv queues it on the thread pool as the poll starts).
  stat(this, poll);
  return 0;
}

function close(this: NativeWatcher, ...args: unknown[]): unknown {
  const poll = polls.get(this);
  if (poll !== undefined && !poll.closed) {
    poll.closed = true;
    if (pollOfPath.get(poll.path) === poll) pollOfPath.delete(poll.path);
    if (poll.timer !== undefined) poll.host.world.cancel(poll.timer);
    if (poll.refed) poll.host.world.unrefHandle(poll.host);
    poll.refed = false;
  }
  return Reflect.apply(real.close, this, args);
}

function ref(this: NativeWatcher): unknown {
  const poll = polls.get(this);
  if (poll !== undefined && !poll.closed && !poll.refed) {
    poll.refed = true;
    poll.host.world.refHandle(poll.host);
  }
  return Reflect.apply(real.ref, this, []);
}

function unref(this: NativeWatcher): unknown {
  const poll = polls.get(this);
  if (poll !== undefined && !poll.closed && poll.refed) {
    poll.refed = false;
    poll.host.world.unrefHandle(poll.host);
  }
  return Reflect.apply(real.unref, this, []);
}

function hasRef(this: NativeWatcher): unknown {
  const poll = polls.get(this);
  return poll === undefined ? Reflect.apply(real.hasRef, this, []) : poll.refed && !poll.closed;
}

/**
 * fs.watchFile inside a host. Node keeps one watcher per resolved path for the whole process
 * (lib/fs.js statWatchers): a second watchFile of the path joins it. Within one host that is
 * Node's behaviour; across hosts (or with a watcher of the test runner) the listener would run
 * in another host's poll, so it is refused. A host that goes down stops its watchers, so that its
 * next incarnation (or the next run) starts its own.
 */
function watchFile(this: unknown, ...args: unknown[]): unknown {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(realWatchFile, this, args);
  const stat = Reflect.apply(realWatchFile, this, args) as { _handle?: object | null };
  const poll = stat._handle == null ? undefined : polls.get(stat._handle);
  if (poll === undefined || poll.host !== host) {
    const listener = typeof args[1] === 'function' ? args[1] : args[2];
    Reflect.apply(realUnwatchFile, fs, [args[0], listener]);
    throw new UnsupportedError(
      `fs.watchFile() of ${String(args[0])}, which ${poll === undefined ? 'code outside the simulation' : `host "${poll.host.name}"`} already watches`,
      'Node keeps one watcher per path for the whole process; watch a path from one host only (and not from the test runner too), or poll it with fs.stat from a simulated timer',
    );
  }
  if (!worldsSeen.has(host.world)) {
    worldsSeen.add(host.world);
    host.world.hosts.onDown((down) => stopWatchers((p) => p.host === down));
  }
  return stat;
}

/**
 * Stops the simulated watchers `which` picks, with Node's own unwatchFile: all their listeners
 * go, the watcher stops (close() below) and leaves Node's map, in the order the polls started.
 */
function stopWatchers(which: (poll: Poll) => boolean): void {
  for (const [path, poll] of [...pollOfPath]) if (which(poll)) Reflect.apply(realUnwatchFile, fs, [path]);
}

export const statWatcherShim: Shim = {
  name: 'fs-stat-watcher',
  install(patches: PatchSet) {
    mirrorSignature(watchFile, realWatchFile);
    patches.replace(fs as unknown as Record<string, unknown>, 'watchFile', watchFile);
    // The run is over: the hosts' watchers stop and leave Node's map (before the handle methods
    // above are restored), so that a later run or the test runner watches those paths afresh.
    patches.onRestore(() => stopWatchers(() => true));
    patches.replace(proto, 'start', start);
    patches.replace(proto, 'close', close);
    patches.replace(proto, 'ref', ref);
    patches.replace(proto, 'unref', unref);
    patches.replace(proto, 'hasRef', hasRef);
  },
};
