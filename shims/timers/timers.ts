/**
 * setTimeout / setInterval / setImmediate and their clear* functions on virtual time, for the
 * global slots and node:timers alike. Semantics follow Node's lib/timers.js and
 * lib/internal/timers.js: delay coercion and warnings, Timeout objects with
 * ref/unref/hasRef/refresh/close/[Symbol.toPrimitive], clearing by primitive id only after the
 * id was taken, refresh() reviving a timer that already fired but not one that was cleared,
 * try/finally rescheduling of intervals, and every callback running with `this` = its handle.
 *
 * Calls from outside every host (the test runner in library mode) go to the real functions.
 */
import type { AsyncResource } from 'node:async_hooks';
import { captureContext, contextsSeen } from '../async-hooks/async-context.js';
import timersModule from 'node:timers';
import { deprecate, promisify } from 'node:util';
import { NS_PER_MS } from '../../runtime/clock/units.js';
import { activeDomain, type DomainLike, outsideDomain, runEnteredIn } from '../../runtime/driver/outside-domain.js';
import { behindFake, selfAdvancingClock } from '../../runtime/fake-timers.js';
import { originals } from '../../runtime/originals.js';
import { EVENT_KIND_CODE, kCheckTurn, kFire, kHost, kKind, kLocalClock, kRef, kScope, kSeq, kSite, type QueueEntry } from '../../runtime/scheduler/event.js';
import { keepShapesOf } from '../../runtime/scheduler/shape-keeper.js';
import { type CapturedStack, captureSite, captureSiteLater, siteOf } from '../../runtime/trace/site.js';
import type { World } from '../../runtime/world.js';
import { currentHost, NODE_MAJOR, type Host } from '../context.js';
import { outOfRange, validateFunction, validateNumber } from '../node-errors.js';
import { noteForeignImmediate } from './native-immediates.js';
import { noteIfToolTimer } from '../strict/tool-work.js';
import type { PatchSet } from '../registry.js';
import { patchExportKeepingNodeCaptures } from '../builtin-captures.js';
import type { Realm, Shim } from '../shim.js';

/** Node's process object, taken at load: a program may replace the global one. */
const nodeProcess: NodeJS.Process = originals.process;

/** 2^31 - 1: Node's TIMEOUT_MAX. */
export const TIMEOUT_MAX_MS = 2 ** 31 - 1;

const kRefed = Symbol('refed');
const kHasPrimitive = Symbol('kHasPrimitive');
const kId = Symbol('asyncId');

const KIND_TIMEOUT = EVENT_KIND_CODE.timeout;
const KIND_INTERVAL = EVENT_KIND_CODE.interval;
const KIND_IMMEDIATE = EVENT_KIND_CODE.immediate;

/** Timers per world that were coerced to a primitive id (Node's knownTimersById). */
const knownTimersById = new WeakMap<World, Map<string, Timeout>>();
/**
 * The node:domain each handle was made in, entered around its callbacks as Node's domain hooks
 * do (and not exited when the callback throws: the domain's error handler does that). Rare, so
 * kept aside rather than in a field of every handle.
 */
const handleDomains = new WeakMap<object, DomainLike>();
let domainsSeen = false;

function noteDomain(handle: object): void {
  const domain = activeDomain();
  if (domain === undefined) return;
  handleDomains.set(handle, domain);
  domainsSeen = true;
}

/** Timer ids (what +timeout returns) count per world, so a seed gives the same ids every run. */
function nextTimerId(world: World): number {
  return world.nextHandleId++;
}

// Node 24 warns once per process for a negative or NaN delay (not on 20 and 22).
let warnedNegativeNumber = false;
let warnedNotNumber = false;

/**
 * Coerces a delay as Node's Timeout constructor does; returns milliseconds. The common case (a
 * number in range) is a few bytes of bytecode, so V8 inlines it into every setTimeout without
 * spending its inlining budget; the rest (coercion, warnings) is in coerceOtherDelayMs. The two
 * in one function were 266 bytes of bytecode, inlined into every setTimeout: more than half of
 * the 460 bytes past which TurboFan stops inlining a callee's optimized code into its callers
 * (docs/notes/node-facts.md, "V8 and the event path").
 */
export function coerceDelayMs(after: unknown): number {
  if (typeof after === 'number' && after >= 1 && after <= TIMEOUT_MAX_MS) return wholeMs(after);
  return coerceOtherDelayMs(after);
}

/**
 * A whole number of ms as a small integer: a delay computed in floating point (a `% 10` of a
 * uint32) arrives as a heap number, and storing it as is in _idleTimeout boxed it anew for every
 * timer (16 of the bytes each setTimeout allocated). The value is the same.
 */
function wholeMs(ms: number): number {
  const whole = ms | 0;
  return whole === ms ? whole : ms;
}

