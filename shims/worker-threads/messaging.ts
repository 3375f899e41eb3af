/**
 * MessagePort and BroadcastChannel inside one thread. Node delivers a message through a libuv
 * async handle: in plain Node a message posted from a callback is dispatched in the loop's next
 * poll phase (this turn's from a timer or the main script, the next turn's from an I/O callback
 * or an immediate), before any later timer and after the immediates of the check phase the post
 * came from. Simulated time does not wait for the real loop, so a postMessage from host code
 * holds the simulation until Node's loop has been through a poll phase since the post; the
 * dispatch Node makes then becomes an event of the listening host in the poll phase the post
 * reaches (dispatchAsEvent).
 */
import { createRequire } from 'node:module';
import type { AsyncResource } from 'node:async_hooks';
import { afterCheckPhases } from '../../runtime/driver/own-immediates.js';
import { beginRealCall, completeRealCallInLine } from '../thread-pool/real-work.js';
import type { World, WorldHost } from '../../runtime/world.js';
import type { Host } from '../context.js';
import { currentHost } from '../context.js';
import { captureStack, programFrame } from '../../runtime/trace/site.js';
import { captureContextOf } from '../async-hooks/async-context.js';
import { holdForLoaderPort, portSentForHost, releaseLoaderPort } from '../process/real-loads.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

type Method = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Per world: the posts whose dispatches are awaited (each a call in the line of real work), and
 * the dispatches Node made meanwhile, in the order it made them (dispatchAsEvent).
 */
interface Posts {
  open: number;
  dispatched: Array<{ host: Host; run: () => void; scope: AsyncResource | undefined }>;
}
const postsOf = new WeakMap<World, Posts>();

/**
 * postMessage that holds the simulation until Node has delivered the message: a call in the line
 * of real work (shims/thread-pool/real-work.ts), complete once Node's loop has been through a poll
 * phase (two check phases from now), so the message's events take their place among the other
 * completions in call order, whatever the thread pool's speed.
 */
function held(real: Method): Method {
  function postMessage(this: unknown, ...args: unknown[]): unknown {
    // The native port's answer matters: BroadcastChannel#postMessage throws when it is not true.
    const result = Reflect.apply(real, this, args);
    const host = currentHost();
    if (host !== undefined) {
      const world = host.world as World;
      let posts = postsOf.get(world);
      if (posts === undefined) postsOf.set(world, (posts = { open: 0, dispatched: [] }));
      posts.open++;
      const call = beginRealCall(host, undefined);
      const awaited = posts;
      afterCheckPhases(2, () => {
        awaited.open--;
        completeRealCallInLine(call, () => {
          for (const { host: to, run, scope } of awaited.dispatched.splice(0)) {
            if (to.state === 'running') world.schedulePollWork(to as WorldHost, run, scope);
          }
        });
      });
      // A port of the test runner's may carry work it does for the host; Node 20's module loader
      // posts its requests to its hooks thread on that worker's port, ref'd until the answers
      // are in (shims/process/real-loads.ts).
      if (world.mode === 'library' && this !== null && typeof this === 'object') {
        const loader = loaderPost(postMessage);
        if (loader === 'request') holdForLoaderPort(world, this);
        else if (loader === undefined) portSentForHost(world, this, args[0]);
      }
    }
    return result;
  }
  Object.defineProperty(postMessage, 'length', { value: real.length, configurable: true });
  return postMessage;
}

/**
 * Whether a post below `below` is Node 20's module loader's, to its hooks thread: 'request' for
 * an asynchronous request (HooksProxy#makeAsyncRequest, which refs the worker until its answer is
 * in), 'other' for the rest (the worker's start, makeSyncRequest, which waits for its answer
 * synchronously), undefined for a post of anyone else.
 */
function loaderPost(below: Function): 'request' | 'other' | undefined {
  const stack = captureStack(below, 8).stack ?? '';
  if (!stack.includes('(node:internal/modules/esm/hooks:')) return undefined;
  return stack.includes('makeAsyncRequest (node:internal/modules/esm/hooks:') ? 'request' : 'other';
}

/**
 * Ports a program listens on while `listened` is set (an explorer worker's seed): a
 * MessageChannel's port, a BroadcastChannel's handle. Node refs a port when a 'message' listener
 * is added (onmessage, on, addEventListener), and a ref'd port keeps the loop, so the worker
 * never exited after its last seed; a channel unref'd by its seed got the next seeds' messages.
 */
let listened: Set<object> | undefined;

type Port = { close(): void; removeAllListeners?(): void };

/** Inside a Worker's ref(): the port it refs is the worker's, not one the program listens on. */
let workerRefs = 0;

/**
 * Starts noting the ports the program listens on (closeListenedPorts closes them). A worker's
 * ref() refs its public port too (lib/internal/worker.js), and Node 20's loader thread is one:
 * Node refs it for each request of a module graph's hooks. That port is Node's, so Worker's ref()
 * is wrapped to say so, once, before the process's state is taken (process-state.ts).
 */
export function noteListenedPorts(): void {
  if (listened !== undefined) return;
  listened = new Set();
  const workerPrototype = (createRequire(__filename)('node:worker_threads') as typeof import('node:worker_threads')).Worker.prototype as unknown as Record<string, Method>;
  const realWorkerRef = workerPrototype.ref!;
  workerPrototype.ref = function ref(this: unknown, ...args: unknown[]): unknown {
    workerRefs++;
    try {
      return Reflect.apply(realWorkerRef, this, args);
    } finally {
      workerRefs--;
    }
  };
}

