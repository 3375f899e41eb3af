/**
 * What a seed of a plain program may change of the process, that a fresh process would not
 * have: taken before the first seed of an explore worker (program-seeds.ts) and put back, or
 * found impossible to put back, after every seed.
 *
 * - The built-in objects: the intrinsics reachable from globalThis (constructors, their
 *   prototypes, namespaces such as Math, JSON, console, Intl, the iterator prototypes) and the
 *   exports of Node's builtin modules (fs.readFile = wrapped, require.extensions['.ts'],
 *   Error.stackTraceLimit, Error.prepareStackTrace, a polyfill on Array.prototype). Their own
 *   properties are recorded once; after a seed an added key is deleted, a replaced or deleted
 *   one defined again, a changed prototype set back. Builtin modules a program may load are
 *   loaded before the record (SAFE_TO_PRELOAD), so that no module's first state is missed.
 * - Process-wide settings kept inside Node, read and written through functions or accessors:
 *   the working directory, umask, process.title, the uncaught-exception capture callback,
 *   source maps, EventEmitter.defaultMaxListeners and captureRejections, the streams' default
 *   highWaterMark, dns servers and result order, net's autoSelectFamily defaults, the http(s)
 *   global agents and their options, process.report's settings, util.inspect.defaultOptions.
 * - Methods and listeners a program put on the process's own streams (process.stdout.write =
 *   ..., listeners on process.stdout, stderr and the global agents).
 * - Keys added to the objects hanging off the process (process.features, versions, release,
 *   config) and to builtin arrays (http.METHODS, Module.globalPaths).
 * - What a seed subscribes or hooks that outlives it: diagnostics_channel subscriptions and bound
 *   stores, v8.promiseHooks (undone after the seed), console.count()'s counts and
 *   console.time()'s labels (cleared).
 *
 * What cannot be put back makes the worker unfit for another seed (`reusable: false`, with the
 * reason; the explorer starts a fresh process): a built-in object made non-extensible (frozen,
 * sealed), a non-configurable property that changed, V8 flags (v8.setFlagsFromString), the
 * real process's priority and user and group ids (os.setPriority, process.setuid and the like),
 * process.stdin taken (a process has one), process.stdout or stderr left corked or ended,
 * module hooks (module-hosts.ts, through seed-fitness.ts noSeedAfterThis), a
 * builtin module loaded for the first time that changes the process when loaded (domain and
 * the others kept out of SAFE_TO_PRELOAD), and a warning Node emitted from its own code: Node
 * emits a deprecation or experimental warning once per process (util.deprecate's codes, the
 * Buffer() constructor's DEP0005), so the next seed would not see it where its replay does.
 *
 * The check is made cheap by reading each recorded data property's value instead of its
 * descriptor (measured: 3-4 times cheaper; only a changed object is compared descriptor by
 * descriptor). What that misses: a data property turned into an accessor whose getter returns
 * the original value, and a change of attributes alone (writable, enumerable) of an existing
 * property that keeps its value.
 */
