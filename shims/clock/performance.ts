/**
 * performance.now() and performance.timeOrigin on the host's clock, patched IN PLACE on the
 * existing `performance` object: libraries (lru-cache, for one) keep a reference to the object
 * itself, and perf_hooks.performance is the same object as globalThis.performance.
 * timeOrigin is a prototype getter in Node; an own getter shadows it while installed.
 * Marks, measures and performance.nodeTiming read Node's internal clock (the binding's now(),
 * taken when perf_hooks loaded: real time). Inside a host they are on the host's clock instead:
 * mark() and measure() are handed the host's performance.now() wherever Node would read its
 * own (a mark's default startTime, a measure's default end), and nodeTiming's getters answer for
 * the simulated process (see nodeTimingGetters). Event-loop utilization and delay are in
 * shims/process/machine.ts.
 *
 * A PerformanceObserver gets its entries from a real immediate Node queues when an entry is
 * made (lib/internal/perf/observe.js took the original setImmediate at startup): in plain Node
 * that delivery comes before any later timer. So an entry host code makes for an observer (a
 * mark, a measure, Node's http, net, dns and function entries, fetch's resource timing) holds the
 * simulation until the delivery has run; 'gc' entries are never given to a host.
 *
 * The entries Node's internals make (http, net, dns, http2), which start and end in code the
 * shim does not see, are moved to the host's clock when they reach the observers, by the event
 * their stamps were taken in (EventTimeline). A timerified function's entries are on the host's
 * clock too (timerifyOnHostClock).
 */
import perfHooks, { performance as perf, PerformanceObserver } from 'node:perf_hooks';
import { holdForCheckPhases } from '../../runtime/driver/own-immediates.js';
import { activeWorld } from '../../runtime/world.js';
import { currentHost, type Host } from '../context.js';
import { mirrorFunction, type PatchSet } from '../registry.js';
import { readGlobal } from '../realms.js';
import type { Realm, Shim } from '../shim.js';

/**
 * Node's performance.now, from the prototype: a test's fake timers installed on Node's global put
 * a fake of their own on the object itself (@sinonjs/fake-timers), perhaps before dst-runtime loaded.
 */
const realNow = (Object.getPrototypeOf(perf) as { now?: typeof perf.now }).now ?? perf.now;
const realTimeOriginGetter = (() => {
  for (let o: object | null = perf; o !== null; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, 'timeOrigin');
    if (d !== undefined) return d.get ?? (() => d.value as number);
  }
  return () => NaN;
})();

/**
 * performance.now: the host's clock. Called on anything but the performance object (a detached
 * `const { now } = performance`), Node's own answers, with its error (ERR_INVALID_ARG_TYPE on
 * Node 20, ERR_INVALID_THIS on 22 and 24). Method shorthand: not a constructor, as Node's.
 */
const { now } = {
  now(this: unknown): number {
    if (this !== perf) return Reflect.apply(realNow, this, []);
    const host = currentHost();
    if (host === undefined) return Reflect.apply(realNow, this, []);
    return host.clock.perfNowMs(host.readNowNs());
  },
};

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

/**
 * After an entry was made by host code: no event runs until the observers have had it. (Done for
 * every entry by maybeBuffer where Node's method was found; here only without it.)
 */
function holdForDelivery(): void {
  if (observing.size === 0 || realMaybeBuffer !== undefined) return;
  const host = currentHost();
  if (host === undefined) return;
  // Queued after Node's delivery immediate (made by the entry), so it runs after it.
  holdForCheckPhases(host.world, 1);
}

/**
 * mark(name, options) with the host's clock where Node would read its own: a missing
 * options.startTime (`options?.startTime ?? now()` in lib/internal/perf/usertiming.js, Node 20-24).
 * Anything Node rejects is passed through unchanged, for Node's own error.
 */
function markArgs(host: Host, args: unknown[]): unknown[] {
  if (args.length === 0) return args;
  const [name, options] = args;
  if (options === undefined || options === null) return [name, { startTime: host.clock.perfNowMs(host.readNowNs()) }];
  if (typeof options !== 'object') return args;
  const { startTime, detail } = options as { startTime?: unknown; detail?: unknown };
  if (startTime !== undefined && startTime !== null) return args;
  return [name, { detail, startTime: host.clock.perfNowMs(host.readNowNs()) }];
}