function coerceOtherDelayMs(after: unknown): number {
  let ms: number;
  if (after === undefined && NODE_MAJOR >= 23) {
    ms = 1;
  } else {
    ms = (after as number) * 1; // Coalesce to number or NaN, like Node (may throw for symbols)
  }
  if (!(ms >= 1 && ms <= TIMEOUT_MAX_MS)) {
    if (ms > TIMEOUT_MAX_MS) {
      nodeProcess.emitWarning(
        `${ms} does not fit into a 32-bit signed integer.\nTimeout duration was set to 1.`,
        'TimeoutOverflowWarning',
      );
    } else if (NODE_MAJOR >= 23 && ms < 0 && !warnedNegativeNumber) {
      warnedNegativeNumber = true;
      nodeProcess.emitWarning(`${ms} is a negative number.\nTimeout duration was set to 1.`, 'TimeoutNegativeWarning');
    } else if (NODE_MAJOR >= 23 && Number.isNaN(ms) && !warnedNotNumber) {
      warnedNotNumber = true;
      nodeProcess.emitWarning(`${ms} is not a number.\nTimeout duration was set to 1.`, 'TimeoutNaNWarning');
    }
    ms = 1;
  }
  return wholeMs(ms);
}

/** Runs a due timer (its [kFire]): the timer is its own queue entry, re-armed in place. */
function fireTimeout(this: Timeout): void {
  if (domainsSeen && handleDomains.has(this)) runInDomain(this, runTimeout);
  else runTimeout(this);
}

/**
 * Runs `fire(handle)` inside the node:domain the handle was made in; the domain stays entered
 * when it throws (its error handler exits it), as with Node's domain hooks. Kept out of the
 * handles' own fire functions, which every event runs.
 */
function runInDomain<T extends object>(handle: T, fire: (handle: T) => void): void {
  runEnteredIn(handleDomains.get(handle)!, () => fire(handle));
}

function runTimeout(timer: Timeout): void {
  timer[kSeq] = 0; // no longer queued
  const host = timer[kHost];
  const world = host.world;
  // Node's own clearTimeout, captured by a module loaded before dst-runtime, duck-types our
  // Timeout (it has _onTimeout) and clears it behind our back: honour that.
  if (!timer._onTimeout || timer._idleTimeout === -1) {
    if (!timer._destroyed) {
      timer._destroyed = true;
      emitScopeDestroy(timer);
    }
    return;
  }
  // An interval's next run counts from now, before its callback (Node's listOnTimeout takes
  // `start` from the loop's clock first): a callback that runs long does not stretch the period.
  const startNs = timer._repeat === null ? -1 : world.scheduleNowNs;
  try {
    const args = timer._timerArgs;
    if (args === undefined) (timer._onTimeout as () => void)();
    else Reflect.apply(timer._onTimeout as Function, timer, args);
  } finally {
    if (timer._repeat !== null && timer._idleTimeout !== -1) {
      timer._idleTimeout = timer._repeat;
      if (startNs === -1) arm(timer); // made an interval by its own callback (_repeat set)
      else rearmFrom(timer, startNs);
    } else if (timer[kSeq] === 0) {
      if (timer._destroyed) {
        cleanTimer(timer); // cleared inside its own callback (Node 24 cleans it now)
      } else {
        timer._destroyed = true;
        if (timer[kRefed]) world.unrefHandle(host);
        emitScopeDestroy(timer);
        if (timer[kHasPrimitive]) knownTimersById.get(world)?.delete(String(timer[kId]));
      }
    }
  }
}

/**
 * (Re)schedules a timer at now + its delay. A pending firing is dropped by the same stroke: the
 * timer's place in the queue is the one with its new seq, any older place is stale. The timer
 * runs in the async context captured when it was created (kScope): the current host and every
 * AsyncLocalStorage store of the program under test, as real timers do.
 */
function arm(timer: Timeout): void {
  const host = timer[kHost];
  const world = host.world;
  // Node truncates the delay to whole ms when it queues a timer (insert(): MathTrunc), so
  // setTimeout(a, 1.9) fires before setTimeout(b, 2) and together with setTimeout(c, 1).
  const delayNs = host.clock.virtualDelayNs(Math.trunc(timer._idleTimeout) * NS_PER_MS);
  timer._idleStart = Math.floor(world.scheduleNowNs / NS_PER_MS);
  world.enqueue(timer, delayNs);
}

/**
 * Re-arms an interval after its callback, due its delay from `startNs` (when the callback
 * started), as Node re-inserts it: a callback that ran longer than the delay makes it due at
 * once, and it runs when its host is no longer busy.
 */
function rearmFrom(timer: Timeout, startNs: number): void {
  const host = timer[kHost];
  const delayNs = host.clock.virtualDelayNs(Math.trunc(timer._idleTimeout) * NS_PER_MS);
  timer._idleStart = Math.floor(startNs / NS_PER_MS);
  host.world.enqueueFrom(timer, startNs, delayNs);
}

/*
 * The Timeout constructor runs once per setTimeout, inlined by V8 into the program's calls only
 * while its bytecode, with all it inlines, stays small (TurboFan refuses a callee whose own
 * optimized code inlined more than 460 bytes of bytecode; on Node 22 simSetTimeout's was 908, so
 * every program callback paid a call into it). What only some programs need (their own async
 * stores, node:domain, sites of intervals and of traced runs) is done out of line, below.
 */

