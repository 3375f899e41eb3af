/**
 * Global fetch (Node's bundled undici) on the simulated network, deterministically, on Node 20,
 * 22 and 24. undici's default connector calls net.connect, which already runs over the
 * simulated TCP handle (net-binding.ts), and dns.lookup (dns-binding.ts): a fetch to a host name
 * reaches that host, and an unknown name fails like Node ("fetch failed", cause ENOTFOUND)
 * without asking a real DNS. What this shim adds:
 *
 * 1. The llhttp compile. On Node 20 and 22 undici starts `WebAssembly.compile` (a background
 *    thread) when it loads, and its first connection awaits that promise: the first fetch would
 *    finish at a virtual time that depends on real compile time. If undici is not loaded yet,
 *    install() loads it with a synchronous compile (the promise is settled at once). If it is
 *    (on Node 22 an ESM `import 'node:http'` loads it), a request over an in-memory connection
 *    tells when the compile is done, and the simulation waits for it (world.waitForRealWork).
 *    The module compiled at once is instantiated at once too (thread-pool/wasm.ts,
 *    instantiateAtOnce): on Node 20 that would settle from a task on the next turn of Node's
 *    loop. Node 24 compiles synchronously at the first connection anyway.
 *
 * 2. undici's "fast timers" (connect timeout, headers and body timeouts; keep-alive expiry is a
 *    plain setTimeout) share one process-wide 499 ms tick timer, created by the first fast timer
 *    ever needed and refreshed forever after. Left alone it would be a simulated timer of
 *    whichever host came first (dead when that host crashes or the simulation ends) or a real
 *    one (expiring simulated requests on wall time). The first install() makes undici create that
 *    tick timer and hands it a relay (TickRelay) instead: it ticks on virtual time while a
 *    simulation runs (on the simulation's own system host, so no crash stops it), on real time
 *    otherwise. Every run starts and ends with no fast timer pending ("drain"), so a run never
 *    depends on what ran before it in the process.
 *
 * 3. One dispatcher per host incarnation. The global dispatcher pools keep-alive connections by
 *    origin: two simulated machines sharing it would send through each other's sockets, and a
 *    later simulation would reuse sockets of a finished one. Inside a host, the global
 *    dispatcher's dispatch() goes to that host's own Agent (same class, default options).
 *
 * The Node 24 hang on a connect callback completed synchronously does not arise: connections go
 * through net.connect, whose 'connect' always comes in a later simulated event.
 */
import { createRequire } from 'node:module';
import net from 'node:net';
import { Duplex } from 'node:stream';
import { NS_PER_MS } from '../../runtime/clock/units.js';
import { queueOwnImmediate } from '../../runtime/driver/own-immediates.js';
import { instantiateAtOnce } from '../thread-pool/wasm.js';
import { originals } from '../../runtime/originals.js';
import type { SimEvent } from '../../runtime/scheduler/event.js';
import { activeWorld, type World } from '../../runtime/world.js';
import { currentHost, type Host } from '../context.js';
import { mirrorFunction, type PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyRecord = Record<PropertyKey, any>;

interface Dispatcher {
  dispatch(options: unknown, handler: unknown): boolean;
}
type DispatcherClass = new (options?: unknown) => Dispatcher;

/** Where undici keeps the global dispatcher (lib/global.js), shared with the npm package. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** Most ticks a drain runs: 100,000 x 499 ms is about 14 hours of undici timeouts. */
const DRAIN_TICKS_MAX = 100_000;

/**
 * Replaces `target[key]` for the length of `fn` only (synchronously), restoring the exact
 * previous descriptor. Used for the warm-up and the drain, which must not leave a patch behind.
 */
function withTemporary<T>(swaps: Array<[object, PropertyKey, unknown]>, fn: () => T): T {
  const previous = swaps.map(([target, key]) => Object.getOwnPropertyDescriptor(target, key));
  swaps.forEach(([target, key, value]) => {
    Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: false });
  });
  try {
    return fn();
  } finally {
    for (let i = swaps.length - 1; i >= 0; i--) {
      const [target, key] = swaps[i]!;
      const descriptor = previous[i];
      if (descriptor === undefined) delete (target as AnyRecord)[key];
      else Object.defineProperty(target, key, descriptor);
    }
  }
}

