/**
 * zlib's asynchronous forms (`zlib.gzip(buf, cb)`, the promisified ones, every compression
 * stream) compress on Node's thread pool. A host's write is real work the simulation waits for
 * (real-work.ts): virtual time stands still until the thread pool is done, and the completion
 * reaches the host as an 'io' event at that instant, in call order with the host's other real
 * calls. Synchronous forms (`gzipSync`, ...) are left alone, and so is every call made outside
 * the hosts.
 *
 * It works on the native handles of the zlib binding (Zlib, BrotliEncoder, BrotliDecoder and,
 * where Node has them, ZstdCompress/ZstdDecompress), which every zlib stream writes through:
 * `init()` is given the stream's completion callback once (Node's processCallback), and native
 * code calls it, or the handle's `onerror`, when an asynchronous `write()` is done. The shim gives
 * `init()` a stand-in for that callback and swaps `onerror` for the time of a held write; both
 * pass the completion on through the line of real calls. The result of the write is in the
 * stream's write-state array by then, and nothing writes to the handle again before the
 * completion has been delivered (Node's stream waits for it), so delivering it later is exact.
 */
import { captureContextOf } from '../async-hooks/async-context.js';
import { currentHost } from '../context.js';
import { nodeBinding } from '../node-binding.js';
import { abandonRealCall, beginRealCall, completeRealCall, type RealCall } from './real-work.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Callback = (this: ZlibHandle, ...args: unknown[]) => unknown;

const kWriteDone = Symbol('dst.zlibWriteDone');
const kOnError = Symbol('dst.zlibOnError');
const kHeld = Symbol('dst.zlibHeldWrite');

interface ZlibHandle {
  onerror?: Callback;
  [kWriteDone]?: Callback;
  [kOnError]?: Callback | undefined;
  [kHeld]?: RealCall | undefined;
}

/** Ends the held write of `handle`, if any: its onerror back in place, its call returned. */
function takeHeld(handle: ZlibHandle): RealCall | undefined {
  const call = handle[kHeld];
  if (call === undefined) return undefined;
  handle[kHeld] = undefined;
  handle.onerror = handle[kOnError];
  handle[kOnError] = undefined;
  return call;
}

/** What native code calls when an asynchronous write is done (in place of Node's processCallback). */
function writeDone(this: ZlibHandle, ...args: unknown[]): unknown {
  const done = this[kWriteDone]!;
  const call = takeHeld(this);
  if (call === undefined) return Reflect.apply(done, this, args);
  completeRealCall(call, () => Reflect.apply(done, this, args));
  return undefined;
}

/** The handle's onerror while a held write is in flight. */
function writeFailed(this: ZlibHandle, ...args: unknown[]): unknown {
  const onerror = this[kOnError];
  const call = takeHeld(this);
  if (typeof onerror !== 'function') return undefined;
  if (call === undefined) return Reflect.apply(onerror, this, args);
  completeRealCall(call, () => Reflect.apply(onerror, this, args));
  return undefined;
}

/** The native handle classes: every constructor of the binding with init and write. */
function handleClasses(binding: Record<string, any>): Array<Record<string, Callback>> {
  const out: Array<Record<string, Callback>> = [];
  for (const key of Object.keys(binding).sort()) {
    const proto = (binding[key] as { prototype?: Record<string, Callback> } | undefined)?.prototype;
    if (typeof binding[key] === 'function' && typeof proto?.init === 'function' && typeof proto.write === 'function') out.push(proto);
  }
  return out;
}

export const zlibShim: Shim = {
  name: 'zlib',
  install(patches: PatchSet) {
    for (const proto of handleClasses(nodeBinding('zlib'))) {
      const init = proto.init!;
      const write = proto.write!;
      patches.replace(proto, 'init', function init_(this: ZlibHandle, ...args: unknown[]) {
        const at = args.findIndex((arg) => typeof arg === 'function');
        if (at !== -1) {
          this[kWriteDone] = args[at] as Callback;
          args[at] = writeDone;
        }
        return Reflect.apply(init, this, args);
      });
      patches.replace(proto, 'write', function write_(this: ZlibHandle, ...args: unknown[]) {
        const host = currentHost();
        // A handle made before the shim was installed calls Node's callback directly: leave it be.
        if (host === undefined || this[kWriteDone] === undefined || this[kHeld] !== undefined) return Reflect.apply(write, this, args);
        const call = beginRealCall(host, captureContextOf(this, 'ZLIB', false));
        this[kHeld] = call;
        this[kOnError] = this.onerror;
        this.onerror = writeFailed;
        try {
          return Reflect.apply(write, this, args);
        } catch (error) {
          takeHeld(this);
          abandonRealCall(call);
          throw error;
        }
      });
      for (const key of ['init', 'write'] as const) {
        Object.defineProperty(proto[key], 'name', { value: key, configurable: true });
      }
    }
  },
};