/** The program's own async context, and the node:domain it runs in, if any (see the constructor). */
function noteTimeoutContext(timer: Timeout): void {
  const scope = captureContext('Timeout');
  if (scope !== undefined) timer[kScope] = scope;
  if (domainsSeen || activeDomain() !== undefined) noteDomain(timer);
}

/** Intervals keep their creation site, so a runaway one can be named when a limit trips. */
function noteTimeoutSite(timer: Timeout, host: Host): void {
  if (host.world.captureSites) timer[kSite] = captureSite();
  else sites.set(timer, captureSiteLater());
}

/** A simulated timer, shaped like Node's Timeout; also its own entry in the event queue. */
export class Timeout implements QueueEntry {
  // Own keys in Node's order (some code inspects them): _idleTimeout, _idlePrev, _idleNext,
  // _idleStart, _onTimeout, _timerArgs, _repeat, _destroyed. Declared only: the constructor
  // assigns every field in this order (no class-field definitions to run first).
  declare _idleTimeout: number;
  declare _idlePrev: Timeout | null;
  declare _idleNext: Timeout | null;
  declare _idleStart: number | null;
  declare _onTimeout: Function | null;
  declare _timerArgs: unknown[] | undefined;
  declare _repeat: number | null;
  declare _destroyed: boolean;
  declare [kRefed]: boolean;
  declare [kHasPrimitive]: boolean; // on the prototype: false until coerced to its id
  declare [kId]: number;
  declare [kHost]: Host;
  declare [kScope]: AsyncResource | undefined; // on the prototype: undefined unless captured
  declare [kSeq]: number;
  declare [kSite]: string | undefined; // on the prototype: kept in `sites`
  declare [kKind]: number; // on the prototype: from _repeat
  declare [kRef]: boolean; // on the prototype: false (a timer refs the run as a handle)
  declare [kFire]: () => void; // on the prototype: fireTimeout

  constructor(host: Host, callback: Function, after: unknown, args: unknown[] | undefined, isRepeat: boolean, isRefed: boolean) {
    const ms = coerceDelayMs(after);
    this._idleTimeout = ms;
    this._idlePrev = this;
    this._idleNext = this;
    this._idleStart = null;
    this._onTimeout = callback;
    this._timerArgs = args;
    this._repeat = isRepeat ? ms : null;
    this._destroyed = false;
    this[kRefed] = isRefed;
    this[kId] = nextTimerId(host.world);
    this[kHost] = host;
    // kHasPrimitive and kScope default to the prototype's values: two fields fewer, 16 of the
    // bytes every setTimeout allocates (a scope exists only once the program uses a store).
    if (contextsSeen() || activeDomain() !== undefined) noteTimeoutContext(this);
    this[kSeq] = 0;
    if (isRepeat || host.world.captureSites) noteTimeoutSite(this, host);
    if (isRefed) host.world.refHandle(host);
  }

  refresh(): this {
    if (this._idleTimeout < 0) return this; // cleared: Node's insertGuarded ignores it
    if (this._destroyed) {
      // A timer that already fired comes back to life, as in Node.
      this._destroyed = false;
      if (this[kRefed]) this[kHost].world.refHandle(this[kHost]);
    }
    arm(this);
    return this;
  }

  unref(): this {
    if (this[kRefed]) {
      this[kRefed] = false;
      if (!this._destroyed) this[kHost].world.unrefHandle(this[kHost]);
    }
    return this;
  }

  ref(): this {
    if (!this[kRefed]) {
      this[kRefed] = true;
      if (!this._destroyed) this[kHost].world.refHandle(this[kHost]);
    }
    return this;
  }

  hasRef(): boolean {
    return this[kRefed];
  }

  close(): this {
    simClearTimeout(this);
    return this;
  }

  [Symbol.toPrimitive](): number {
    const id = this[kId];
    if (!this[kHasPrimitive]) {
      this[kHasPrimitive] = true;
      const world = this[kHost].world;
      let byId = knownTimersById.get(world);
      if (byId === undefined) knownTimersById.set(world, (byId = new Map()));
      byId.set(String(id), this);
    }
    return id;
  }
}

/**
 * Where handles were created or first queued, when captured (tracing, a limit close, every
 * interval): rarely, so kept aside rather than in a field of every handle — each byte of a
 * Timeout is allocated once per setTimeout call.
 */
const sites = new WeakMap<object, string | CapturedStack | undefined>();
const siteAccessor: PropertyDescriptor = {
  get(this: object): string | undefined {
    const site = sites.get(this);
    if (typeof site !== 'object') return site;
    // An interval's creation stack, formatted on first use.
    const formatted = siteOf(site);
    sites.set(this, formatted);
    return formatted;
  },
  set(this: object, site: string | undefined): void {
    sites.set(this, site);
  },
  configurable: true,
};
Object.defineProperty(Timeout.prototype, kSite, siteAccessor);
Object.defineProperty(Timeout.prototype, kKind, {
  get(this: Timeout): number {
    return this._repeat === null ? KIND_TIMEOUT : KIND_INTERVAL;
  },
  configurable: true,
});
Object.defineProperty(Timeout.prototype, kRef, { value: false, writable: true, configurable: true });
Object.defineProperty(Timeout.prototype, kFire, { value: fireTimeout, writable: true, configurable: true });
// Defaults an instance shadows when it has its own: set by assignment, so writable.
Object.defineProperty(Timeout.prototype, kHasPrimitive, { value: false, writable: true, configurable: true });
Object.defineProperty(Timeout.prototype, kScope, { value: undefined, writable: true, configurable: true });
// Its delay runs on the host's clock: a drift change re-times it (World.setDrift).
Object.defineProperty(Timeout.prototype, kLocalClock, { value: true, writable: true, configurable: true });

