/**
 * performance.now() and performance.timeOrigin on the host's clock, patched IN PLACE on the
 * existing `performance` object: libraries (lru-cache, for one) keep a reference to the object
 * itself, and perf_hooks.performance is the same object as globalThis.performance.
 * timeOrigin is a prototype getter in Node; an own getter shadows it while installed.
 * (marks, measures and event-loop utilization keep Node's internal clock: never fingerprinted.)
 *
 * A PerformanceObserver gets its entries from a real immediate Node queues when an entry is
 * made (lib/internal/perf/observe.js took the original setImmediate at startup): in plain Node
 * that delivery comes before any later timer. So while an observer is observing, a mark or a
 * measure made by host code holds the simulation until the delivery has run.
 */
import { performance as perf, PerformanceObserver } from 'node:perf_hooks';
import { holdForCheckPhases } from '../../runtime/driver/own-immediates.js';
import { currentHost } from '../context.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

const realNow = perf.now;
const realTimeOriginGetter = (() => {
  for (let o: object | null = perf; o !== null; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, 'timeOrigin');
    if (d !== undefined) return d.get ?? (() => d.value as number);
  }
  return () => NaN;
})();

function now(this: unknown): number {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(realNow, this ?? perf, []);
  return host.clock.perfNowMs(host.readNowNs());
}
Object.defineProperty(now, 'name', { value: 'now' });

function timeOrigin(this: unknown): number {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(realTimeOriginGetter, this ?? perf, []) as number;
  return host.clock.timeOriginMs();
}

// ---- PerformanceObserver delivery before the next event -----------------------------------

const perfPrototype = Object.getPrototypeOf(perf) as Record<string, Function>;
const observerPrototype = PerformanceObserver.prototype as unknown as Record<string, Function>;
const real = {
  mark: perfPrototype.mark!,
  measure: perfPrototype.measure!,
  observe: observerPrototype.observe!,
  disconnect: observerPrototype.disconnect!,
};
/** Observers between a successful observe() and disconnect(). */
const observing = new Set<object>();

/** After an entry was made by host code: no event runs until the observers have had it. */
function holdForDelivery(): void {
  if (observing.size === 0) return;
  const host = currentHost();
  if (host === undefined) return;
  // Queued after Node's delivery immediate (made by the entry), so it runs after it.
  holdForCheckPhases(host.world, 1);
}

const observed = {
  mark(this: unknown, ...args: unknown[]): unknown {
    const entry = Reflect.apply(real.mark, this, args);
    holdForDelivery();
    return entry;
  },
  measure(this: unknown, ...args: unknown[]): unknown {
    const entry = Reflect.apply(real.measure, this, args);
    holdForDelivery();
    return entry;
  },
  observe(this: object, ...args: unknown[]): unknown {
    const result = Reflect.apply(real.observe, this, args);
    observing.add(this);
    return result;
  },
  disconnect(this: object, ...args: unknown[]): unknown {
    observing.delete(this);
    return Reflect.apply(real.disconnect, this, args);
  },
};
for (const name of ['mark', 'measure', 'observe', 'disconnect'] as const) {
  Object.defineProperty(observed[name], 'length', { value: real[name].length, configurable: true });
}

// ---- Event#timeStamp ----------------------------------------------------------------------

// Node stamps every Event (an AbortSignal's 'abort' too) with its internal performance clock,
// taken from the binding when it loaded: the real one. Inside a host an event's timeStamp is the
// host's performance.now() when it is first dispatched, or first read if it never was
// (events are stamped in their constructor in Node, and dispatched at once as a rule).
const eventPrototype = Event.prototype as unknown as Record<string, unknown>;
const realTimeStamp = Object.getOwnPropertyDescriptor(eventPrototype, 'timeStamp')!.get!;
const targetPrototype = EventTarget.prototype as unknown as Record<string, Function>;
const realDispatchEvent = targetPrototype.dispatchEvent!;
const stamps = new WeakMap<object, number>();

function stamp(event: object): number {
  let at = stamps.get(event);
  if (at === undefined) {
    at = now();
    stamps.set(event, at);
  }
  return at;
}

function timeStamp(this: object): number {
  const real = Reflect.apply(realTimeStamp, this, []) as number; // Node's receiver check
  return currentHost() === undefined && !stamps.has(this) ? real : stamp(this);
}

function dispatchEvent(this: unknown, event: unknown, ...rest: unknown[]): unknown {
  if (currentHost() !== undefined && event instanceof Event) stamp(event);
  return Reflect.apply(realDispatchEvent, this, [event, ...rest]);
}
Object.defineProperty(dispatchEvent, 'length', { value: realDispatchEvent.length, configurable: true });

export const performanceShim: Shim = {
  name: 'performance',
  install(patches: PatchSet) {
    patches.replace(perf, 'now', now);
    patches.defineGetter(perf, 'timeOrigin', timeOrigin, true);
    patches.replace(perfPrototype, 'mark', observed.mark);
    patches.replace(perfPrototype, 'measure', observed.measure);
    patches.replace(observerPrototype, 'observe', observed.observe);
    patches.replace(observerPrototype, 'disconnect', observed.disconnect);
    patches.defineGetter(eventPrototype, 'timeStamp', timeStamp, true);
    patches.replace(targetPrototype, 'dispatchEvent', dispatchEvent);
  },
};