import http from 'node:http';
import https from 'node:https';
import Module, { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { originals } from '../runtime/originals.js';
import { noSeedAfterThis, takeUnfitReason } from './seed-fitness.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyObject = Record<PropertyKey, any>;

const nodeProcess: NodeJS.Process = originals.process;
const req = Module.createRequire(__filename);

/** This build's directory: frames of dst-runtime's own code, skipped to find who emitted a warning. */
const BUILD_DIR = path.basename(__dirname) === 'chunks' ? path.dirname(__dirname) : __dirname;

/**
 * Builtin modules that change the process just by being loaded, or warn when loaded: not
 * preloaded, and a seed that loads one leaves the worker unfit for another seed. domain hooks
 * EventEmitter and the capture callback; punycode and sys warn (DEP0040, DEP0025); sqlite, wasi
 * and others warn as experimental on some versions; repl and test start machinery. (inspector is
 * loaded by the runtime itself, runtime/trace/site.ts, and changes nothing until a Session.)
 */
const NOT_PRELOADED = new Set([
  'domain',
  'repl',
  'trace_events',
  'wasi',
  'sqlite',
  'test',
  'test/reporters',
  'sea',
  'quic',
  'punycode',
  'sys',
  '_stream_wrap',
]);

/** Global properties not walked: their values are per-seed state, not intrinsics. */
const GLOBALS_NOT_WALKED = new Set<PropertyKey>(['process', 'global', 'globalThis', 'localStorage', 'sessionStorage']);

/** Own properties of a watched instance that Node changes while it works: never put back. */
const INSTANCE_STATE = new Set<PropertyKey>([
  '_events',
  '_eventsCount',
  'sockets',
  'freeSockets',
  'requests',
  'totalSocketCount',
]);

/** One object whose own properties are recorded. */
interface Watched {
  object: AnyObject;
  /** How a report names it (`fs.readFile`, `Array.prototype`). */
  name: string;
  /** The builtin module's exports object: ESM facades are synced after it changes. */
  moduleExports: boolean;
  /** Which of its own keys count (instances: not their working state). */
  filter: ((key: PropertyKey, value: unknown) => boolean) | undefined;
  /** The filter reads only the key: counting the keys it keeps needs no descriptor. */
  filterByKey: boolean;
  keyCount: number;
  dataKeys: PropertyKey[];
  dataValues: unknown[];
  accessorKeys: PropertyKey[];
  accessorGetters: Array<(() => unknown) | undefined>;
  accessorSetters: Array<((v: unknown) => void) | undefined>;
  descriptors: Map<PropertyKey, PropertyDescriptor>;
  prototype: object | null;
  extensible: boolean;
}

/** A process-wide setting kept inside Node: read, compared, written back. */
interface Setting {
  name: string;
  read(): unknown;
  write(value: unknown): void;
  /** Compares two reads (arrays by their items). */
  same?(a: unknown, b: unknown): boolean;
  value: unknown;
}

/** Where a seed's changes stand after restore(). */
export interface StateCheck {
  /** The process is as before the seed, or as close as a fresh one would be. */
  reusable: boolean;
  /** Why not, when not (the first reason found). */
  reason: string | undefined;
  /** What was put back, for DST_DEBUG_RESTORE and the tests. */
  restored: string[];
}

export class ProcessState {
  private readonly watched: Watched[] = [];
  private readonly settings: Setting[] = [];
  private readonly emitters: Array<{ emitter: NodeJS.EventEmitter; name: string; listeners: Map<string | symbol, Function[]> }> = [];
  private readonly builtinIds: string[];
  private readonly cacheBuiltins: Set<string>;
  private moduleLoadCount: number;
  /** Between begin() and restore(): a seed runs. */
  private inSeed = false;
  /** What a seed subscribed and hooked that lasts beyond it (watchers below), undone in restore(), newest first. */
  private readonly undos: Array<() => void> = [];
  /** Maps of the global console (console.count()'s counts, console.time()'s labels): empty in a fresh process. */
  private readonly consoleMaps: Array<{ clear(): void; size: number }> = [];

  constructor() {
    // Before anything is recorded: the modules a program may load, and the watchers.
    this.builtinIds = Module.builtinModules.filter((id) => !NOT_PRELOADED.has(id) && !id.startsWith('_'));
    const modules: Array<readonly [string, unknown]> = [];
    for (const id of this.builtinIds) {
      try {
        modules.push([id, req(id)]);
      } catch {
        // Not in this build of Node (inspector without --inspect support): nothing to record.
      }
    }
    this.installWatchers(modules);
    const seen = new Set<object>();
    const skip = new Set<object>([nodeProcess, nodeProcess.env as object, (Module as any)._cache, (Module as any)._pathCache]);
    for (const key of Reflect.ownKeys(globalThis)) {
      if (GLOBALS_NOT_WALKED.has(key)) continue;
      const value = readProperty(globalThis, key);
      if (isObject(value)) this.walk(value, typeof key === 'symbol' ? key.toString() : key, seen, skip, true);
    }
    for (const intrinsic of hiddenIntrinsics()) this.walk(intrinsic.value, intrinsic.name, seen, skip, true);
    for (const [id, exports] of modules) {
      if (!isObject(exports)) continue;
      if (seen.has(exports)) {
        // Already reached from a global (`buffer`'s Buffer, `console`): still an exports object.
        const w = this.watched.find((x) => x.object === exports);
        if (w !== undefined) w.moduleExports = true;
        continue;
      }
      this.walk(exports, id, seen, skip, true, true);
    }
    // Reached only through accessors: the object util.inspect.defaultOptions returns and sets.
    const util = req('util');
    this.watch(util.inspect.defaultOptions, 'util.inspect.defaultOptions', undefined, false);
    // The process object: its own keys, not the ones Node and the seed's runtime keep per seed.
    this.watch(nodeProcess as unknown as AnyObject, 'process', (key) => !PROCESS_PER_SEED.has(key), false, true);
    // Objects hanging off the process that a seed may add to (process.features.x = ...).
    for (const key of ['features', 'versions', 'release', 'config'] as const) {
      const value = readProperty(nodeProcess, key);
      if (isObject(value) && !Object.isFrozen(value)) this.watch(value as AnyObject, `process.${key}`, undefined, false);
    }
    for (const key of Reflect.ownKeys(console)) {
      const value = readProperty(console, key) as { clear?: unknown; size?: unknown } | undefined;
      if (isObject(value) && typeof value.clear === 'function' && value.size === 0) this.consoleMaps.push(value as { clear(): void; size: number });
    }
    for (const [stream, name] of [[nodeProcess.stdout, 'process.stdout'], [nodeProcess.stderr, 'process.stderr']] as const) {
      this.watch(stream as unknown as AnyObject, name, (_key, value) => typeof value === 'function', false);
      this.emitters.push({ emitter: stream, name, listeners: new Map() });
    }
    for (const [agent, name] of [[http.globalAgent, 'http.globalAgent'], [https.globalAgent, 'https.globalAgent']] as const) {
      this.watch(agent as unknown as AnyObject, name, (key) => !INSTANCE_STATE.has(key), false, true);
      const options = (agent as unknown as { options?: AnyObject }).options;
      if (isObject(options)) this.watch(options, `${name}.options`, undefined, false);
      this.emitters.push({ emitter: agent, name, listeners: new Map() });
    }
    for (const setting of processSettings()) this.settings.push({ ...setting, value: setting.read() });
    for (const e of this.emitters) for (const event of e.emitter.eventNames()) e.listeners.set(event, e.emitter.rawListeners(event).slice());
    this.cacheBuiltins = new Set(Object.keys((Module as any)._cache).filter((key) => Module.isBuiltin(key)));
    this.moduleLoadCount = moduleLoadList().length;
  }

  /** Called as a seed starts. */
  begin(): void {
    takeUnfitReason(); // what was noted between seeds is no seed's
    this.inSeed = true;
  }

  /** Puts back what the seed changed; says what could not be. Shims must be uninstalled first. */
  restore(): StateCheck {
    const restored: string[] = [];
    this.inSeed = false;
    // What the watchers below (and module-hosts.ts) noted during the seed comes first.
    let reason = takeUnfitReason();
    const fail = (why: string): void => {
      reason ??= why;
    };
    for (let undo = this.undos.pop(); undo !== undefined; undo = this.undos.pop()) {
      try {
        undo();
      } catch (error) {
        fail(`a diagnostics_channel subscription or promise hook of the seed cannot be undone (${(error as Error)?.message ?? String(error)})`);
      }
    }
    for (const map of this.consoleMaps) {
      if (map.size === 0) continue;
      map.clear();
      restored.push("console.count()'s counts or console.time()'s labels");
    }
    for (const [stream, name] of [[nodeProcess.stdout, 'process.stdout'], [nodeProcess.stderr, 'process.stderr']] as const) {
      if (stream.writableCorked > 0) fail(`${name} was left corked: what the next seeds print would wait behind it`);
      else if (stream.destroyed || stream.writableEnded) fail(`${name} was ended or destroyed`);
    }
    for (const setting of this.settings) {
      let now: unknown;
      try {
        now = setting.read();
      } catch {
        now = undefined;
      }
      if (setting.same === undefined ? Object.is(now, setting.value) : setting.same(now, setting.value)) continue;
      try {
        setting.write(setting.value);
        restored.push(setting.name);
      } catch (error) {
        fail(`${setting.name} cannot be put back (${(error as Error)?.message ?? String(error)})`);
      }
    }
    // After the settings: dns.setServers() binds dns's exports anew, which this puts back.
    let exportsChanged = false;
    for (const w of this.watched) {
      if (unchanged(w)) continue;
      if (w.moduleExports) exportsChanged = true;
      restoreWatched(w, restored, fail);
    }
    if (exportsChanged) syncBuiltinESMExports();
    for (const e of this.emitters) {
      for (const event of e.emitter.eventNames()) {
        const kept = e.listeners.get(event) ?? [];
        for (const listener of e.emitter.rawListeners(event)) {
          if (kept.includes(listener)) continue;
          e.emitter.removeListener(event, listener as (...args: unknown[]) => void);
          restored.push(`a '${String(event)}' listener on ${e.name}`);
        }
      }
    }
    // require.cache['fs'] = {...} shadows the builtin for every later require('fs').
    const cache = (Module as any)._cache as AnyObject;
    for (const id of this.builtinIds) {
      if (Object.prototype.hasOwnProperty.call(cache, id) && !this.cacheBuiltins.has(id)) {
        delete cache[id];
        restored.push(`require.cache['${id}']`);
      }
    }
    const loaded = moduleLoadList();
    if (loaded.length !== this.moduleLoadCount) {
      for (let i = this.moduleLoadCount; i < loaded.length; i++) {
        const entry = loaded[i]!;
        const id = entry.startsWith('NativeModule ') ? entry.slice('NativeModule '.length) : undefined;
        if (id !== undefined && NOT_PRELOADED.has(id)) fail(`the program loaded builtin module '${id}', which changes the process when first loaded`);
      }
      this.moduleLoadCount = loaded.length;
    }
    return { reusable: reason === undefined, reason, restored };
  }

  private walk(value: object, name: string, seen: Set<object>, skip: Set<object>, top: boolean, moduleExports = false): void {
    if (seen.has(value) || skip.has(value)) return;
    // A plain method (no prototype of its own worth the name, only length and name): its own
    // keys are rarely changed and there are thousands of them.
    if (typeof value === 'function' && !top && plainMethod(value)) return;
    seen.add(value);
    this.watch(value as AnyObject, name, undefined, moduleExports);
    // Own properties before the prototype, so that Object.prototype is named so, not found as
    // the prototype of Function.prototype.
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
      if (!('value' in descriptor)) continue;
      const v = descriptor.value;
      const child = `${name}.${String(key)}`;
      if (typeof v === 'function') this.walk(v, child, seen, skip, false);
      else if (isObject(v) && (isPlain(v) || Array.isArray(v)) && !Object.isFrozen(v)) this.walk(v, child, seen, skip, false);
    }
    const proto = Object.getPrototypeOf(value);
    if (isObject(proto)) this.walk(proto, `Object.getPrototypeOf(${name})`, seen, skip, false);
  }

  private watch(object: AnyObject, name: string, filter: Watched['filter'], moduleExports: boolean, filterByKey = false): void {
    const w: Watched = {
      object,
      name,
      moduleExports,
      filter,
      filterByKey,
      keyCount: 0,
      dataKeys: [],
      dataValues: [],
      accessorKeys: [],
      accessorGetters: [],
      accessorSetters: [],
      descriptors: new Map(),
      prototype: Object.getPrototypeOf(object),
      extensible: Object.isExtensible(object),
    };
    for (const key of Reflect.ownKeys(object)) {
      const descriptor = Object.getOwnPropertyDescriptor(object, key)!;
      if (filter !== undefined && !filter(key, descriptor.value)) continue;
      w.descriptors.set(key, descriptor);
      // A non-configurable key that cannot be written keeps its value and accessors for ever
      // (constants tables: zlib's, http2.constants): only whether keys were added is checked.
      if (descriptor.configurable === false && descriptor.writable !== true) continue;
      if ('value' in descriptor) {
        w.dataKeys.push(key);
        w.dataValues.push(descriptor.value);
      } else {
        w.accessorKeys.push(key);
        w.accessorGetters.push(descriptor.get);
        w.accessorSetters.push(descriptor.set);
      }
    }
    w.keyCount = filter === undefined ? w.descriptors.size : 0;
    // Nothing of a frozen object can change: not worth a look after every seed.
    if (!w.extensible && filter === undefined && w.dataKeys.length === 0 && w.accessorKeys.length === 0) return;
    this.watched.push(w);
  }

  /**
   * Watchers of changes that cannot be put back, installed once: they stay for the worker's life,
   * so the record below holds them.
   */
  private installWatchers(modules: ReadonlyArray<readonly [string, unknown]>): void {
    const self = this;
    const v8 = modules.find(([id]) => id === 'v8')?.[1] as AnyObject | undefined;
    const tls = modules.find(([id]) => id === 'tls')?.[1] as AnyObject | undefined;
    const os = modules.find(([id]) => id === 'os')?.[1] as AnyObject | undefined;
    // Calls whose effect lasts for the process's life: V8 flags, the default CA certificates, and
    // the real process's priority and user and group ids (a seed that dropped root cannot take it
    // again).
    const changesProcess = (call: string) => `the program called ${call}, which changes the real process for the seeds after it`;
    const lasting: Array<[AnyObject | undefined, string, string]> = [
      [v8, 'setFlagsFromString', 'the program called v8.setFlagsFromString(), which no seed can undo'],
      [v8, 'setHeapSnapshotNearHeapLimit', 'the program called v8.setHeapSnapshotNearHeapLimit(), which no seed can undo'],
      [tls, 'setDefaultCACertificates', 'the program called tls.setDefaultCACertificates()'],
      [os, 'setPriority', changesProcess('os.setPriority()')],
      ...(['setuid', 'seteuid', 'setgid', 'setegid', 'setgroups', 'initgroups'] as const).map((name): [AnyObject, string, string] => [nodeProcess as unknown as AnyObject, name, changesProcess(`process.${name}()`)]),
    ];
    for (const [owner, name, why] of lasting) {
      const real = owner?.[name];
      if (typeof real !== 'function') continue;
      owner![name] = named(name, real.length, function (this: unknown, ...args: unknown[]) {
        noSeedAfterThis(why);
        return Reflect.apply(real, this, args);
      });
    }
    // The process has one stdin: what a seed read of it is gone for the next.
    const stdin = Object.getOwnPropertyDescriptor(nodeProcess, 'stdin');
    const getStdin = stdin?.get;
    if (stdin !== undefined && getStdin !== undefined && stdin.configurable === true) {
      const get = named('get', 0, function (this: unknown) {
        // Node's own code takes it for the program too (process.openStdin()).
        if (self.inSeed && calledByProgram(get, undefined, true)) noSeedAfterThis('the program used process.stdin, which a process has once');
        return Reflect.apply(getStdin, this, []);
      });
      Object.defineProperty(nodeProcess, 'stdin', { ...stdin, get });
    }
    // v8.promiseHooks: each returns the function that stops it.
    const promiseHooks = v8?.promiseHooks as AnyObject | undefined;
    for (const name of ['onInit', 'onBefore', 'onAfter', 'onSettled', 'createHook']) {
      const real = promiseHooks?.[name];
      if (typeof real !== 'function') continue;
      const hook = named(name, real.length, function (this: unknown, ...args: unknown[]) {
        const stop = Reflect.apply(real, this, args);
        // Node's own async_hooks installs its promise hook through this object: only the program's are undone.
        if (self.inSeed && typeof stop === 'function' && calledByProgram(hook)) self.undos.push(() => stop());
        return stop;
      });
      promiseHooks![name] = hook;
    }
    this.watchChannels(modules.find(([id]) => id === 'diagnostics_channel')?.[1] as AnyObject | undefined);
    // Node emits a deprecation or experimental warning once per process: a seed that set one
    // off took it from the seeds after it (their replays emit it).
    const emitWarning = nodeProcess.emitWarning;
    const watching = named('emitWarning', emitWarning.length, function (this: unknown, ...args: unknown[]) {
      const file = emitterFile(watching);
      if (file !== undefined && file.startsWith('node:')) {
        const warning = args[0] as { name?: unknown; message?: unknown } | string;
        const text = typeof warning === 'string' ? warning : `${String(warning?.name)}: ${String(warning?.message)}`;
        noSeedAfterThis(`Node emitted a warning, which it emits once per process ("${text.split('\n')[0]!.slice(0, 120)}")`);
      }
      return Reflect.apply(emitWarning, this, args);
    });
    nodeProcess.emitWarning = watching as typeof emitWarning;
  }

  /**
   * diagnostics_channel: what a seed's program subscribes (dc.subscribe, a channel's subscribe,
   * a TracingChannel's) and the stores it binds are undone after the seed. A channel with
   * subscribers has another prototype (ActiveChannel) than one without: both are watched.
   */
  private watchChannels(dc: AnyObject | undefined): void {
    if (dc === undefined || typeof dc.channel !== 'function' || dc.Channel === undefined) return;
    const self = this;
    const probe = dc.channel(Symbol('dst-runtime: the active channel prototype'));
    const noop = (): void => {};
    probe.subscribe(noop);
    const active = Object.getPrototypeOf(probe) as AnyObject;
    probe.unsubscribe(noop);
    const pairs = [['subscribe', 'unsubscribe'], ['bindStore', 'unbindStore']] as const;
    for (const prototype of new Set<AnyObject>([dc.Channel.prototype as AnyObject, active])) {
      for (const [add, remove] of pairs) {
        const real = prototype[add];
        if (typeof real !== 'function') continue;
        const watched = named(add, real.length, function (this: AnyObject, ...args: unknown[]) {
          const result = Reflect.apply(real, this, args);
          if (self.inSeed && calledByProgram(watched, 'node:diagnostics_channel')) {
            const channel = this;
            self.undos.push(() => channel[remove](args[0]));
          }
          return result;
        });
        prototype[add] = watched;
      }
    }
  }
}

