/**
 * MessagePort and BroadcastChannel inside one thread. Node delivers a message through a libuv
 * async handle: in plain Node a message posted from a callback is dispatched in the next loop
 * iteration's poll phase, before any later timer. Simulated time does not wait for the real
 * loop, so a timer of the poster's could run first. A postMessage from host code therefore holds
 * the simulation until Node's loop has been through a poll phase since the post.
 */
import { createRequire } from 'node:module';
import { holdForCheckPhases } from '../../runtime/driver/own-immediates.js';
import type { World } from '../../runtime/world.js';
import { currentHost } from '../context.js';
import { portSentForHost } from '../process/real-loads.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** postMessage that holds the simulation until Node has delivered the message. */
function held(real: Method): Method {
  function postMessage(this: unknown, ...args: unknown[]): unknown {
    // The native port's answer matters: BroadcastChannel#postMessage throws when it is not true.
    const result = Reflect.apply(real, this, args);
    const host = currentHost();
    // Dispatched in Node's next poll phase, which two check phases from now have passed.
    if (host !== undefined) {
      holdForCheckPhases(host.world, 2);
      // A port of the test runner's may carry work it does for the host (shims/process/real-loads.ts).
      if (host.world.mode === 'library' && this !== null && typeof this === 'object') portSentForHost(host.world as World, this);
    }
    return result;
  }
  Object.defineProperty(postMessage, 'length', { value: real.length, configurable: true });
  return postMessage;
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

function noted(real: Method): Method {
  return function ref(this: unknown, ...args: unknown[]): unknown {
    if (listened !== undefined && workerRefs === 0 && this !== null && typeof this === 'object') listened.add(this);
    return Reflect.apply(real, this, args);
  };
}

// The globals are worker_threads' own classes; taking them loads only internal/worker/io, not
// worker_threads (2 ms of CPU at start; figure 12).
const ports = MessagePort.prototype as unknown as Record<string, Method>;
const channels = BroadcastChannel.prototype as unknown as Record<string, Method>;
const realPortPost = ports.postMessage!;
const realChannelPost = channels.postMessage!;
const realPortRef = ports.ref!;

export const messagingShim: Shim = {
  name: 'messaging',
  install(patches: PatchSet) {
    patches.replace(ports, 'postMessage', held(realPortPost));
    patches.replace(channels, 'postMessage', held(realChannelPost));
    patches.replace(ports, 'ref', noted(realPortRef));
  },
};