if (typeof Symbol.dispose === 'symbol') {
  Object.defineProperty(Timeout.prototype, Symbol.dispose, {
    value: function dispose(this: Timeout) {
      simClearTimeout(this);
    },
    writable: true,
    configurable: true,
  });
}

/**
 * Node 24 drops a finished handle's callback and arguments (cleanTimer / cleanImmediate:
 * `undefined`); Node 20 and 22 only set the callback to null and keep the arguments.
 */
const CLEANS_HANDLES = NODE_MAJOR >= 23;

function cleanTimer(timer: Timeout): void {
  if (!CLEANS_HANDLES) return;
  timer._onTimeout = undefined as unknown as null;
  timer._timerArgs = undefined;
}

function unenroll(timer: Timeout): void {
  if (timer._destroyed) {
    cleanTimer(timer);
    return;
  }
  timer._destroyed = true;
  emitScopeDestroy(timer);
  const world = timer[kHost].world;
  if (timer[kHasPrimitive]) knownTimersById.get(world)?.delete(String(timer[kId]));
  // Like Node 24's unenroll: only a timer still queued (not one cleared inside its own
  // callback) is cleaned at once; the other is cleaned when its callback returns.
  if (timer[kSeq] !== 0) {
    timer[kSeq] = 0; // its place in the queue is stale now
    cleanTimer(timer);
  }
  if (timer[kRefed]) world.unrefHandle(timer[kHost]);
  timer._idleTimeout = -1;
}

/** Runs a due immediate (its [kFire]). */
function fireImmediate(this: Immediate): void {
  if (domainsSeen && handleDomains.has(this)) runInDomain(this, runImmediate);
  else runImmediate(this);
}

function runImmediate(immediate: Immediate): void {
  immediate[kSeq] = 0; // no longer queued
  if (immediate._destroyed) return;
  immediate._destroyed = true;
  if (immediate[kRefed]) immediate[kHost].world.unrefHandle(immediate[kHost]);
  immediate[kRefed] = null;
  const callback = immediate._onImmediate as Function;
  const argv = immediate._argv;
  try {
    if (argv === undefined) callback.call(immediate);
    else Reflect.apply(callback, immediate, argv);
  } finally {
    cleanImmediate(immediate);
    emitScopeDestroy(immediate);
  }
}

/**
 * A handle's async context is done with (it ran, or was cleared): the program's destroy hooks hear
 * of it, when it captured one (only then does the program have hooks). Node emits destroy at the
 * same points of its timers and immediates.
 */
function emitScopeDestroy(handle: Timeout | Immediate): void {
  const scope = handle[kScope];
  if (scope !== undefined) scope.emitDestroy();
}

function cleanImmediate(immediate: Immediate): void {
  if (CLEANS_HANDLES) {
    immediate._onImmediate = undefined as unknown as null;
    immediate._argv = undefined;
  } else {
    immediate._onImmediate = null;
  }
}

/** A simulated immediate, shaped like Node's Immediate; also its own entry in the event queue. */
export class Immediate implements QueueEntry {
  declare _idleNext: Immediate | null;
  declare _idlePrev: Immediate | null;
  declare _onImmediate: Function | null;
  declare _argv: unknown[] | undefined;
  declare _destroyed: boolean;
  declare [kRefed]: boolean | null;
  declare [kHost]: Host;
  declare [kScope]: AsyncResource | undefined;
  declare [kSeq]: number;
  /** The turn of its host's loop whose check phase runs it (World.checkTurn). */
  declare [kCheckTurn]: number;
  declare [kSite]: string | undefined; // on the prototype: kept in `sites`
  declare [kKind]: number; // on the prototype: 'immediate'
  declare [kRef]: boolean; // on the prototype: false (an immediate refs the run as a handle)
  declare [kFire]: () => void; // on the prototype: fireImmediate

  constructor(host: Host, callback: Function, args: unknown[] | undefined) {
    this._idleNext = null;
    this._idlePrev = null;
    this._onImmediate = callback;
    this._argv = args;
    this._destroyed = false;
    this[kRefed] = false;
    this[kHost] = host;
    this[kScope] = captureContext('Immediate');
    if (domainsSeen || activeDomain() !== undefined) noteDomain(this);
    this[kSeq] = 0;
    const world = host.world;
    this[kCheckTurn] = world.checkTurn(host);
    this.ref();
    world.enqueue(this, 0);
    world.noteImmediate(host, this);
  }