/** Closes the ports noted since the last call, without a 'close' event to the program's listeners. */
export function closeListenedPorts(): void {
  if (listened === undefined) return;
  for (const port of listened as Set<Port>) {
    port.removeAllListeners?.();
    port.close();
  }
  listened.clear();
}

/**
 * The ports a host's own code listens on (a MessageChannel's, a BroadcastChannel's): their
 * messages are events of that host incarnation (dispatchAsEvent; a restart makes a new Host).
 * Decided at a port's first ref(), which Node makes when the first 'message' listener is added:
 * a port Node first refs for itself (a Worker's, the module loader's, even inside a host's call)
 * is Node's, and its messages are left to Node.
 */
const hostPorts = new WeakMap<object, Host>();
const refSeen = new WeakSet<object>();

function noted(real: Method): Method {
  return function ref(this: unknown, ...args: unknown[]): unknown {
    if (workerRefs === 0 && this !== null && typeof this === 'object') {
      if (listened !== undefined) listened.add(this);
      if (!refSeen.has(this)) {
        refSeen.add(this);
        const host = currentHost();
        if (host !== undefined && calledByProgram(ref)) hostPorts.set(this, host);
      }
    }
    return Reflect.apply(real, this, args);
  };
}

/** Node's frames between a listener being added and the port's ref() (worker/io's newListener, EventTarget, EventEmitter). */
const LISTENER_PLUMBING = ['node:internal/worker/io', 'node:internal/event_target', 'node:events'];

/** Whether the first frame below `below` past Node's listener plumbing (and dst-runtime's frames) is the program's. */
function calledByProgram(below: Function): boolean {
  const stack = captureStack(below, 16).stack ?? '';
  for (const line of stack.split('\n').slice(1)) {
    if (LISTENER_PLUMBING.some((file) => line.includes(`(${file}:`))) continue;
    if (programFrame(line) !== undefined) return true;
    if (line.includes('node:')) return false;
  }
  return false;
}

const kHybridDispatch = Symbol.for('nodejs.internal.kHybridDispatch');
const kCurrentlyReceivingPorts = Symbol.for('nodejs.internal.kCurrentlyReceivingPorts');

/**
 * Node's dispatch of a message to a port (per_context/messageport.js emitMessage calls it from
 * the loop's poll phase, with the ports the message carries set on the port meanwhile). A host's
 * port gets it as an event of the host, in the poll phase of the turn after the post's
 * (World.schedulePollWork): after the immediates the posting callback's check phase still runs,
 * where the real dispatch, made while the post holds the simulation, would run before them.
 * Other ports' messages (Node's own, a test runner's) and a port's 'close' are left as they are.
 */
function dispatchAsEvent(real: Method): Method {
  return function dispatch(this: unknown, ...args: unknown[]): unknown {
    const host = this !== null && typeof this === 'object' ? hostPorts.get(this) : undefined;
    if (host === undefined || (args[1] !== 'message' && args[1] !== 'messageerror')) return Reflect.apply(real, this, args);
    const world = host.world as World;
    // Dispatched inside an event (a test's own call) or after the run: left be.
    if (world.result !== undefined || world.current !== undefined) return Reflect.apply(real, this, args);
    // The process that listened is gone: nothing of it runs.
    if (host.state !== 'running') return undefined;
    const port = this as Record<symbol, unknown>;
    const receiving = port[kCurrentlyReceivingPorts];
    // Node runs the listeners in the port's async context, entered now: the scope keeps it.
    const scope = captureContextOf(port, 'MESSAGEPORT', false);
    const run = (): void => {
      port[kCurrentlyReceivingPorts] = receiving;
      try {
        Reflect.apply(real, port, args);
      } finally {
        port[kCurrentlyReceivingPorts] = undefined;
      }
    };
    // Queued when the post's call is reached in the line; a message no post of a host's awaits
    // (posted from another thread, or arriving late) at once.
    const posts = postsOf.get(world);
    if (posts !== undefined && posts.open > 0) posts.dispatched.push({ host, run, scope });
    else world.schedulePollWork(host as WorldHost, run, scope);
    return undefined;
  };
}

// The globals are worker_threads' own classes; taking them loads only internal/worker/io, not
// worker_threads (2 ms of CPU at start; figure 12).
const ports = MessagePort.prototype as unknown as Record<string, Method>;
const channels = BroadcastChannel.prototype as unknown as Record<string, Method>;
const realPortPost = ports.postMessage!;
const realChannelPost = channels.postMessage!;
const realPortRef = ports.ref!;
const realPortUnref = ports.unref!;

/** unref() that ends the holds of the module loader's requests on the port (real-loads.ts). */
function unrefReleasing(this: unknown, ...args: unknown[]): unknown {
  const result = Reflect.apply(realPortUnref, this, args);
  if (this !== null && typeof this === 'object') releaseLoaderPort(this);
  return result;
}

export const messagingShim: Shim = {
  name: 'messaging',
  install(patches: PatchSet) {
    patches.replace(ports, 'postMessage', held(realPortPost));
    patches.replace(channels, 'postMessage', held(realChannelPost));
    patches.replace(ports, 'ref', noted(realPortRef));
    patches.replace(ports, 'unref', unrefReleasing);
    patches.replace(ports, kHybridDispatch, dispatchAsEvent((ports as unknown as Record<symbol, Method>)[kHybridDispatch]!));
  },
};