/**
 * measure(name, startOrOptions, endMark) with the host's clock where Node would read its own:
 * the end, when neither endMark, options.end nor options.start with options.duration gives it
 * (calculateStartDuration, Node 20-24). A defaulted end becomes endMark (Node takes a number as
 * a timestamp) or, when options name a start (endMark is refused then), options.end.
 */
function measureArgs(host: Host, args: unknown[]): unknown[] {
  const [name, startOrOptions, endMark] = args;
  if (args.length === 0 || endMark !== undefined) return args;
  const endMs = host.clock.perfNowMs(host.readNowNs());
  if (startOrOptions === null || typeof startOrOptions !== 'object') return [name, startOrOptions, endMs];
  const { start, end, duration, detail } = startOrOptions as { start?: unknown; end?: unknown; duration?: unknown; detail?: unknown };
  if (start === undefined && end === undefined) return [name, startOrOptions, endMs];
  if (end === undefined && duration === undefined) return [name, { start, end: endMs, detail }];
  return args;
}

/**
 * Node hands each new entry to every observer through a method keyed by a module-private symbol
 * (`kMaybeBuffer`, lib/internal/perf/observe.js, Node 20-24); the observer buffers it and queues
 * its delivery on Node's own setImmediate. Wrapped, it tells when host code made an entry of any
 * kind (http, net, dns, function, resource: Node's internals make those, not mark()), so the
 * simulation can wait for the delivery; undefined if a later Node renames it.
 */
const kMaybeBuffer = Object.getOwnPropertySymbols(PerformanceObserver.prototype).find((symbol) => symbol.description === 'kMaybeBuffer');
const realMaybeBuffer =
  kMaybeBuffer === undefined ? undefined : ((PerformanceObserver.prototype as unknown as Record<symbol, unknown>)[kMaybeBuffer] as Function | undefined);

// ---- timerify: 'function' entries on the host's clock ---------------------------------------

/** A timerified call by host code while an observer observes, until Node makes its entry. */
interface TimedCall {
  /** Node's clock just before and just after the call: its entry's startTime falls between. */
  realBeforeMs: number;
  realAfterMs: number;
  virtualStartMs: number;
}
/** Calls waiting for their entry, oldest first; a promise's entry comes when it settles. */
const timedCalls: TimedCall[] = [];
/** Most calls kept: one whose entry never comes (an observer disconnected meanwhile) is dropped in time. */
const TIMED_CALLS_MAX = 1024;
const timerifiedByNode = new WeakMap<Function, Function>();

/**
 * performance.timerify(fn, options): Node's timerified function, wrapped so that a host's call
 * is timed on the host's clock. While an observer observes, the 'function' entry it makes gets
 * the instant of the call as its start and the virtual time until Node made it as its duration
 * (0 for a synchronous function: virtual time stands still within an event), matched by Node's
 * own start, read within the call. A histogram given in options records a host's call's virtual
 * duration in nanoseconds (at least 1, the least a histogram takes): Node is handed a stand-in
 * that records only calls made outside every host (Node's real duration, as before).
 */