  ref(): this {
    if (this[kRefed] === false) {
      this[kRefed] = true;
      this[kHost].world.refHandle(this[kHost]);
    }
    return this;
  }

  unref(): this {
    if (this[kRefed] === true) {
      this[kRefed] = false;
      this[kHost].world.unrefHandle(this[kHost]);
    }
    return this;
  }

  hasRef(): boolean {
    return !!this[kRefed];
  }
}

/**
 * What util.inspect (console.log) shows of a simulated Timeout or Immediate: Node's own keys, as
 * Node shows them, and not the simulator's (the timer's host printed the whole World, its seed
 * included: 135 lines for one timer). A pending timer's list pointers show as Node's TimersList.
 * Node's triggerId and Node 24's async context frame are not shown: the simulator has neither.
 */
const TimeoutView = { Timeout: class {} }.Timeout;
const ImmediateView = { Immediate: class {} }.Immediate;
const TIMERS_LIST = { [Symbol.for('nodejs.util.inspect.custom')]: (_depth: number, options: { stylize(text: string, style: string): string }) => options.stylize('[TimersList]', 'special') };
const VIEW_REFED = Symbol('refed');
const VIEW_HAS_PRIMITIVE = Symbol('kHasPrimitive');
const VIEW_ASYNC_ID = Symbol('asyncId');

function inspectTimer(this: Timeout | Immediate): object {
  const timeout = this instanceof Timeout;
  const view = (timeout ? new TimeoutView() : new ImmediateView()) as Record<PropertyKey, unknown>;
  const own = this as unknown as Record<string, unknown>;
  for (const key of Object.keys(this)) {
    const value = own[key];
    // A pending timer is linked into its list; a fired or cleared one into none.
    view[key] = timeout && (key === '_idlePrev' || key === '_idleNext') ? (this._destroyed ? null : TIMERS_LIST) : value;
  }
  view[VIEW_REFED] = this[kRefed];
  if (timeout) {
    view[VIEW_HAS_PRIMITIVE] = this[kHasPrimitive];
    view[VIEW_ASYNC_ID] = this[kId];
  }
  return view;
}
for (const prototype of [Timeout.prototype, Immediate.prototype]) {
  Object.defineProperty(prototype, Symbol.for('nodejs.util.inspect.custom'), { value: inspectTimer, writable: true, configurable: true });
}

Object.defineProperty(Immediate.prototype, kSite, siteAccessor);
Object.defineProperty(Immediate.prototype, kKind, { value: KIND_IMMEDIATE, writable: true, configurable: true });
Object.defineProperty(Immediate.prototype, kRef, { value: false, writable: true, configurable: true });
Object.defineProperty(Immediate.prototype, kFire, { value: fireImmediate, writable: true, configurable: true });

if (typeof Symbol.dispose === 'symbol') {
  Object.defineProperty(Immediate.prototype, Symbol.dispose, {
    value: function dispose(this: Immediate) {
      simClearImmediate(this);
    },
    writable: true,
    configurable: true,
  });
}

// ---- the public functions -----------------------------------------------------------------

/** Creates a simulated timer for `host` (used by timers/promises too). */
export function createTimeout(host: Host, callback: Function, after: unknown, args: unknown[] | undefined, isRepeat: boolean, isRefed: boolean): Timeout {
  const timer = new Timeout(host, callback, after, args, isRepeat, isRefed);
  arm(timer);
  return timer;
}

export function createImmediate(host: Host, callback: Function, args: unknown[] | undefined): Immediate {
  return new Immediate(host, callback, args);
}

/**
 * A timer and an immediate of the shape keeper's host (down: neither is ever queued) keep the maps
 * of every Timeout and Immediate alive between runs (runtime/scheduler/shape-keeper.ts). Made by
 * the real constructors and arming code, outside any domain; a context they captured belongs to
 * whoever ended the first run, and is dropped.
 */
keepShapesOf<Host>((host) =>
  outsideDomain(() => {
    const timer = createTimeout(host, keptShapeCallback, 1, undefined, false, false);
    const immediate = createImmediate(host, keptShapeCallback, undefined);
    if (Object.hasOwn(timer, kScope)) timer[kScope] = undefined;
    immediate[kScope] = undefined;
    return [timer, immediate];
  }),
);

function keptShapeCallback(): void {}

/**
 * Extra arguments after `from` (the caller has checked there are some). Callers test
 * `arguments.length` themselves before calling: V8 then never has to build the `arguments` object
 * on the common path. With the test inside this function, whether the object was built depended
 * on whether TurboFan inlined this function into each caller, and processes differed: some
 * allocated 64 bytes more per setTimeout than others (bench figure 1, Node 22).
 */
function extraArgs(args: IArguments, from: number): unknown[] {
  const extra = new Array<unknown>(args.length - from);
  for (let i = from; i < args.length; i++) extra[i - from] = args[i];
  return extra;
}

/** A real timer made outside every host: noted if a tool's code of no host made it (shims/strict/tool-work.ts). */
function toolTimer<T>(timer: T): T {
  noteIfToolTimer(timer);
  return timer;
}

