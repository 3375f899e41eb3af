/**
 * Sees every real Timeout being made: an accessor on Node's internal Timeout.prototype
 * `_idleTimeout`, whose first statement in the Timeout constructor is `this._idleTimeout =
 * after`. The accessor turns itself into the own data property the plain assignment would
 * have made (same keys, same order on Node 20, 22 and 24) and tells every listener. Only real
 * Timeouts pay for it: simulated timers are other objects. Shared by strict mode's tripwire
 * and by the adoption of Node's own real timers (net-binding's happy-eyeballs attempt timer).
 */
import { originals } from '../../runtime/originals.js';
import { runtimeNoop } from '../../runtime/driver/runtime-resources.js';

/** What a listener may read of a real Timeout (Node's internal field names). */
export interface RealTimer {
  _idleTimeout: number;
  _onTimeout: unknown;
  _timerArgs: unknown[] | undefined;
  _onImmediate: unknown;
  _idlePrev: RealTimer | null;
  _idleNext: RealTimer | null;
  _destroyed: boolean;
  _repeat: number | null;
  hasRef(): boolean;
}

/**
 * Real timers or immediates of some origin the runtime must not count as its own or as escapes,
 * kept only while pending: those that ran or were cleared are dropped when counted, and before a
 * note once 256 are held (nobody may count for a while: a run ended).
 */
export class PendingRealHandles {
  private readonly handles = new Set<Pick<RealTimer, '_destroyed' | 'hasRef'>>();

  note(handle: Pick<RealTimer, '_destroyed' | 'hasRef'>): void {
    if (this.handles.size >= 256) this.pending();
    this.handles.add(handle);
  }

  /** How many are still pending and ref'd (as Node counts them in its active resources). */
  pending(): number {
    let n = 0;
    for (const handle of this.handles) {
      if (handle._destroyed) this.handles.delete(handle);
      else if (handle.hasRef()) n++;
    }
    return n;
  }
}

/** Real Timeouts taken into the simulation (see claimRealTimeout): not escapes. */
const claimed = new WeakSet<object>();
/** Claimed, and not yet taken out of Node's lists (adoption comes in a nextTick). */
const awaitingAdoption = new Set<RealTimer>();

/**
 * A listener takes `timer` into the simulation: the tripwires leave it alone. Until
 * `adopted(timer)` is called it is still in Node's lists, and Node still counts it.
 */
export function claimRealTimeout(timer: RealTimer): void {
  claimed.add(timer);
  awaitingAdoption.add(timer);
}

/** A claimed timer left Node's lists (or will never be adopted). */
export function adopted(timer: RealTimer): void {
  awaitingAdoption.delete(timer);
}

/** Claimed timers Node still counts as ref'd Timeouts (process.getActiveResourcesInfo). */
export function claimedStillCounted(): number {
  let count = 0;
  for (const timer of awaitingAdoption) if (!timer._destroyed && timer.hasRef()) count++;
  return count;
}

export function isClaimed(timer: RealTimer): boolean {
  return claimed.has(timer);
}

type Listener = (timer: RealTimer) => void;
const listeners = new Set<Listener>();
let proto: object | undefined;

function install(): boolean {
  const probe = originals.setTimeout(runtimeNoop, 1) as unknown as RealTimer;
  originals.clearTimeout(probe as unknown as NodeJS.Timeout);
  const candidate = Object.getPrototypeOf(probe) as object;
  if (Object.getOwnPropertyDescriptor(candidate, '_idleTimeout') !== undefined) return false; // not the Node we know
  Object.defineProperty(candidate, '_idleTimeout', {
    configurable: true,
    enumerable: false,
    get: () => undefined,
    set(this: RealTimer, value: number) {
      Object.defineProperty(this, '_idleTimeout', { value, writable: true, enumerable: true, configurable: true });
      for (const listener of listeners) {
        if (claimed.has(this)) return;
        listener(this);
      }
    },
  });
  proto = candidate;
  return true;
}

/**
 * Calls `listener` for every real Timeout made from now on, in its constructor (only
 * `_idleTimeout` is set then). Returns the function that stops it, or undefined when the
 * prototype cannot be trapped.
 */
export function onRealTimeoutCreated(listener: Listener): (() => void) | undefined {
  if (proto === undefined && !install()) return undefined;
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && proto !== undefined) {
      delete (proto as Record<string, unknown>)._idleTimeout;
      proto = undefined;
    }
  };
}
