/**
 * Reading a Blob: `blob.arrayBuffer()`, `text()`, `bytes()` and `stream()` pull the data from a
 * native reader (Node's BlobReader, one class for every Blob). In-memory data comes back
 * synchronously, inside `pull()`; a file-backed Blob (`fs.openAsBlob(path)`) reads the file on
 * the thread pool and calls back later. Such a later callback is real work the simulation waits
 * for (real-work.ts): virtual time stands still until the read is done, and the callback reaches
 * the host as an 'io' event at that instant, in call order with the host's other real calls.
 * Synchronous callbacks, and pulls made outside every host, are left as they are.
 *
 * Node 24's `stream()` of a file-backed Blob also sees "blocked" (status 2) synchronously: it then
 * waits for the wakeup function it gave the reader (`setWakeup`), which native code calls when the
 * read is done. A blocked pull holds the simulation until that wakeup, delivered the same way.
 * Node 24's blob streams then go on from an immediate of the real `setImmediate` (lib/internal/blob.js
 * took it at startup), which the simulation cannot see being queued: so after each delivered
 * callback or wakeup, and after each synchronous callback of in-memory data that is not the last
 * chunk (a Blob of several parts, `new Response(blob)`), the simulation also waits for Node's next
 * check phase, where that immediate runs (and pulls again, from host code). Without that wait the
 * immediate was still pending at the next event and strict mode stopped the run (exit 74).
 */
import { holdForCheckPhases } from '../../runtime/driver/own-immediates.js';
import { currentHost } from '../context.js';
import { abandonRealCall, beginRealCall, completeRealCall, type RealCall } from './real-work.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** Node's status for "no data yet; the wakeup will say when" (Node 24's blob streams). */
const STATUS_BLOCK = 2;
const kWakeup = Symbol('dst.blobWakeup');
const kBlocked = Symbol('dst.blobBlocked');

interface Reader {
  /** The wakeup function the stream set (Node 24), while one is set. */
  [kWakeup]?: Fn | undefined;
  /** The held call of a blocked pull, until the wakeup comes. */
  [kBlocked]?: RealCall | undefined;
}

/** BlobReader.prototype, reached through a reader of an empty in-memory Blob. */
function readerPrototype(): Record<string, Fn> | undefined {
  const blob = new Blob([]) as unknown as Record<symbol, { getReader?: () => object } | undefined>;
  for (const key of Object.getOwnPropertySymbols(blob)) {
    const handle = blob[key];
    if (typeof handle?.getReader === 'function') return Object.getPrototypeOf(handle.getReader()) as Record<string, Fn>;
  }
  return undefined;
}

/** Delivers a later read (or wakeup) in its 'io' event, then waits one check phase for Node's own immediate. */
function deliverThenWait(call: RealCall, fn: Fn, results: unknown[]): void {
  completeRealCall(call, () => {
    Reflect.apply(fn, undefined, results);
    holdForCheckPhases(call.host.world, 1);
  });
}

export const blobShim: Shim = {
  name: 'blob',
  install(patches: PatchSet) {
    const proto = readerPrototype();
    if (proto === undefined || typeof proto.pull !== 'function') return;
    const pull = proto.pull;
    // Node 24's readers (they have setWakeup): its blob streams go on from a real immediate after
    // every chunk that is not the last, in-memory data too (the callback queues it synchronously).
    const moreComesFromAnImmediate = typeof proto.setWakeup === 'function';
    patches.replace(proto, 'pull', function pull_(this: Reader, ...args: unknown[]) {
      const host = currentHost();
      const callback = args[0];
      if (host === undefined || typeof callback !== 'function') return Reflect.apply(pull, this, args);
      let returned = false;
      let status: unknown;
      let call: RealCall | undefined;
      // Arrow functions: Node checks that its callbacks are not constructors (and aborts).
      args[0] = (...results: unknown[]) => {
        if (!returned) {
          status = results[0];
          const result = Reflect.apply(callback, undefined, results);
          // More to come (not the end, an error or "blocked"): a stream's callback has queued
          // Node's immediate for the next pull; the simulation waits for its check phase, as
          // after a later callback (an arrayBuffer() read goes on from a microtask instead, and
          // waits for nothing that a check phase would not also have run).
          if (moreComesFromAnImmediate && typeof status === 'number' && status > 0 && status !== STATUS_BLOCK) holdForCheckPhases(host.world, 1);
          return result;
        }
        deliverThenWait(call!, callback as Fn, results);
        return undefined;
      };
      const result = Reflect.apply(pull, this, args);
      returned = true;
      // Held from here: no other call can be made between the pull and its return, and the read
      // cannot complete before Node's loop turns.
      if (status === undefined) call = beginRealCall(host, undefined);
      else if (status === STATUS_BLOCK && this[kWakeup] !== undefined && this[kBlocked] === undefined) this[kBlocked] = beginRealCall(host, undefined);
      return result;
    });
    const setWakeup = proto.setWakeup;
    if (typeof setWakeup !== 'function') return;
    patches.replace(proto, 'setWakeup', function setWakeup_(this: Reader, ...args: unknown[]) {
      const wakeup = args[0];
      if (typeof wakeup !== 'function') {
        this[kWakeup] = undefined;
        // Nobody waits any more (the stream ended or was cancelled): nothing will wake the hold.
        const blocked = this[kBlocked];
        this[kBlocked] = undefined;
        if (blocked !== undefined) abandonRealCall(blocked);
        return Reflect.apply(setWakeup, this, args);
      }
      this[kWakeup] = wakeup as Fn;
      args[0] = (...results: unknown[]) => {
        const blocked = this[kBlocked];
        this[kBlocked] = undefined;
        if (blocked === undefined) return Reflect.apply(wakeup, undefined, results);
        deliverThenWait(blocked, wakeup as Fn, results);
        return undefined;
      };
      return Reflect.apply(setWakeup, this, args);
    });
  },
};
