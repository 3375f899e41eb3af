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
import { lazyModule } from '../../runtime/lazy-module.js';
import { activeWorld } from '../../runtime/world.js';
import { NODE_MAJOR } from '../context.js';
import { mirrorFunction, type PatchSet } from '../registry.js';
import { GLOBAL_DISPATCHER, globalDispatcher, loadingUndici } from './undici-slot.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyRecord = Record<PropertyKey, any>;


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
/** The triggers are placed once per process and stay: with no install pending they only pass through. */
let triggersPlaced = false;

function firePendingInstall(): void {
  const install = pendingInstall;
  if (install === undefined) return;
  pendingInstall = undefined;
  install();
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

/** Wraps the accessor `target[name]` (if it is one) so that its first read installs the shim, then reads Node's. */
function installOnRead(target: object, name: PropertyKey): void {
  const descriptor = Object.getOwnPropertyDescriptor(target, name);
  const realGet = descriptor?.get;
  if (realGet === undefined) return;
  Object.defineProperty(target, name, {
    ...descriptor,
    get: mirrorFunction(function (this: unknown) {
      firePendingInstall();
      return Reflect.apply(realGet, this, []);
    }, realGet),
  });
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
      installOnRead(g, name); // a value already (no getter): undici is loaded
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

  for (const name of HTTP_UNDICI_GETTERS) installOnRead(http, name); // Node 20 has none

  if (Object.getOwnPropertyDescriptor(g, GLOBAL_DISPATCHER) === undefined) {
    Object.defineProperty(g, GLOBAL_DISPATCHER, {
      configurable: true,
      enumerable: false,
      get() {
        // undici's own load asks whether a dispatcher exists before it makes one: the shim's
        // load, or Node's (22+: a lazy global read unseen), which must not be re-entered.
        if (loadingUndici()) return undefined;
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

/**
 * Sections 1-3 above (fetch-impl.ts: loading undici, its tick, the hosts' dispatchers) load with
 * the install itself: in register mode at the program's first use of undici, so a program that
 * never fetches does not compile them (docs/benchmarks.md, figure 12).
 */
const impl = lazyModule(() => import('./fetch-impl.js'));
function installNow(patches: PatchSet): void {
  impl().installNow(patches);
}