/** Keys of the process object that are per seed or Node's working state, not put back from the record. */
const PROCESS_PER_SEED = new Set<PropertyKey>([
  '_events',
  '_eventsCount',
  'env',
  'argv',
  'execArgv',
  'exitCode',
  '_exiting',
  'mainModule',
  'exit',
  // the IPC channel, hidden during a seed (ipc-channel.ts)
  'channel',
  '_channel',
  'send',
  'connected',
  'disconnect',
]);

function processSettings(): Array<Omit<Setting, 'value'>> {
  const events = req('events');
  const stream = req('stream');
  const dns = req('dns');
  const net = req('net');
  const list: Array<Omit<Setting, 'value'>> = [
    { name: 'process.cwd()', read: () => nodeProcess.cwd(), write: (v) => nodeProcess.chdir(v as string) },
    {
      name: 'process.umask()',
      read: () => {
        const mask = nodeProcess.umask(0o022);
        nodeProcess.umask(mask);
        return mask;
      },
      write: (v) => nodeProcess.umask(v as number),
    },
    { name: 'process.title', read: () => nodeProcess.title, write: (v) => (nodeProcess.title = v as string) },
    {
      name: 'process.setUncaughtExceptionCaptureCallback()',
      read: () => nodeProcess.hasUncaughtExceptionCaptureCallback(),
      write: () => nodeProcess.setUncaughtExceptionCaptureCallback(null),
    },
    { name: 'events.defaultMaxListeners', read: () => events.defaultMaxListeners, write: (v) => (events.defaultMaxListeners = v) },
    { name: 'events.captureRejections', read: () => events.captureRejections, write: (v) => (events.captureRejections = v) },
    { name: 'http.globalAgent', read: () => http.globalAgent, write: (v) => (http.globalAgent = v as http.Agent) },
    { name: 'https.globalAgent', read: () => https.globalAgent, write: (v) => (https.globalAgent = v as https.Agent) },
    { name: 'dns.getServers()', read: () => dns.getServers(), write: (v) => dns.setServers(v), same: sameItems },
  ];
  const p = nodeProcess as unknown as AnyObject;
  if (typeof p.setSourceMapsEnabled === 'function' && 'sourceMapsEnabled' in p) {
    list.push({ name: 'process.setSourceMapsEnabled()', read: () => p.sourceMapsEnabled, write: (v) => p.setSourceMapsEnabled(v) });
  }
  if (typeof stream.getDefaultHighWaterMark === 'function') {
    for (const objectMode of [false, true]) {
      list.push({
        name: `stream.setDefaultHighWaterMark(${objectMode})`,
        read: () => stream.getDefaultHighWaterMark(objectMode),
        write: (v) => stream.setDefaultHighWaterMark(objectMode, v),
      });
    }
  }
  if (typeof dns.getDefaultResultOrder === 'function') {
    list.push({ name: 'dns.setDefaultResultOrder()', read: () => dns.getDefaultResultOrder(), write: (v) => dns.setDefaultResultOrder(v) });
  }
  for (const [get, set] of [
    ['getDefaultAutoSelectFamily', 'setDefaultAutoSelectFamily'],
    ['getDefaultAutoSelectFamilyAttemptTimeout', 'setDefaultAutoSelectFamilyAttemptTimeout'],
  ] as const) {
    if (typeof net[get] === 'function' && typeof net[set] === 'function') {
      list.push({ name: `net.${set}()`, read: () => net[get](), write: (v) => net[set](v) });
    }
  }
  const report = p.report as AnyObject | undefined;
  if (report !== undefined) {
    for (const key of Object.getOwnPropertyNames(report)) {
      const descriptor = Object.getOwnPropertyDescriptor(report, key)!;
      if (descriptor.get === undefined || descriptor.set === undefined) continue;
      list.push({ name: `process.report.${key}`, read: () => report[key], write: (v) => (report[key] = v) });
    }
  }
  return list;
}

