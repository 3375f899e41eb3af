/**
 * MessagePort and BroadcastChannel inside one thread. Node delivers a message through a libuv
 * async handle: in plain Node a message posted from a callback is dispatched in the next loop
 * iteration's poll phase, before any later timer. Simulated time does not wait for the real
 * loop, so a timer of the poster's could run first. A postMessage from host code therefore holds
 * the simulation until Node's loop has been through a poll phase since the post.
 */
import { holdForCheckPhases } from '../../runtime/driver/own-immediates.js';
import type { World } from '../../runtime/world.js';
import { currentHost } from '../context.js';
import { portSentForHost } from '../process/real-loads.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

type PostMessage = (this: unknown, ...args: unknown[]) => unknown;

/** postMessage that holds the simulation until Node has delivered the message. */
function held(real: PostMessage): PostMessage {
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

// The globals are worker_threads' own classes; taking them loads only internal/worker/io, not
// worker_threads (2 ms of CPU at start; figure 12).
const ports = MessagePort.prototype as unknown as Record<string, PostMessage>;
const channels = BroadcastChannel.prototype as unknown as Record<string, PostMessage>;
const realPortPost = ports.postMessage!;
const realChannelPost = channels.postMessage!;

export const messagingShim: Shim = {
  name: 'messaging',
  install(patches: PatchSet) {
    patches.replace(ports, 'postMessage', held(realPortPost));
    patches.replace(channels, 'postMessage', held(realChannelPost));
  },
};