function timerifyOnHostClock(realTimerify: Function) {
  return function timerify(this: unknown, ...args: unknown[]): unknown {
    // Node's own validation and errors, with the options as given.
    let timed = Reflect.apply(realTimerify, this, args) as Function;
    const histogram = (args[1] as { histogram?: Recordable } | undefined)?.histogram;
    if (histogram !== undefined) timed = Reflect.apply(realTimerify, this, [args[0], { ...(args[1] as object), histogram: outsideHosts(histogram) }]) as Function;
    let wrapper = histogram === undefined ? timerifiedByNode.get(timed) : undefined;
    if (wrapper !== undefined) return wrapper;
    wrapper = function (this: unknown, ...callArgs: unknown[]): unknown {
      const host = currentHost();
      const construct = new.target !== undefined;
      const call = (): unknown => (construct ? Reflect.construct(timed, callArgs) : Reflect.apply(timed, this, callArgs));
      if (host === undefined || (observing.size === 0 && histogram === undefined)) return call();
      const startNs = host.readNowNs();
      let record: TimedCall | undefined;
      if (observing.size > 0) {
        record = { realBeforeMs: Reflect.apply(realNow, perf, []) as number, realAfterMs: Infinity, virtualStartMs: host.clock.perfNowMs(startNs) };
        timedCalls.push(record);
        if (timedCalls.length > TIMED_CALLS_MAX) timedCalls.shift();
      }
      let result: unknown;
      try {
        result = call();
      } finally {
        if (record !== undefined) record.realAfterMs = Reflect.apply(realNow, perf, []) as number;
      }
      if (histogram !== undefined) {
        const recordVirtual = (): void => {
          Reflect.apply(histogram.record, histogram, [Math.max(1, Math.ceil(host.readNowNs() - startNs))]);
        };
        // Node records a promise's duration when it settles (its result.finally), else at once.
        if (!construct && typeof (result as Promise<unknown> | undefined)?.then === 'function') (result as Promise<unknown>).then(recordVirtual, recordVirtual);
        else recordVirtual();
      }
      return result;
    };
    for (const key of Reflect.ownKeys(timed)) {
      if (key !== 'prototype') Object.defineProperty(wrapper, key, Object.getOwnPropertyDescriptor(timed, key)!);
    }
    if (histogram === undefined) timerifiedByNode.set(timed, wrapper);
    return wrapper;
  };
}

interface Recordable {
  record(value: number | bigint): void;
}

/**
 * A stand-in for a RecordableHistogram that Node's timerify records into: calls from outside
 * every host reach the histogram, a host's are recorded by the wrapper above. It inherits the
 * histogram's own properties, so Node takes it for one (isHistogram reads its handle).
 */
function outsideHosts(histogram: Recordable): Recordable {
  const standIn = Object.create(histogram) as Recordable;
  Object.defineProperty(standIn, 'record', {
    value: function record(value: number | bigint): void {
      if (currentHost() !== undefined) return;
      Reflect.apply(histogram.record, histogram, [value]);
    },
  });
  return standIn;
}

/** Where Node keeps an entry's times (lib/internal/perf/performance_entry.js, Node 20-24). */
function entryTimeKeys(entry: object): { start: symbol; duration: symbol } | undefined {
  const symbols = Object.getOwnPropertySymbols(entry);
  const start = symbols.find((symbol) => symbol.description === 'PerformanceEntry.StartTime');
  const duration = symbols.find((symbol) => symbol.description === 'PerformanceEntry.Duration');
  return start === undefined || duration === undefined ? undefined : { start, duration };
}

/** A 'function' entry of a host's timerified call: on the host's clock. */
function retime(host: Host, entry: Record<symbol, unknown>): void {
  const keys = entryTimeKeys(entry);
  if (keys === undefined) return;
  const realStartMs = entry[keys.start] as number;
  const at = timedCalls.findIndex((call) => call.realBeforeMs <= realStartMs && realStartMs <= call.realAfterMs);
  if (at === -1) return;
  const [call] = timedCalls.splice(at, 1);
  entry[keys.start] = call!.virtualStartMs;
  entry[keys.duration] = host.clock.perfNowMs(host.readNowNs()) - call!.virtualStartMs;
}

// ---- http, net, dns and http2 entries: on the host's clock ----------------------------------

/**
 * Entries Node's own modules make (startPerf/stopPerf in lib/internal/perf/observe.js: an http
 * request, a net connect, a dns lookup; http2's sessions and streams from C++) are stamped with
 * Node's internal clock at their start and their end, in code the shims do not see. Both stamps
 * are taken inside some event of the host (or in the ticks after it), where virtual time stands
 * still: so while such an observer exists the world's events are sampled, real time at each
 * event's start beside the host's performance.now() then, and a stamp maps to the sample of the
 * event it was taken in (the last one before it). Bounded: a start older than the oldest sample
 * kept maps to that sample.
 */
const NODE_TIMED_TYPES = new Set<unknown>(['http', 'net', 'dns', 'http2']);
const SAMPLES_MAX = 1 << 16;
const SAMPLES_MASK = SAMPLES_MAX - 1;

