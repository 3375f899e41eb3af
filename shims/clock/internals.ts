/**
 * Node internals that read the real clock through the copy of `Date.now` (or of `Date`) they took
 * from primordials when Node started, which the Date shim cannot reach:
 *
 * - `new File(bits, name)` without `lastModified` stamps the file with the real time
 *   (lib/internal/file.js). Inside a host, `File` (the global and `node:buffer`'s) is a Proxy
 *   that hands the native constructor the host's `Date.now()` as the default.
 * - `util.log()` (Node 20 and 22; removed in 23) prefixes the real local time. Inside a host it
 *   prints the host's time, with Node's format, console and deprecation warning.
 * - readline's `crlfDelay`: a `\r` and a `\n` that arrive apart count as one line end when they
 *   are at most `crlfDelay` ms apart, measured on the real clock (lib/internal/readline/
 *   interface.js stores `DateNow()` in `this[kSawReturnAt]` and later subtracts it from
 *   `DateNow()`). Under the simulation the real time between two events has nothing to do with
 *   the virtual time between them: a slow machine would split a CRLF that arrived 1 virtual ms
 *   apart, and a run would depend on wall time. An accessor for that symbol, on the prototype
 *   every readline Interface inherits from, keeps the virtual instant of the `\r` and answers
 *   the subtraction so that its outcome follows the virtual time elapsed. Installed at the first
 *   load of node:readline or node:readline/promises (Shim.builtins; 1 ms of CPU at start).
 *
 * - libuv's loop clock as Node's own tests read it: `internalBinding('timers').getLibuvNow()`
 *   through `require('internal/test/binding')` (only with --expose-internals). Node answers it
 *   with `uv_update_time` then `uv_now`, in whole ms since the process started; the simulated
 *   timers never touch libuv, so it went on reading the real clock: test-timers-ordering saw
 *   67 ms twice across two 1 ms timers. Inside a host the binding that module hands out (a view
 *   of Node's, whose other members are Node's own) answers the host's clock in whole ms since its
 *   boot, read as performance.now() reads it (a loop spinning on it moves time on). Node's own
 *   lib keeps the real binding. Installed at that module's first load (Shim.builtins).
 *
 * Outside every host each of them is untouched.
 */
import bufferModule from 'node:buffer';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type readlineModule from 'node:readline';
import util from 'node:util';
import { callSites } from '../builtin-captures.js';
import { builtinLoaded } from '../builtin-loads.js';
import { currentHost, NODE_MAJOR } from '../context.js';
import type { PatchSet } from '../registry.js';
import type { Realm, Shim } from '../shim.js';
import { originals } from '../../runtime/originals.js';

// ---- File ------------------------------------------------------------------------------------

type FileConstructor = typeof globalThis.File;
const NativeFile: FileConstructor | undefined = (bufferModule as { File?: FileConstructor }).File;

/**
 * The options object the native constructor sees: the caller's own (null and undefined are
 * `{}` to Node), with a `lastModified` that falls back to the host's time. Everything else is
 * read from the caller's object, in Node's order, only by Node: the fallback reads the caller's
 * `lastModified` when Node does, and anything that is not a dictionary is passed on unchanged so
 * Node throws its own ERR_INVALID_ARG_TYPE.
 */
function withVirtualLastModified(options: unknown, nowMs: number): unknown {
  if (options === undefined || options === null) return { lastModified: nowMs };
  if (typeof options !== 'object' && typeof options !== 'function') return options;
  return Object.create(options as object, {
    lastModified: {
      get(): unknown {
        const given = (options as { lastModified?: unknown }).lastModified;
        return given === undefined ? nowMs : given;
      },
    },
  });
}

const fileHandler: ProxyHandler<FileConstructor> = {
  // `new File(...)` and `super()` of a class extending the simulated File.
  construct(target, args, newTarget) {
    const host = currentHost();
    // Fewer than two arguments: the native constructor throws ERR_MISSING_ARGS.
    if (host !== undefined && args.length >= 2) {
      const patched = [...args];
      patched[2] = withVirtualLastModified(args[2], host.dateNowMs());
      args = patched;
    }
    return Reflect.construct(target, args, newTarget === SimFile ? target : newTarget) as object;
  },
};