function sameItems(a: unknown, b: unknown): boolean {
  return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Whether an object's recorded keys read as recorded: one read per data key, no descriptor. */
function unchanged(w: Watched): boolean {
  const o = w.object;
  if (Object.getPrototypeOf(o) !== w.prototype || Object.isExtensible(o) !== w.extensible) return false;
  if (w.filter === undefined) {
    if (Reflect.ownKeys(o).length !== w.keyCount) return false;
  } else if (filteredKeyCount(w) !== w.descriptors.size) return false;
  const keys = w.dataKeys;
  const values = w.dataValues;
  try {
    for (let i = 0; i < keys.length; i++) if (!Object.is(o[keys[i]!], values[i])) return false;
  } catch {
    return false; // a getter the program put there threw
  }
  const accessors = w.accessorKeys;
  for (let i = 0; i < accessors.length; i++) {
    const d = Object.getOwnPropertyDescriptor(o, accessors[i]!);
    if (d === undefined || d.get !== w.accessorGetters[i] || d.set !== w.accessorSetters[i]) return false;
  }
  return true;
}

function filteredKeyCount(w: Watched): number {
  let count = 0;
  if (w.filterByKey) {
    // The process object: 70-odd keys, a descriptor each after every seed for nothing.
    for (const key of Reflect.ownKeys(w.object)) if (w.filter!(key, undefined)) count++;
    return count;
  }
  for (const key of Reflect.ownKeys(w.object)) {
    const d = Object.getOwnPropertyDescriptor(w.object, key)!;
    if (w.filter!(key, d.value)) count++;
  }
  return count;
}

function sameDescriptor(a: PropertyDescriptor, b: PropertyDescriptor): boolean {
  return Object.is(a.value, b.value) && a.get === b.get && a.set === b.set && a.writable === b.writable && a.enumerable === b.enumerable && a.configurable === b.configurable;
}

function restoreWatched(w: Watched, restored: string[], fail: (why: string) => void): void {
  const o = w.object;
  if (Object.isExtensible(o) !== w.extensible) fail(`${w.name} was made non-extensible (frozen, sealed or preventExtensions), which cannot be undone`);
  if (Object.getPrototypeOf(o) !== w.prototype) {
    if (Reflect.setPrototypeOf(o, w.prototype)) restored.push(`the prototype of ${w.name}`);
    else fail(`the prototype of ${w.name} was changed and cannot be set back`);
  }
  for (const key of Reflect.ownKeys(o)) {
    if (w.descriptors.has(key)) continue;
    const d = Object.getOwnPropertyDescriptor(o, key)!;
    if (w.filter !== undefined && !w.filter(key, d.value)) continue;
    if (Reflect.deleteProperty(o, key)) restored.push(`${w.name}.${String(key)} (added)`);
    else fail(`${w.name}.${String(key)} was added non-configurable and cannot be deleted`);
  }
  for (const [key, before] of w.descriptors) {
    const now = Object.getOwnPropertyDescriptor(o, key);
    if (now !== undefined && sameDescriptor(now, before)) continue;
    if (now === undefined || now.configurable) {
      if (Reflect.defineProperty(o, key, before)) {
        restored.push(`${w.name}.${String(key)}`);
        continue;
      }
    } else if (now.writable && 'value' in before && Reflect.set(o, key, before.value) && Object.is(Object.getOwnPropertyDescriptor(o, key)?.value, before.value)) {
      restored.push(`${w.name}.${String(key)}`);
      if (sameDescriptor(Object.getOwnPropertyDescriptor(o, key)!, before)) continue;
    }
    fail(`${w.name}.${String(key)} was redefined non-configurable and cannot be put back`);
  }
}

/** Intrinsics no global names: the iterator and generator prototypes polyfills patch. */
function hiddenIntrinsics(): Array<{ name: string; value: object }> {
  const list: Array<{ name: string; value: object }> = [];
  const add = (name: string, value: unknown): void => {
    if (isObject(value)) list.push({ name, value });
  };
  const arrayIterator = Object.getPrototypeOf([][Symbol.iterator]());
  add('%ArrayIteratorPrototype%', arrayIterator);
  add('%IteratorPrototype%', Object.getPrototypeOf(arrayIterator));
  add('%MapIteratorPrototype%', Object.getPrototypeOf(new Map()[Symbol.iterator]()));
  add('%SetIteratorPrototype%', Object.getPrototypeOf(new Set()[Symbol.iterator]()));
  add('%StringIteratorPrototype%', Object.getPrototypeOf(''[Symbol.iterator]()));
  add('%RegExpStringIteratorPrototype%', Object.getPrototypeOf(/x/[Symbol.matchAll]('')));
  add('%TypedArray%', Object.getPrototypeOf(Uint8Array));
  add('%GeneratorFunction%', Object.getPrototypeOf(function* () {}).constructor);
  add('%AsyncFunction%', Object.getPrototypeOf(async function () {}).constructor);
  add('%AsyncGeneratorFunction%', Object.getPrototypeOf(async function* () {}).constructor);
  add('%GeneratorPrototype%', Object.getPrototypeOf(function* () {}).prototype);
  add('%AsyncGeneratorPrototype%', Object.getPrototypeOf(async function* () {}).prototype);
  add('%AsyncIteratorPrototype%', Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}).prototype));
  return list;
}