/** A dispatch handler that ignores everything (the throwaway requests of warm-up and capture). */
const inertHandler = {
  onConnect() {},
  onError() {},
  onHeaders: () => true,
  onData: () => true,
  onComplete() {},
  onUpgrade() {},
  onBodySent() {},
  onRequestSent() {},
};

// ---- 1. loading undici with llhttp compiled synchronously --------------------------------

function compileNow(bytes: Uint8Array): Promise<unknown> {
  try {
    const module = new (globalThis as AnyRecord).WebAssembly.Module(bytes);
    // undici instantiates it next, a promise job later: at once too (Node 20 would settle that
    // from a task on the next turn of its loop; thread-pool/wasm.ts).
    instantiateAtOnce.add(module);
    return Promise.resolve(module);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The llhttp compile promise is known to be settled: a first connection does not wait on it. */
let llhttpReady = false;
/** The in-memory warm-up request, while it runs. */
let warmUpRun: Promise<void> | undefined;

/**
 * The global dispatcher, loading undici first if needed. Touching the lazy global `Response`
 * loads Node's undici, which creates the global dispatcher and (Node 20/22) starts compiling
 * llhttp: with compile made synchronous for that moment the compile promise is settled at once
 * (instantiating a compiled module is synchronous in V8).
 */
function loadUndici(): Dispatcher | undefined {
  const g = globalThis as AnyRecord;
  // Without WebAssembly (--jitless) undici cannot compile llhttp: on Node 20 and 22 loading it
  // rejects unhandled, and a fetch fails in plain Node too. Leave it unloaded, as plain Node does.
  if (globalDispatcher() === undefined && g.WebAssembly === undefined) return undefined;
  if (globalDispatcher() === undefined) {
    loadingUndici = true;
    try {
      withTemporary([[g.WebAssembly, 'compile', compileNow]], () => void g.Response);
    } finally {
      loadingUndici = false;
    }
    // Compiled at once, and instantiated at once too (instantiateAtOnce): on Node 20 undici's
    // `WebAssembly.instantiate(module)` would settle from a task Node runs on the next turn of
    // its loop, and the driver may run a batch of events first, as many as fit in this turn: a
    // first connection made by one of them waited for it a number of events that depended on
    // where the batch ended (a fetch from a timer's callback waited for the whole run, 160 s, and
    // failed). (Waiting for it with the warm-up request instead cost about 100 ms of CPU.)
    llhttpReady = globalDispatcher() !== undefined;
  }
  return globalDispatcher();
}

/** Two in-memory stream ends: what one writes, the other reads. */
function streamPair(): [Duplex, Duplex] {
  const ends: Duplex[] = [];
  for (let i = 0; i < 2; i++) {
    ends.push(
      new Duplex({
        read() {},
        write(chunk, _encoding, callback) {
          ends[1 - i]!.push(chunk);
          callback();
        },
        final(callback) {
          ends[1 - i]!.push(null);
          callback();
        },
      }),
    );
  }
  return [ends[0]!, ends[1]!];
}

/**
 * undici was loaded by someone else (on Node 22 an ESM `import 'node:http'` does it, through the
 * lazy http.WebSocket getter), so its llhttp compile may still be running on a background thread.
 * One request over an in-memory connection, outside any simulation, tells when it is done: the
 * request reaches the other end only after undici's first connection has awaited the compile.
 * No undici timer is involved: headers and body timeouts are off, and the reply closes the
 * connection (no keep-alive).
 */
function warmUp(Agent: DispatcherClass): Promise<void> {
  return new Promise<void>((resolve) => {
    const agent = new Agent({
      headersTimeout: 0,
      bodyTimeout: 0,
      connect(_options: unknown, callback: (error: Error | null, socket: Duplex) => void) {
        const [client, server] = streamPair();
        server.once('data', () => {
          resolve();
          // "Connection: close": undici closes the connection itself, no keep-alive timer.
          server.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        });
        // A connect completed synchronously hangs undici on Node 24. Queued as the runtime's own
        // immediate: strict mode's tripwire knows it wherever it sits among the real immediates.
        queueOwnImmediate(() => callback(null, client));
        return client;
      },
    });
    const done = () => {
      resolve();
      (agent as unknown as { close(): Promise<void> }).close().catch(() => {});
    };
    agent.dispatch({ origin: 'http://dst-runtime-warmup.invalid', path: '/', method: 'GET' }, { ...inertHandler, onComplete: done, onError: done });
  });
}

// ---- 2. undici's fast-timer tick ------------------------------------------------------------

/** An Immediate that never runs: what timer callbacks get from setImmediate during a drain. */
const inertImmediate = {
  _destroyed: true,
  hasRef: () => false,
  ref() {
    return this;
  },
  unref() {
    return this;
  },
};

/**
 * Stands in for undici's tick timer (`fastNowTimeout`). undici calls refresh() whenever it
 * needs a tick 499 ms from now and unref() once; its onTick() processes every fast timer.
 */
class TickRelay {
  onTick: (() => void) | undefined;
  tickMs = 499;
  /** undici expects a tick (its fast-timer list is not empty). */
  armed = false;
  private event: { world: World; event: SimEvent } | undefined;
  private real: ReturnType<typeof setTimeout> | undefined;
  private draining = false;

  refresh(): this {
    this.armed = true;
    if (!this.draining) this.arm();
    return this;
  }

  unref(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  hasRef(): boolean {
    return false;
  }

  /** Schedules the next tick: virtual time while a simulation runs, else real time (unref'd). */
  private arm(): void {
    this.disarm();
    const world = activeWorld();
    if (world !== undefined && world.result === undefined) {
      // The simulation's own host: never crashes, so no host's fate stops everyone's timers.
      const event = world.schedule(world.hosts.system, this.tickMs * NS_PER_MS, 'timeout', () => this.fire(), undefined, false);
      this.event = { world, event };
    } else {
      this.real = originals.setTimeout(() => this.fire(), this.tickMs);
      this.real.unref();
    }
  }

  private disarm(): void {
    if (this.event !== undefined) this.event.world.cancel(this.event.event);
    this.event = undefined;
    if (this.real !== undefined) originals.clearTimeout(this.real);
    this.real = undefined;
  }

  private fire(): void {
    this.event = undefined;
    this.real = undefined;
    this.armed = false;
    this.onTick!();
  }

  /**
   * Runs undici's tick until no fast timer is left, at once, with their effects disabled (what
   * they do is destroy a socket, directly or from a setImmediate): socket.destroy() does nothing
   * and setImmediate returns an inert handle. What is left at the
   * end of a simulation belongs to machines that no longer exist; like a process that ended,
   * their requests neither fail nor finish. At the start of a run this also clears timers of
   * fetches the test runner made before (they lose their undici timeouts).
   */
  drain(): void {
    if (!this.armed || this.onTick === undefined) return;
    this.disarm();
    const onTick = this.onTick;
    this.draining = true;
    try {
      withTemporary(
        [
          [globalThis, 'setImmediate', () => inertImmediate],
          [net.Socket.prototype, 'destroy', function (this: net.Socket) {
            return this;
          }],
        ],
        () => {
          for (let i = 0; i < DRAIN_TICKS_MAX && this.armed; i++) {
            this.armed = false;
            try {
              onTick();
            } catch {
              // A stale timer's callback failed; the next tick still removes it.
            }
          }
        },
      );
    } finally {
      this.draining = false;
    }
    if (this.armed) this.arm();
  }
}

const relay = new TickRelay();
let warmedUp = false;

/**
 * Makes undici create its tick timer now, with the relay in its place: one request on a
 * throwaway Agent whose connection never starts (net.connect returns an unconnected socket).
 * undici's connect timeout is a fast timer, created synchronously inside dispatch(); the first
 * fast timer asks the global setTimeout for the tick. The throwaway request stays pending
 * forever and holds nothing (no handle, no timer after the drain).
 */
function captureTick(Agent: DispatcherClass): void {
  const agent = new Agent();
  const realSetTimeout = globalThis.setTimeout;
  function setTimeout(this: unknown, callback: unknown, ms: unknown, ...args: unknown[]): unknown {
    if (relay.onTick === undefined && typeof callback === 'function' && callback.name === 'onTick') {
      relay.onTick = callback as () => void;
      if (typeof ms === 'number' && ms > 0) relay.tickMs = ms;
      relay.armed = true;
      return relay;
    }
    return Reflect.apply(realSetTimeout, this, [callback, ms, ...args]);
  }
  withTemporary(
    [
      [globalThis, 'setTimeout', setTimeout],
      [net, 'connect', () => new net.Socket()],
    ],
    () => agent.dispatch({ origin: 'http://dst-runtime-warmup.invalid', path: '/', method: 'GET' }, inertHandler),
  );
  if (relay.onTick === undefined) {
    process.emitWarning(
      "global fetch was used before dst-runtime was loaded: undici's keep-alive and timeouts keep running on " +
        'real time inside simulations (load dst-runtime first)',
      'DstRuntimeWarning',
    );
  }
}

// ---- 3. one dispatcher per host incarnation ---------------------------------------------

const hostAgents = new Map<Host, Dispatcher>();

// ---- 0. waiting for the program's first use (register mode) ---------------------------------

/**
 * Loading undici is most of register mode's start-up that a program not using fetch pays for
 * (35-40 ms of CPU on Node 20-24, docs/benchmarks.md). In register mode the shim is installed
 * before the program's first line, so nothing of undici can be in the program's hands yet: the
 * install waits until the program first reaches undici, through one of these triggers, each of
 * which installs the shim (loading undici) before it hands anything over:
 *
 * - the global `fetch` (a plain function in Node 20-24, which loads undici when first called);
 * - Node 20's lazy globals FormData, Headers, Request, Response, MessageEvent (JavaScript
 *   accessors there), and WebSocket, EventSource where a flag exposes them as accessors;
 * - Node 22 and 24's global WebSocket (a V8 lazy data property: reading its descriptor, or
 *   redefining it, loads undici; it is deleted and replaced unread, its value taken from
 *   node:http afterwards);
 * - node:http's lazy WebSocket, CloseEvent, MessageEvent (Node 22+; the ESM facade of
 *   node:http reads them when a program imports it);
 * - the global dispatcher's slot, Symbol.for('undici.globalDispatcher.1'), read by the npm
 *   package undici when it loads: the shim installs first, so the package finds Node's own
 *   patched dispatcher, as it does when the shim is installed eagerly.
 *
 * What still loads undici unseen: on Node 22 and 24, reading the global FormData, Headers,
 * Request, Response or MessageEvent (V8 lazy data properties that cannot be wrapped unread).
 * Those make no connection and no undici timer; the dispatcher undici then creates is patched
 * before the end of the current microtask checkpoint (a queued install), and the llhttp compile
 * it started is waited for as when undici was loaded before the shim (warmUp).
 */
/** Globals Node defines lazily from undici. */
const UNDICI_GLOBALS = ['FormData', 'Headers', 'Request', 'Response', 'MessageEvent', 'WebSocket', 'CloseEvent', 'EventSource'] as const;
/** Those that make connections: Node 22+'s V8 lazy data ones are replaced unread, with their value from node:http. */
const CONNECTING_GLOBALS = new Set(['WebSocket', 'EventSource']);
/** node:http's lazy getters that load undici (Node 22+). */
const HTTP_UNDICI_GETTERS = ['WebSocket', 'CloseEvent', 'MessageEvent'] as const;

/** The install that waits for the program's first use of undici; undefined when none waits. */
let pendingInstall: (() => void) | undefined;
/** True while the shim loads undici itself (its own reads of the dispatcher slot pass through). */
let loadingUndici = false;
/** The triggers are placed once per process and stay: with no install pending they only pass through. */
let triggersPlaced = false;

function firePendingInstall(): void {
  const install = pendingInstall;
  if (install === undefined) return;
  pendingInstall = undefined;
  install();
}

/** The global dispatcher, without firing the dispatcher slot's trigger. */
function globalDispatcher(): Dispatcher | undefined {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, GLOBAL_DISPATCHER);
  return descriptor !== undefined && 'value' in descriptor ? (descriptor.value as Dispatcher | undefined) : undefined;
}

/** Whether the innermost frames calling this are Node's own undici (its load reading the dispatcher slot). */
function calledFromNodeUndici(): boolean {
  const E = Error as unknown as { stackTraceLimit: number; prepareStackTrace?: unknown };
  const limit = E.stackTraceLimit;
  const prepare = E.prepareStackTrace;
  try {
    E.stackTraceLimit = 12;
    E.prepareStackTrace = (_error: unknown, sites: Array<{ getFileName(): string | undefined }>) => sites.map((site) => site.getFileName() ?? '');
    const files = (new Error() as unknown as { stack: string[] }).stack;
    return Array.isArray(files) && files.some((file) => file.startsWith('node:internal/deps/undici'));
  } finally {
    E.stackTraceLimit = limit;
    E.prepareStackTrace = prepare;
  }
}

/** A value property in place of a trigger, as Node's own lazy globals become once read. */
function settle(target: object, key: PropertyKey, value: unknown, enumerable: boolean): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable, configurable: true });
}