class EventTimeline {
  private readonly realMs = new Float64Array(SAMPLES_MAX);
  private readonly nowNs = new Float64Array(SAMPLES_MAX);
  private readonly hosts: (Host | undefined)[] = new Array(SAMPLES_MAX);
  /** Samples taken so far; the last SAMPLES_MAX are kept, in a ring. */
  private count = 0;

  /** Host code of `host` runs now, at the world's instant `nowNs`. */
  sample(host: Host, nowNs: number): void {
    const last = (this.count - 1) & SAMPLES_MASK;
    if (this.count > 0 && this.hosts[last] === host && this.nowNs[last] === nowNs) return;
    const at = this.count & SAMPLES_MASK;
    this.realMs[at] = Reflect.apply(realNow, perf, []) as number;
    this.nowNs[at] = nowNs;
    this.hosts[at] = host;
    this.count++;
  }

  /** The sample of the event that ran at Node's internal time `realMs` (ring index), or -1. */
  private at(realMs: number): number {
    if (this.count === 0) return -1;
    let low = Math.max(0, this.count - SAMPLES_MAX);
    let high = this.count - 1;
    if (this.realMs[low & SAMPLES_MASK]! > realMs) return low & SAMPLES_MASK;
    // The last sample taken at or before realMs (real time only grows).
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.realMs[middle & SAMPLES_MASK]! <= realMs) low = middle;
      else high = middle - 1;
    }
    return low & SAMPLES_MASK;
  }

  /**
   * An entry's start and end, stamped with Node's internal clock, on the clock of the host whose
   * event the start was stamped in (an end stamped between events, as http2's, may fall in
   * another host's event: its instant is taken, on the first host's clock).
   */
  span(realStartMs: number, realEndMs: number): { startMs: number; endMs: number } | undefined {
    const first = this.at(realStartMs);
    const last = this.at(realEndMs);
    const host = first === -1 ? undefined : this.hosts[first];
    if (host === undefined) return undefined;
    return { startMs: host.clock.perfNowMs(this.nowNs[first]!), endMs: host.clock.perfNowMs(this.nowNs[last]!) };
  }
}

const timelines = new WeakMap<object, EventTimeline>();

/** Samples every later event of `host`'s world (see EventTimeline), once per world. */
function sampleEvents(host: Host): void {
  const world = host.world;
  if (timelines.has(world)) return;
  const timeline = new EventTimeline();
  timelines.set(world, timeline);
  timeline.sample(host, host.readNowNs());
  const previous = world.beforeEvent;
  const sample = (eventHost: Host): void => timeline.sample(eventHost, world.nowNs);
  world.beforeEvent =
    previous === undefined
      ? sample
      : (eventHost, chain) => {
          previous(eventHost, chain);
          sample(eventHost);
        };
}

/** Whether observe()'s options ask for an entry type Node's own modules make. */
function observesNodeTimed(options: unknown): boolean {
  if (typeof options !== 'object' || options === null) return false;
  const { entryTypes, type } = options as { entryTypes?: unknown; type?: unknown };
  if (Array.isArray(entryTypes)) return entryTypes.some((t) => NODE_TIMED_TYPES.has(t));
  return NODE_TIMED_TYPES.has(type);
}

/** Entries already moved to a host's clock (every observer's kMaybeBuffer gets the same entry). */
const retimedEntries = new WeakSet<object>();

function retimeNodeEntry(entry: Record<symbol, unknown>): void {
  if (retimedEntries.has(entry)) return;
  // Entries made inside a host; and http2's, which Node emits from its native side outside
  // every host's context (the test runner's own http2, rare during a run, goes along).
  const host = currentHost();
  const world = host === undefined ? (entry as { entryType?: unknown }).entryType === 'http2' ? activeWorld() : undefined : host.world;
  const timeline = world === undefined ? undefined : timelines.get(world);
  const keys = timeline === undefined ? undefined : entryTimeKeys(entry);
  if (keys === undefined) return;
  const realStartMs = entry[keys.start] as number;
  const span = timeline!.span(realStartMs, realStartMs + (entry[keys.duration] as number));
  if (span === undefined) return;
  retimedEntries.add(entry);
  entry[keys.start] = span.startMs;
  entry[keys.duration] = Math.max(0, span.endMs - span.startMs);
}