/**
 * The call sites below `fn` (at most `limit`), read without leaving a trace on Error: its
 * prepareStackTrace is put back by descriptor (it is no own property as a rule, and the record
 * above would see one added).
 */
function sitesBelow(fn: Function, limit: number): NodeJS.CallSite[] {
  const E = Error as unknown as { prepareStackTrace?: unknown; stackTraceLimit: number };
  const prepare = Object.getOwnPropertyDescriptor(Error, 'prepareStackTrace');
  const previousLimit = E.stackTraceLimit;
  try {
    E.prepareStackTrace = (_error: unknown, sites: NodeJS.CallSite[]) => sites;
    E.stackTraceLimit = limit;
    const holder: { stack?: NodeJS.CallSite[] } = {};
    Error.captureStackTrace(holder, fn);
    return Array.isArray(holder.stack) ? holder.stack : [];
  } catch {
    return [];
  } finally {
    if (prepare === undefined) delete E.prepareStackTrace;
    else Object.defineProperty(Error, 'prepareStackTrace', prepare);
    E.stackTraceLimit = previousLimit;
  }
}

function ownFile(file: string): boolean {
  return file.startsWith(BUILD_DIR) || file.startsWith(`file://${BUILD_DIR}`);
}

/** The file of the first frame outside dst-runtime that called `fn`. */
function emitterFile(fn: Function): string | undefined {
  for (const site of sitesBelow(fn, 8)) {
    const file = site.getFileName() ?? '';
    if (!ownFile(file)) return file;
  }
  return undefined;
}

