/**
 * Node's happy-eyeballs attempt timer, taken into the simulation. With `autoSelectFamily` (the
 * default since Node 20) and a lookup that answers several addresses, net.js arms
 * `setTimeout(internalConnectMultipleTimeout, autoSelectFamilyAttemptTimeout, ...)` right after
 * each connect attempt but the last, with the `setTimeout` it took from node:timers when it
 * loaded: before dst-runtime, so a real timer, on real time (strict mode stopped such runs).
 *
 * The simulated connect knows when such an attempt starts (its request completes through
 * net's `afterConnectMultiple`); the next real Timeout made, synchronously after it returns, is
 * that timer. It is claimed at birth (the tripwires leave it alone) and adopted in a nextTick:
 * taken out of Node's lists with Node's own clearTimeout, and run by a simulated timer of the
 * same delay, with the same callback, `this` and arguments (adoptRealTimeout, as for the other
 * real Timeouts Node's modules make: timers/node-timeouts.ts). net's later clearTimeout of it
 * (the attempt settled first) reaches the simulated timer through the `_onTimeout` it sets.
 */
import { originals } from '../../runtime/originals.js';
import { currentHost, type Host } from '../context.js';
import type { NativeHandle } from './native-handles.js';
import { claimRealTimeout, onRealTimeoutCreated } from '../strict/real-timeouts.js';
import type { PatchSet } from '../registry.js';
import { adoptRealTimeout } from '../timers/node-timeouts.js';

const nodeProcess = originals.process;
/** The host whose connect attempt just started, until its attempt timer is made (or not). */
let expecting: Host | undefined;

/** Called by the simulated connect: `req` may be an attempt of net's internalConnectMultiple. */
export function noteConnectAttempt(host: Host, req: NativeHandle): void {
  const oncomplete = req.oncomplete as { name?: unknown } | undefined;
  if (typeof oncomplete !== 'function' || oncomplete.name !== 'bound afterConnectMultiple') return;
  expecting = host;
  // The last attempt arms no timer: stop expecting one once net's synchronous code is done.
  queueMicrotask(() => {
    if (expecting === host) expecting = undefined;
  });
}

/** Watches for the attempt timers while the shims are installed. */
export function adoptAttemptTimers(patches: PatchSet): void {
  const stop = onRealTimeoutCreated((timer) => {
    const host = expecting;
    if (host === undefined || currentHost() !== host) return;
    expecting = undefined;
    claimRealTimeout(timer);
    // Its callback and arguments are set after the constructor's first statement: adopt it once
    // net's synchronous code is done (before any real timer phase can come).
    nodeProcess.nextTick(() => adoptRealTimeout(timer, host));
  });
  if (stop !== undefined) patches.onRestore(stop);
}