function simSetTimeout(this: unknown, callback: unknown, after?: unknown): unknown {
  const host = currentHost();
  if (host === undefined) return toolTimer(Reflect.apply(originals.setTimeout, this, arguments));
  validateFunction(callback, 'callback', simSetTimeout);
  return createTimeout(host, callback, after, arguments.length > 2 ? extraArgs(arguments, 2) : undefined, false, true);
}

function simSetInterval(this: unknown, callback: unknown, repeat?: unknown): unknown {
  const host = currentHost();
  if (host === undefined) return toolTimer(Reflect.apply(originals.setInterval, this, arguments));
  validateFunction(callback, 'callback', simSetInterval);
  return createTimeout(host, callback, repeat, arguments.length > 2 ? extraArgs(arguments, 2) : undefined, true, true);
}

function simSetImmediate(this: unknown, callback: unknown): unknown {
  const host = currentHost();
  if (host === undefined) {
    const immediate = Reflect.apply(originals.setImmediate, this, arguments) as NodeJS.Immediate;
    noteForeignImmediate(immediate);
    return toolTimer(immediate);
  }
  validateFunction(callback, 'callback', simSetImmediate);
  return new Immediate(host, callback, arguments.length > 1 ? extraArgs(arguments, 1) : undefined);
}

function simClearTimeout(timer: unknown): void {
  if (timer instanceof Timeout) {
    timer._onTimeout = null;
    unenroll(timer);
    return;
  }
  if (typeof timer === 'object' && timer !== null && enrolledTimers.has(timer)) {
    // Node's clearTimeout takes any object with an _onTimeout (timers.enroll's too).
    const item = timer as Enrollable;
    if (item._onTimeout) {
      item._onTimeout = null;
      unenrollItem(item);
    }
    return;
  }
  if (typeof timer === 'number' || typeof timer === 'string') {
    const host = currentHost();
    const found = host === undefined ? undefined : knownTimersById.get(host.world)?.get(String(timer));
    if (found !== undefined) {
      found._onTimeout = null;
      unenroll(found);
      return;
    }
  }
  // A real timer (created outside the simulation) or an id of one.
  originals.clearTimeout(timer as Parameters<typeof clearTimeout>[0]);
}

function simClearInterval(timer: unknown): void {
  // clearTimeout and clearInterval are interchangeable, as specified by HTML.
  simClearTimeout(timer);
}

function simClearImmediate(immediate: unknown): void {
  if (immediate instanceof Immediate) {
    if (!immediate._onImmediate || immediate._destroyed) return;
    immediate._destroyed = true;
    const world = immediate[kHost].world;
    if (immediate[kRefed]) world.unrefHandle(immediate[kHost]);
    immediate[kRefed] = null;
    immediate[kSeq] = 0; // its place in the queue is stale now
    emitScopeDestroy(immediate);
    cleanImmediate(immediate);
    return;
  }
  originals.clearImmediate(immediate as Parameters<typeof clearImmediate>[0]);
}

// Keep Node's names and lengths: some libraries check `fn.name` or `fn.length`.
function rename(fn: Function, name: string, length: number): void {
  Object.defineProperty(fn, 'name', { value: name, configurable: true });
  Object.defineProperty(fn, 'length', { value: length, configurable: true });
}
rename(simSetTimeout, 'setTimeout', originals.setTimeout.length);
rename(simSetInterval, 'setInterval', originals.setInterval.length);
rename(simSetImmediate, 'setImmediate', originals.setImmediate.length);
rename(simClearTimeout, 'clearTimeout', originals.clearTimeout.length);
rename(simClearInterval, 'clearInterval', originals.clearInterval.length);
rename(simClearImmediate, 'clearImmediate', originals.clearImmediate.length);

export const simulatedTimers = {
  setTimeout: simSetTimeout,
  setInterval: simSetInterval,
  setImmediate: simSetImmediate,
  clearTimeout: simClearTimeout,
  clearInterval: simClearInterval,
  clearImmediate: simClearImmediate,
};

/** util.promisify(setTimeout) and util.promisify(setImmediate) use these (set by promises.ts). */
export function setPromisifyCustom(timeout: Function, immediate: Function): void {
  Object.defineProperty(simSetTimeout, promisify.custom, { value: timeout, enumerable: false, writable: true, configurable: true });
  Object.defineProperty(simSetImmediate, promisify.custom, { value: immediate, enumerable: false, writable: true, configurable: true });
}

// ---- timers.enroll / active / _unrefActive / unenroll (deprecated; Node 20 and 22 only) -------

/** What timers.enroll and timers.active work on: any object with an `_onTimeout` to call. */
interface Enrollable {
  _onTimeout?: unknown;
  _idleTimeout?: number;
  _idleStart?: number | null;
  _idleNext?: unknown;
  _idlePrev?: unknown;
  _destroyed?: boolean;
}

/**
 * The queue entry of an object armed by timers.active / _unrefActive, kept beside the object
 * (Node links the object itself into its timer lists; ours gets only Node's own string keys).
 */
