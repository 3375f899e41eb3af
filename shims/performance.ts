/**
 * performance.now() and performance.timeOrigin on the host's clock, patched IN PLACE on the
 * existing `performance` object: libraries (lru-cache, for one) keep a reference to the object
 * itself, and perf_hooks.performance is the same object as globalThis.performance.
 * timeOrigin is a prototype getter in Node; an own getter shadows it while installed.
 * (marks, measures and event-loop utilization keep Node's internal clock: never fingerprinted.)
 */
import { performance as perf } from 'node:perf_hooks';
import { currentHost } from './context.js';
import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';

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
  return host.clock.perfNowMs(host.world.nowNs);
}
Object.defineProperty(now, 'name', { value: 'now' });

function timeOrigin(this: unknown): number {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(realTimeOriginGetter, this ?? perf, []) as number;
  return host.clock.timeOriginMs();
}

export const performanceShim: Shim = {
  name: 'performance',
  install(patches: PatchSet) {
    patches.replace(perf, 'now', now);
    patches.defineGetter(perf, 'timeOrigin', timeOrigin, true);
  },
};