function placeTriggers(): void {
  if (triggersPlaced) return;
  triggersPlaced = true;
  const g = globalThis as AnyRecord;

  const realFetch = g.fetch as ((...args: unknown[]) => unknown) | undefined;
  if (typeof realFetch === 'function') {
    const fetch = function (this: unknown, ...args: unknown[]) {
      firePendingInstall();
      return Reflect.apply(realFetch, this, args);
    };
    const descriptor = Object.getOwnPropertyDescriptor(g, 'fetch')!;
    Object.defineProperty(g, 'fetch', { ...descriptor, value: mirrorFunction(fetch, realFetch) });
  }

  const http = createRequire(__filename)('node:http') as AnyRecord;
  for (const name of UNDICI_GLOBALS) {
    if (!Object.prototype.hasOwnProperty.call(g, name)) continue;
    if (NODE_MAJOR <= 21) {
      // JavaScript accessors: wrapped, so the first read installs the shim, then reads Node's.
      const descriptor = Object.getOwnPropertyDescriptor(g, name)!;
      const realGet = descriptor.get;
      if (realGet === undefined) continue; // already a value: undici is loaded
      Object.defineProperty(g, name, {
        ...descriptor,
        get: mirrorFunction(function (this: unknown) {
          firePendingInstall();
          return Reflect.apply(realGet, this, []);
        }, realGet),
      });
    } else if (CONNECTING_GLOBALS.has(name)) {
      // A V8 lazy data property: replaced unread, its value read from node:http once installed.
      // Redefining it in place would run its getter (loading undici); deleting it first does not.
      delete g[name];
      Object.defineProperty(g, name, {
        configurable: true,
        enumerable: false,
        get() {
          firePendingInstall();
          const value = http[name] as unknown;
          settle(g, name, value, false);
          return value;
        },
        set(value: unknown) {
          settle(g, name, value, false);
        },
      });
    }
  }

  for (const name of HTTP_UNDICI_GETTERS) {
    const descriptor = Object.getOwnPropertyDescriptor(http, name);
    const realGet = descriptor?.get;
    if (realGet === undefined) continue; // Node 20 has none
    Object.defineProperty(http, name, {
      ...descriptor,
      get: mirrorFunction(function (this: unknown) {
        firePendingInstall();
        return Reflect.apply(realGet, this, []);
      }, realGet),
    });
  }

  if (Object.getOwnPropertyDescriptor(g, GLOBAL_DISPATCHER) === undefined) {
    Object.defineProperty(g, GLOBAL_DISPATCHER, {
      configurable: true,
      enumerable: false,
      get() {
        // undici's own load asks whether a dispatcher exists before it makes one: the shim's
        // load, or Node's (22+: a lazy global read unseen), which must not be re-entered.
        if (loadingUndici) return undefined;
        if (calledFromNodeUndici()) {
          if (pendingInstall !== undefined) queueMicrotask(firePendingInstall);
          return undefined;
        }
        firePendingInstall();
        return globalDispatcher();
      },
      set(value: unknown) {
        settle(g, GLOBAL_DISPATCHER, value, false);
      },
    });
  }
}