/**
 * Whether the code that called `fn` is the program's: not dst-runtime's, not Node's own (Node's
 * async_hooks installs its promise hook through v8.promiseHooks' object). Frames of `through`
 * (a module of Node's whose public functions call `fn`: dc.subscribe) are passed over; with
 * `nodeCounts`, Node's own code counts as the program's.
 */
function calledByProgram(fn: Function, through?: string, nodeCounts = false): boolean {
  const file = sitesBelow(fn, 4).map((site) => site.getFileName() ?? '').find((name) => name !== through) ?? '';
  return file !== '' && (nodeCounts || !file.startsWith('node:')) && !ownFile(file);
}

function named<F extends Function>(name: string, length: number, fn: F): F {
  Object.defineProperty(fn, 'name', { value: name });
  Object.defineProperty(fn, 'length', { value: length });
  return fn;
}

function moduleLoadList(): string[] {
  return (nodeProcess as unknown as { moduleLoadList: string[] }).moduleLoadList;
}

function readProperty(object: object, key: PropertyKey): unknown {
  try {
    return (object as AnyObject)[key];
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is object {
  return value !== null && (typeof value === 'object' || typeof value === 'function');
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function plainMethod(fn: Function): boolean {
  const keys = Reflect.ownKeys(fn);
  if (keys.length > 3) return false;
  const prototype = Object.getOwnPropertyDescriptor(fn, 'prototype');
  return prototype === undefined || !isObject(prototype.value) || Reflect.ownKeys(prototype.value).length <= 1;
}