const SimFile: FileConstructor | undefined = NativeFile === undefined ? undefined : new Proxy(NativeFile, fileHandler);

// ---- util.log --------------------------------------------------------------------------------

const nativeLog = (util as { log?: (...args: unknown[]) => void }).log;
/** Node's util.log writes through its global console (internal/console/global), taken at load. */
const nodeConsole = globalThis.console;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number): string => n.toString().padStart(2, '0');

/** util.log's timestamp ("26 Feb 16:19:34", local time) for an instant in ms. */
function logTimestamp(ms: number): string {
  const d = new originals.Date(ms);
  return `${d.getDate()} ${MONTHS[d.getMonth()]} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function log(...args: unknown[]): void {
  const host = currentHost();
  if (host === undefined) {
    Reflect.apply(nativeLog!, undefined, args);
    return;
  }
  nodeConsole.log('%s - %s', logTimestamp(host.dateNowMs()), util.format(...args));
}

/**
 * What replaces util.log: on Node 22 wrapped like Node's own (DEP0059, warned once per process
 * whichever of the two functions is called first: Node keeps the codes it warned in one set).
 */
const simLog: ((...args: unknown[]) => void) | undefined =
  nativeLog === undefined
    ? undefined
    : NODE_MAJOR >= 22
      ? util.deprecate(
          log,
          'The `util.log API is deprecated. Please use console.log() with a custom formatter or a third-party logger instead.',
          'DEP0059',
        )
      : log;

// ---- readline crlfDelay ----------------------------------------------------------------------

interface ReadlineLike {
  crlfDelay: number;
}

/** Per Interface: the \r mark as Node stored it (a real `DateNow()` or 0) and its virtual instant. */
interface ReturnMark {
  stored: unknown;
  virtualMs: number | undefined;
}
const returnMarks = new WeakMap<object, ReturnMark>();

/** Node's private `kSawReturnAt` symbol, found by running the legacy setter on a Proxy. */
function sawReturnAtSymbol(readline: typeof readlineModule): symbol | undefined {
  /** The legacy `_sawReturnAt` accessor of readline.Interface (Node's own way to the symbol). */
  const legacyReturnAt = Object.getOwnPropertyDescriptor(readline.Interface.prototype, '_sawReturnAt');
  const setter = legacyReturnAt?.set;
  if (setter === undefined) return undefined;
  let found: PropertyKey | undefined;
  const probe = new Proxy(
    {},
    {
      set(_target, key) {
        found = key;
        return true;
      },
    },
  );
  try {
    Reflect.apply(setter, probe, [0]);
  } catch {
    return undefined;
  }
  return typeof found === 'symbol' ? found : undefined;
}

/** The prototype every readline Interface (readline's, readline/promises') inherits from. */
function interfaceBaseOf(readline: typeof readlineModule): object | undefined {
  // InterfaceConstructor.prototype: the last prototype before EventEmitter's.
  let proto: object = readline.Interface.prototype;
  for (;;) {
    const next = Object.getPrototypeOf(proto) as object | null;
    if (next === null) return undefined;
    if (next === EventEmitter.prototype) return proto;
    proto = next;
  }
}

/**
 * A real-clock reading far enough from `Date.now()` that Node's `DateNow() - mark` lands on the
 * side of `crlfDelay` the virtual time decides, whatever the real clock does in between.
 */
const FAR_MS = 1e9;

const returnMarkAccessor = {
  get(this: ReadlineLike): unknown {
    const mark = returnMarks.get(this);
    if (mark === undefined) return undefined;
    const host = currentHost();
    if (mark.virtualMs === undefined || host === undefined) return mark.stored;
    // Node compares `DateNow() - mark` with crlfDelay (<= for the same line end, > for a new one).
    const elapsedMs = host.dateNowMs() - mark.virtualMs;
    const now = originals.dateNow();
    return elapsedMs <= this.crlfDelay ? now + FAR_MS : now - FAR_MS - this.crlfDelay;
  },
  set(this: object, value: unknown): void {
    const host = currentHost();
    const virtualMs = host !== undefined && typeof value === 'number' && value !== 0 ? host.dateNowMs() : undefined;
    returnMarks.set(this, { stored: value, virtualMs });
  },
};

