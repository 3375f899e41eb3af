/**
 * What net-binding and dgram-binding share about the native handles (TCPWrap, UDPWrap) that
 * simulated sockets sit on. A native handle not closed natively is a GC root, so the world
 * holds every handle a host made (World.holdNative) and releases it when the host goes down or
 * the run ends: first as a raw handle (made, not yet simulated), then as its simulation state.
 */
import { UV } from '../runtime/network/errno.js';
import type { Host } from '../runtime/hosts/host.js';
import type { NativeResource } from '../runtime/world.js';
import { currentHost, forgetHost } from './context.js';

export type NativeHandle = Record<PropertyKey, any>;

/** Gives a handle its own (non-enumerable) method or value, shadowing its prototype's. */
export function own(handle: NativeHandle, name: string, value: unknown): void {
  Object.defineProperty(handle, name, { value, writable: true, configurable: true, enumerable: false });
}

/**
 * A native handle a host created that has not turned simulated yet (net.connect makes it before
 * the name resolves, dgram.createSocket before any bind): closed natively if its host goes down
 * or the run ends before it does.
 */
class RawHandle implements NativeResource {
  constructor(
    readonly handle: NativeHandle,
    readonly host: Host,
    private readonly kRaw: symbol,
    private readonly realClose: (this: NativeHandle) => unknown,
  ) {}

  release(): void {
    delete this.handle[this.kRaw];
    forgetHost(this.handle);
    this.realClose.call(this.handle);
  }
}

/**
 * The getAsyncId of a handle class's prototype, tracking new handles: Node asks every new handle
 * for its async id right after constructing it (net.js initSocketHandle, dgram's Socket
 * constructor), so one a host made is held as raw from there until it turns simulated
 * (makeSimulated) or is released.
 */
export function trackingGetAsyncId(
  HandleClass: abstract new (...args: never[]) => unknown,
  keys: { kSim: symbol; kRaw: symbol },
  real: { getAsyncId: (this: NativeHandle) => number; close: (this: NativeHandle) => unknown },
): (this: NativeHandle) => number {
  return function getAsyncId(this: NativeHandle): number {
    if (this[keys.kSim] === undefined && this[keys.kRaw] === undefined && this instanceof HandleClass) {
      const host = currentHost();
      if (host !== undefined) {
        const raw = new RawHandle(this, host, keys.kRaw, real.close);
        Object.defineProperty(this, keys.kRaw, { value: raw, configurable: true });
        host.world.holdNative(host, raw);
      }
    }
    return real.getAsyncId.call(this);
  };
}

/**
 * A handle turns simulated: it carries `sim` under kSim, and the world holds `sim` for it instead
 * of the raw handle it held since the handle was made.
 */
export function makeSimulated(handle: NativeHandle, keys: { kSim: symbol; kRaw: symbol }, host: Host, sim: NativeResource): void {
  const raw = handle[keys.kRaw] as RawHandle | undefined;
  if (raw !== undefined) {
    delete handle[keys.kRaw];
    raw.host.world.dropNative(raw.host, raw);
  }
  host.world.holdNative(host, sim);
  Object.defineProperty(handle, keys.kSim, { value: sim, configurable: true });
}

/** The inert methods of released handles, shared by all of them (they close over nothing). */
export const released = {
  badf(): number {
    return UV.EBADF;
  },
  nothing(): void {},
  zero(): number {
    return 0;
  },
  no(): boolean {
    return false;
  },
};
