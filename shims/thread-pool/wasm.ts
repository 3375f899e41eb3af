/**
 * WebAssembly's asynchronous compilation: `WebAssembly.compile(bytes)` and
 * `WebAssembly.instantiate(bytes, imports)` compile on V8's background threads and settle from a
 * task Node runs on a later turn of its loop. A host's call is real work the simulation waits
 * for (real-work.ts): virtual time stands still until it settles, and the settlement reaches the
 * host as an 'io' event at that instant, in call order with the host's other real calls. (Before,
 * a 1 ms interval ticked hundreds of times during one compile, a different number each run.)
 *
 * `instantiate(module)` of an already compiled module settles within the current turn's promise
 * jobs (Node 22, 24) or from a task Node runs in the same turn, before that turn's immediates
 * (Node 20): the simulation waits for it too, but its promise is left to settle where Node
 * settles it. Left alone: calls with neither bytes nor a module (they reject at once); the
 * streaming forms, whose source is a Response the simulation itself may still have to deliver;
 * calls with none of the program's frames on the stack (Node's own: undici compiling llhttp);
 * and calls outside every host.
 */
import { captureStack, programFrame } from '../../runtime/trace/site.js';
import { currentHost } from '../context.js';
import { heldInPlace, heldPromise } from './real-work.js';
import { mirrorSignature, type PatchSet } from '../registry.js';
import type { Realm, Shim } from '../shim.js';

type Fn = (this: unknown, ...args: unknown[]) => Promise<unknown>;

function isBytes(value: unknown): boolean {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof SharedArrayBuffer;
}

/**
 * Whether the code that called WebAssembly's function (its nearest frame that is Node's or the
 * program's, not dst-runtime's own) is Node's, or no program frame is on the stack at all.
 */
function calledByNode(stack: string | undefined): boolean {
  for (const line of (stack ?? '').split('\n').slice(1)) {
    if (/\(node:|at node:/.test(line)) return true;
    if (programFrame(line) !== undefined) return false;
  }
  return true;
}

/**
 * Modules compiled by dst-runtime for Node's own use (undici's llhttp, shims/net/fetch.ts), to be
 * instantiated at once when Node's code instantiates them: on Node 20 `instantiate(module)`
 * settles from a task on the next turn of Node's loop, and the driver may run a whole batch of
 * events before it (22 and 24 settle it among the current promise jobs).
 */
export const instantiateAtOnce = new WeakSet<object>();

function held(original: Fn, Module: Function, Instance: new (module: unknown, imports?: unknown) => unknown): Fn {
  const wrapper = function (this: unknown, ...args: unknown[]): Promise<unknown> {
    const module = args[0];
    if (module instanceof Module && instantiateAtOnce.has(module)) {
      instantiateAtOnce.delete(module);
      try {
        return Promise.resolve(new Instance(module, args[1]));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    const host = currentHost();
    const start = () => Reflect.apply(original, this, args) as Promise<unknown>;
    // Node's own compiles are left alone: undici's llhttp (fetch.ts sees to that one), which in
    // register mode counts as host "main"'s work even when it runs from dst-runtime's warm-up,
    // and which the program's frames are below when the program's read of a lazy global
    // (Headers, Response, ... on Node 22 and 24) loaded undici: held as the host's work, its
    // completion waited for an event while fetch's warm-up held every event until the compile
    // was done, and the run stalled for ever.
    if (host === undefined || calledByNode(captureStack(wrapper, 20).stack)) return start();
    if (isBytes(args[0])) return heldPromise(host, start);
    return args[0] instanceof Module ? heldInPlace(host, start) : start();
  };
  mirrorSignature(wrapper, original);
  return wrapper;
}

export const wasmShim: Shim = {
  name: 'wasm',
  install() {},
  realm(patches: PatchSet, realm: Realm) {
    // Each realm has its own WebAssembly object. Absent under --jitless.
    const wasm = (realm.global as { WebAssembly?: Record<string, Fn> & { Module: Function; Instance: new (module: unknown, imports?: unknown) => unknown } }).WebAssembly;
    if (wasm === undefined) return;
    for (const key of ['compile', 'instantiate'] as const) {
      if (typeof wasm[key] === 'function') patches.replace(wasm, key, held(wasm[key], wasm.Module, wasm.Instance));
    }
  },
};