export const clockInternalsShim: Shim = {
  name: 'clock-internals',
  install(patches: PatchSet) {
    if (SimFile !== undefined && NativeFile !== undefined) {
      patches.replace(NativeFile.prototype, 'constructor', SimFile);
      patches.replace(bufferModule, 'File', SimFile);
    }
    if (simLog !== undefined) patches.replace(util, 'log', simLog);
  },
  realm(patches: PatchSet, realm: Realm) {
    // Node's File class serves every realm; each has its own global slot (a Jest context copies it).
    if (SimFile !== undefined && NativeFile !== undefined && Object.prototype.hasOwnProperty.call(realm.global, 'File')) {
      patches.replace(realm.global, 'File', SimFile);
    }
  },
};

/** Whether node:readline's top level is running now (it is on the stack). */
function readlineLoading(): boolean {
  const sites = callSites(readlineLoading, 64);
  return sites?.some((site) => site.getFileName() === 'node:readline') ?? false;
}

/** readline's crlfDelay on the virtual clock, installed at the first load of readline or readline/promises. */
export const readlineClockShim: Shim = {
  name: 'clock-readline',
  // node:readline requires readline/promises at its top level: when readline/promises is seen
  // loading there, readline's exports are not complete yet, and the shim waits for readline's
  // own load. Loaded by a program on its own, readline/promises installs the shim (which then
  // loads readline, no longer a cycle).
  builtins: ['readline/promises', 'readline'],
  ready: () => !readlineLoading(),
  install(patches: PatchSet) {
    const readline = createRequire(__filename)('node:readline') as typeof readlineModule;
    const kSawReturnAt = sawReturnAtSymbol(readline);
    const interfaceBase = interfaceBaseOf(readline);
    if (kSawReturnAt !== undefined && interfaceBase !== undefined) {
      patches.defineGetter(interfaceBase, kSawReturnAt, returnMarkAccessor.get, false, returnMarkAccessor.set);
    }
  },
};

// ---- libuv's loop clock (internalBinding('timers').getLibuvNow) ------------------------------

type InternalBinding = (name: string) => unknown;
/** Views of Node's timers binding, by the binding. */
const timersViews = new WeakMap<object, object>();

/**
 * What `internalBinding('timers')` of internal/test/binding returns: an object with the real
 * binding's members (functions called on the real binding, as Node's lib calls them), whose
 * getLibuvNow reads the host's clock inside a host.
 */
function timersView(binding: Record<string, unknown>): object {
  let view = timersViews.get(binding);
  if (view !== undefined) return view;
  const members: Record<string, unknown> = {};
  for (const key of Object.keys(binding)) {
    const value = binding[key];
    if (typeof value !== 'function') members[key] = value;
    else if (key === 'getLibuvNow') {
      members[key] = function getLibuvNow(): unknown {
        const host = currentHost();
        if (host === undefined) return Reflect.apply(value, binding, []);
        return Math.floor(host.clock.perfNowMs(host.readNowNs()));
      };
    } else members[key] = { [key](...args: unknown[]): unknown { return Reflect.apply(value, binding, args); } }[key];
  }
  view = members;
  timersViews.set(binding, view);
  return view;
}

/** internalBinding('timers').getLibuvNow on the host's clock, installed when internal/test/binding first loads (--expose-internals). */
export const libuvNowShim: Shim = {
  name: 'clock-libuv-now',
  builtins: ['internal/test/binding'],
  install(patches: PatchSet) {
    // Installed at once where loads cannot be watched (shims/install.ts): only a module already
    // loaded is patched (requiring it here would fail without --expose-internals, and would move
    // its warning before the program's own require with it).
    if (!builtinLoaded('internal/test/binding')) return;
    const testBinding = createRequire(__filename)('internal/test/binding') as { internalBinding?: InternalBinding };
    const internalBinding = testBinding.internalBinding;
    if (typeof internalBinding !== 'function') return;
    patches.replace(testBinding, 'internalBinding', function internalBindingForHosts(this: unknown, name: string): unknown {
      const binding = Reflect.apply(internalBinding, this, [name]) as Record<string, unknown>;
      return name === 'timers' && binding !== null && typeof binding === 'object' ? timersView(binding) : binding;
    });
  },
};