/**
 * Whether this install may wait for the program's first use of undici: register mode (the
 * shims go in before the program's first line), undici not loaded yet, and every way in
 * covered by a trigger (not EventSource on Node 22+, which cannot be re-read once replaced).
 */
function mayWait(): boolean {
  const world = activeWorld();
  if (world === undefined || world.mode !== 'register') return false;
  if (globalDispatcher() !== undefined) return false;
  if ((globalThis as AnyRecord).WebAssembly === undefined) return false;
  if (NODE_MAJOR >= 22 && Object.prototype.hasOwnProperty.call(globalThis, 'EventSource')) return false;
  return true;
}

export const fetchShim: Shim = {
  name: 'fetch',
  install(patches: PatchSet) {
    if (mayWait()) {
      placeTriggers();
      let installed = false;
      pendingInstall = () => {
        installed = true;
        installNow(patches);
      };
      patches.onRestore(() => {
        if (!installed) pendingInstall = undefined;
      });
      return;
    }
    installNow(patches);
  },
};

function installNow(patches: PatchSet): void {
  const dispatcher = loadUndici();
  if (dispatcher === undefined) return; // fetch is disabled (--no-experimental-fetch) or cannot work (--jitless)
  const Agent = dispatcher.constructor as DispatcherClass;
  if (!warmedUp) {
    warmedUp = true;
    // Before anything else creates an undici fast timer.
    captureTick(Agent);
  }
  if (!llhttpReady && warmUpRun === undefined) {
    warmUpRun = warmUp(Agent).then(() => {
      llhttpReady = true;
    });
  }
  // A clean fast-timer list: the first tick of this run is scheduled by this run.
  relay.drain();

  const realDispatch = dispatcher.dispatch;
  function dispatch(this: Dispatcher, options: unknown, handler: unknown): boolean {
    const host = currentHost();
    if (host === undefined || this !== dispatcher) return Reflect.apply(realDispatch, this, [options, handler]);
    let agent = hostAgents.get(host);
    if (agent === undefined) {
      agent = new Agent();
      hostAgents.set(host, agent);
    }
    return agent.dispatch(options, handler);
  }
  patches.onRestore(() => {
    // The hosts' agents stay reachable until their timers are drained (undici's parser
    // timeouts hold only a WeakRef to what they expire).
    relay.drain();
    hostAgents.clear();
  });
  patches.replace(dispatcher as unknown as AnyRecord, 'dispatch', dispatch);

  // No event runs until the compile has settled: a first connection never waits on it.
  const world = activeWorld();
  if (!llhttpReady && warmUpRun !== undefined && world !== undefined) world.waitForRealWork(warmUpRun);
}