class EnrolledTimer implements QueueEntry {
  declare readonly item: Enrollable;
  declare [kHost]: Host;
  declare [kSeq]: number;
  declare [kScope]: AsyncResource | undefined;
  declare [kSite]: string | undefined;
  declare [kKind]: number; // on the prototype: 'timeout'
  declare [kRef]: boolean; // on the prototype: false (refs are counted as a handle's)
  declare [kFire]: () => void; // on the prototype: fireEnrolled
  /** Whether it holds a ref of its host: true (active), false (_unrefActive), null (not armed). */
  declare refed: boolean | null;

  constructor(item: Enrollable, host: Host) {
    this.item = item;
    this[kHost] = host;
    this[kSeq] = 0;
    this[kScope] = captureContext('Timeout');
    this[kSite] = undefined;
    this.refed = null;
  }
}
Object.defineProperty(EnrolledTimer.prototype, kKind, { value: KIND_TIMEOUT, writable: true, configurable: true });
Object.defineProperty(EnrolledTimer.prototype, kRef, { value: false, writable: true, configurable: true });
Object.defineProperty(EnrolledTimer.prototype, kLocalClock, { value: true, writable: true, configurable: true });
Object.defineProperty(EnrolledTimer.prototype, kFire, {
  value: function fireEnrolled(this: EnrolledTimer): void {
    const entry = this;
    entry[kSeq] = 0;
    // Node's listOnTimeout: unlinked, then called as a method (a TypeError names
    // `timer._onTimeout`, as Node's does); destroyed afterwards unless the callback armed it again.
    const timer = entry.item;
    timer._idleNext = null;
    timer._idlePrev = null;
    if (!timer._onTimeout) {
      // Node skips an object whose _onTimeout is falsy (cleared), marking it destroyed.
      if (!timer._destroyed) timer._destroyed = true;
      releaseEnrolled(entry);
      return;
    }
    try {
      (timer._onTimeout as () => void)();
    } finally {
      if (entry[kSeq] === 0 && !timer._destroyed) {
        timer._destroyed = true;
        releaseEnrolled(entry);
      }
    }
  },
  writable: true,
  configurable: true,
});

const enrolledTimers = new WeakMap<object, EnrolledTimer>();
/**
 * What an armed object's _idleNext and _idlePrev point to: in Node, its neighbours in the timer
 * list of its duration (the list itself when alone), never the object.
 */
const timerListLink = Object.freeze({});

function releaseEnrolled(entry: EnrolledTimer): void {
  if (entry.refed === true) entry[kHost].world.unrefHandle(entry[kHost]);
  entry.refed = null;
}

/**
 * Node's getTimerDuration (timers.enroll, socket.setTimeout): a non-negative finite number,
 * TIMEOUT_MAX at most (with a warning).
 */
export function timerDuration(msecs: unknown, name: string, caller?: Function): number {
  validateNumber(msecs, name, caller);
  if (msecs < 0 || !Number.isFinite(msecs)) throw outOfRange(name, 'a non-negative finite number', msecs, caller);
  if (msecs > TIMEOUT_MAX_MS) {
    nodeProcess.emitWarning(
      `${msecs} does not fit into a 32-bit signed integer.\nTimer duration was truncated to ${TIMEOUT_MAX_MS}.`,
      'TimeoutOverflowWarning',
    );
    return TIMEOUT_MAX_MS;
  }
  return msecs;
}

function unenrollItem(item: Enrollable): void {
  const entry = enrolledTimers.get(item);
  if (item._destroyed) return;
  item._destroyed = true;
  if (entry !== undefined) {
    entry[kSeq] = 0; // its place in the queue is stale now
    releaseEnrolled(entry);
  }
  item._idleNext = null;
  item._idlePrev = null;
  item._idleTimeout = -1;
}

/** Node's insertGuarded: (re)arms `item` at now + its _idleTimeout, ref'd or not. */
function armEnrolled(host: Host, item: Enrollable, refed: boolean): void {
  const msecs = item._idleTimeout;
  if (msecs === undefined || msecs < 0) return;
  let entry = enrolledTimers.get(item);
  if (entry === undefined || entry[kHost] !== host) {
    if (entry !== undefined) entry[kSeq] = 0;
    entry = new EnrolledTimer(item, host);
    enrolledTimers.set(item, entry);
  }
  const world = host.world;
  item._idleStart = Math.floor(world.scheduleNowNs / NS_PER_MS);
  item._idleNext = timerListLink;
  item._idlePrev = timerListLink;
  const wasDestroyed = item._destroyed;
  if (wasDestroyed || wasDestroyed === undefined) item._destroyed = false;
  if (refed && entry.refed !== true) world.refHandle(host);
  else if (!refed && entry.refed === true) world.unrefHandle(host);
  entry.refed = refed;
  world.enqueue(entry, host.clock.virtualDelayNs(Math.trunc(msecs) * NS_PER_MS));
}

