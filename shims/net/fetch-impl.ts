/**
 * fetch's shim once installed (shims/net/fetch.ts, sections 1-3: loading undici with llhttp
 * compiled synchronously, undici's fast-timer tick, one dispatcher per host incarnation), loaded
 * with the install (runtime/lazy-module.ts). What it does and why is described there.
 */
import net from 'node:net';
import { Duplex } from 'node:stream';
import { NS_PER_MS } from '../../runtime/clock/units.js';
import { queueOwnImmediate } from '../../runtime/driver/own-immediates.js';
import { originals } from '../../runtime/originals.js';
import type { SimEvent } from '../../runtime/scheduler/event.js';
import { activeWorld, type World } from '../../runtime/world.js';
import { currentHost, type Host } from '../context.js';
import { instantiateAtOnce } from '../thread-pool/wasm.js';
import type { PatchSet } from '../registry.js';
import { type Dispatcher, type DispatcherClass, globalDispatcher, setLoadingUndici } from './undici-slot.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyRecord = Record<PropertyKey, any>;

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
    setLoadingUndici(true);
    try {
      withTemporary([[g.WebAssembly, 'compile', compileNow]], () => void g.Response);
    } finally {
      setLoadingUndici(false);
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

export function installNow(patches: PatchSet): void {
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