function maybeBuffer(this: object, entry: { entryType?: unknown }): unknown {
  const host = currentHost();
  // Garbage collections are the real process's, at moments the seed does not decide: a
  // simulated process is never told of one.
  if (host !== undefined && entry?.entryType === 'gc') return undefined;
  if (host !== undefined && entry?.entryType === 'function' && timedCalls.length > 0) retime(host, entry as unknown as Record<symbol, unknown>);
  if (NODE_TIMED_TYPES.has(entry?.entryType)) retimeNodeEntry(entry as unknown as Record<symbol, unknown>);
  const result = Reflect.apply(realMaybeBuffer!, this, [entry]);
  if (host !== undefined) holdForCheckPhases(host.world, 1);
  return result;
}

const observed = {
  mark(this: unknown, ...args: unknown[]): unknown {
    const host = currentHost();
    const entry = Reflect.apply(real.mark, this, host === undefined ? args : markArgs(host, args));
    holdForDelivery();
    return entry;
  },
  measure(this: unknown, ...args: unknown[]): unknown {
    const host = currentHost();
    const entry = Reflect.apply(real.measure, this, host === undefined ? args : measureArgs(host, args));
    holdForDelivery();
    return entry;
  },
  observe(this: object, ...args: unknown[]): unknown {
    const result = Reflect.apply(real.observe, this, args);
    observing.add(this);
    const host = currentHost();
    if (host !== undefined && observesNodeTimed(args[0])) sampleEvents(host);
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

// ---- new PerformanceMark() -----------------------------------------------------------------

/**
 * `new PerformanceMark(name, options)` called directly (performance.mark() makes its own with
 * Node's internal class, handled by markArgs above) reads Node's internal clock for a missing
 * options.startTime, as mark() does. The class is stood in for by a Proxy whose construction
 * takes the host's clock there: `instanceof`, statics, subclasses (their new.target is passed
 * on) and the error of a call without `new` stay Node's.
 */
const RealPerformanceMark = perfHooks.PerformanceMark;
const PerformanceMarkOnHostClock: typeof RealPerformanceMark = new Proxy(RealPerformanceMark, {
  construct(target, args, newTarget) {
    const host = currentHost();
    return Reflect.construct(target, host === undefined ? args : markArgs(host, args), newTarget === PerformanceMarkOnHostClock ? target : newTarget) as object;
  },
});

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
    at = Reflect.apply(now, perf, []) as number;
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

// ---- performance.nodeTiming ----------------------------------------------------------------

/**
 * The simulated process's milestones, on its host's performance clock. A host's process starts
 * STARTUP_MS before its program's first line (runtime/clock/host-clock.ts): Node's start-up
 * milestones (nodeStart, v8Start, environment, bootstrapComplete) fall in that span, in Node's
 * order and at about the times Node 24 shows on a quiet machine; the loop starts once the
 * program's first tick is over (loopStart -1 until then, as on Node's main thread), which takes
 * no virtual time, so at STARTUP_MS, unless it spun on the clock (World.endSpin). loopExit is
 * -1 while the process runs and its performance.now() once its loop ran out of work ('exit'
 * listeners; -1 after an explicit process.exit(), whose loop never exits). Real Node reports
 * how long its own start-up took, a different figure each run.
 */
const SIMULATED_MILESTONES_MS = { nodeStart: 0.5, v8Start: 5, environment: 17, bootstrapComplete: 24 } as const;

/** Whether the host's process is exiting: Node's `process._exiting`, or a library host taken down. */
function exiting(host: Host): boolean {
  if (host.state !== 'running') return true;
  return host.world.mode === 'register' && (process as unknown as { _exiting?: boolean })._exiting === true;
}

/** performance.nodeTiming's own getters inside a host: undefined where Node's is kept. */
function nodeTimingGetter(key: string, realGet: () => unknown): (() => unknown) | undefined {
  const inHost = (simulated: (host: Host) => unknown) =>
    function (this: unknown): unknown {
      const host = currentHost();
      return host === undefined ? Reflect.apply(realGet, this, []) : simulated(host);
    };
  // The main thread's loop starts once the program's first tick is over: -1 until then.
  if (key === 'loopStart') return inHost((host) => ((host.world as { bootRunning?: boolean }).bootRunning ? -1 : host.clock.loopStartMs()));
  if (key === 'loopExit') {
    // Set only when the loop ran out of work: -1 after an explicit process.exit() (Node 20, 22
    // and 24), which the real process's own loopExit tells in register mode. A library host's
    // process ends only by exit, a crash or a kill: its loop never runs out.
    return function (this: unknown): unknown {
      const host = currentHost();
      if (host === undefined) return Reflect.apply(realGet, this, []);
      if (host.world.mode !== 'register' || !exiting(host) || Reflect.apply(realGet, this, []) === -1) return -1;
      return host.clock.perfNowMs(host.readNowNs());
    };
  }
  if (key in SIMULATED_MILESTONES_MS) return inHost(() => SIMULATED_MILESTONES_MS[key as keyof typeof SIMULATED_MILESTONES_MS]);
  if (key === 'duration') return inHost((host) => host.clock.perfNowMs(host.readNowNs()));
  // The loop's idle time is the host's uptime less its CPU time, as eventLoopUtilization() has it.
  if (key === 'idleTime') return inHost(() => (perf as unknown as { eventLoopUtilization(): { idle: number } }).eventLoopUtilization().idle);
  if (key === 'uvMetricsInfo') {
    // Node 22+: libuv's counters. One loop turn per event the host ran; nothing waits in between.
    return inHost((host) => ({ loopCount: host.eventsRun, events: host.eventsRun, eventsWaiting: 0 }));
  }
  return undefined;
}

/**
 * After a seed of an explorer's worker: Node's timeline as before the worker's first seed (its
 * buffers are the process's, and a fresh process starts with none). The seed's observers are
 * disconnected (a later seed's entries would reach its callbacks), and its marks, measures and
 * resource timings (a fetch's) cleared: a later seed's getEntriesByType() listed them.
 */
export function clearTimeline(): void {
  for (const observer of observing) Reflect.apply(real.disconnect, observer, []);
  observing.clear();
  perf.clearMarks();
  perf.clearMeasures();
  perf.clearResourceTimings();
}

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
    patches.replace(perfHooks, 'PerformanceMark', PerformanceMarkOnHostClock);
    patches.replace(globalThis, 'PerformanceMark', PerformanceMarkOnHostClock);
    patches.replace(targetPrototype, 'dispatchEvent', dispatchEvent);
    if (kMaybeBuffer !== undefined && typeof realMaybeBuffer === 'function') {
      patches.replace(PerformanceObserver.prototype as unknown as Record<symbol, unknown>, kMaybeBuffer, maybeBuffer);
      const realTimerify = perfPrototype.timerify;
      if (typeof realTimerify === 'function') {
        const timerify = mirrorFunction(timerifyOnHostClock(realTimerify), realTimerify);
        patches.replace(perfPrototype, 'timerify', timerify);
        // Newer Node 24 also exports it from perf_hooks, the same function as performance's.
        const hooks = perfHooks as unknown as Record<string, unknown>;
        if (hooks.timerify === realTimerify) patches.replace(hooks, 'timerify', timerify);
      }
    }
    // Own accessors of the one PerformanceNodeTiming instance (lib/internal/perf/nodetiming.js).
    const nodeTiming = perf.nodeTiming as unknown as object;
    for (const key of Object.keys(Object.getOwnPropertyDescriptors(nodeTiming))) {
      const descriptor = Object.getOwnPropertyDescriptor(nodeTiming, key)!;
      const getter = descriptor.get === undefined ? undefined : nodeTimingGetter(key, descriptor.get);
      if (getter !== undefined) patches.defineGetter(nodeTiming, key, getter, descriptor.enumerable ?? true);
    }
  },
  realm(patches: PatchSet, realm: Realm) {
    // A test's fake timers put a performance object of their own in a realm's global slot (Node's
    // slot is an accessor over perf_hooks' object, and a Jest context copies that object): host
    // code must reach Node's, simulated in place by install(), until the run is over.
    if (readGlobal(realm.global, 'performance') !== perf) patches.replace(realm.global, 'performance', perf);
  },
};