/** Node's insertGuarded on one of our Timeouts: re-armed at now + its duration, ref'd or not. */
function activateTimeout(timer: Timeout, refed: boolean): void {
  if (timer._idleTimeout < 0) return;
  const host = timer[kHost];
  if (timer._destroyed) {
    timer._destroyed = false;
    if (refed) host.world.refHandle(host);
  } else if (refed !== timer[kRefed]) {
    if (refed) host.world.refHandle(host);
    else host.world.unrefHandle(host);
  }
  timer[kRefed] = refed;
  arm(timer);
}

const unenrollTimeout = unenroll;

interface LegacyTimers {
  enroll(item: object, msecs: unknown): void;
  active(item: object): void;
  _unrefActive(item: object): void;
  unenroll(item: object): void;
}

/** The deprecated functions as Node 20 and 22 have them, on virtual time inside hosts. */
function legacyTimers(real: LegacyTimers): LegacyTimers {
  function enroll(this: unknown, item: Enrollable, msecs: unknown): void {
    if (currentHost() === undefined && !enrolledTimers.has(item)) return Reflect.apply(real.enroll, this, [item, msecs]);
    const ms = timerDuration(msecs, 'msecs', enroll);
    if (item._idleNext) unenrollItem(item);
    item._idleNext = item;
    item._idlePrev = item;
    item._idleTimeout = ms;
  }
  function active(this: unknown, item: Enrollable): void {
    if (item instanceof Timeout) return activateTimeout(item, true);
    const host = currentHost();
    if (host === undefined) return Reflect.apply(real.active, this, [item]);
    armEnrolled(host, item, true);
  }
  function _unrefActive(this: unknown, item: Enrollable): void {
    if (item instanceof Timeout) return activateTimeout(item, false);
    const host = currentHost();
    if (host === undefined) return Reflect.apply(real._unrefActive, this, [item]);
    armEnrolled(host, item, false);
  }
  function unenroll(this: unknown, item: Enrollable): void {
    if (item instanceof Timeout) return unenrollTimeout(item);
    if (!enrolledTimers.has(item)) return Reflect.apply(real.unenroll, this, [item]);
    unenrollItem(item);
  }
  return {
    enroll: deprecate(enroll, 'timers.enroll() is deprecated. Please use setTimeout instead.', 'DEP0095'),
    active: deprecate(active, 'timers.active() is deprecated. Please use timeout.refresh() instead.', 'DEP0126'),
    _unrefActive: deprecate(_unrefActive, 'timers._unrefActive() is deprecated. Please use timeout.refresh() instead.', 'DEP0127'),
    unenroll: deprecate(unenroll, 'timers.unenroll() is deprecated. Please use clearTimeout instead.', 'DEP0096'),
  };
}

/**
 * The ref'd simulated timers and immediates of `host`, as Node counts them for
 * process.getActiveResourcesInfo(): a timer still counts during its own callback, an object
 * armed by timers.active counts as a Timeout.
 */
export function refedTimerCounts(host: Host): { timeouts: number; immediates: number } {
  let timeouts = 0;
  let immediates = 0;
  for (const entry of host.world.pendingEntries(host)) {
    if (entry instanceof Timeout) {
      if (entry[kRefed] && !entry._destroyed) timeouts++;
    } else if (entry instanceof Immediate) {
      if (entry[kRefed] === true && !entry._destroyed) immediates++;
    } else if (entry instanceof EnrolledTimer) {
      if (entry.refed === true) timeouts++;
    }
  }
  return { timeouts, immediates };
}

const NAMES = ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'] as const;
const LEGACY_NAMES = ['enroll', 'active', '_unrefActive', 'unenroll'] as const;

export const timersShim: Shim = {
  name: 'timers',
  install(patches: PatchSet) {
    const mod = timersModule as unknown as Record<string, unknown>;
    // Node's modules that take these when they load keep Node's own (shims/builtin-captures.ts),
    // also where a test's fake timers replaced the exports (runtime/fake-timers.ts).
    for (const name of NAMES) patchExportKeepingNodeCaptures(patches, mod, name, simulatedTimers[name], behindFake(mod[name], name));
    if (typeof mod.enroll === 'function') {
      // Node's own functions, taken before they are replaced below.
      const real = mod as unknown as LegacyTimers;
      const legacy = legacyTimers({ enroll: real.enroll, active: real.active, _unrefActive: real._unrefActive, unenroll: real.unenroll });
      for (const name of LEGACY_NAMES) patches.replace(mod, name, legacy[name]);
    }
  },
  realm(patches: PatchSet, realm: Realm) {
    // A test's fake clock that moves itself (a real interval ticks it) stands still during the
    // run, as every other fake clock does: ticked, its callbacks ran meanwhile, outside every
    // host, and the timers they armed were real ones, which the test's useRealTimers() never
    // cleared (Jest did not exit; a probe, 2026-12-05).
    const clock = selfAdvancingClock(realm.global);
    if (clock !== undefined) patches.replace(clock, 'tick', function tickDuringRun() {});
    // Each realm's global slots are properties of their own, apart from node:timers' exports
    // (a Jest context copies Node's functions into its own global on first read).
    for (const name of NAMES) patches.replace(realm.global, name, simulatedTimers[name]);
  },
};
