/**
 * Hosts started from modules: `sim.host('kv-1', { main: './server.js', argv, env })`. Each host
 * incarnation gets its own module instances — its main module and everything it imports or
 * requires, node_modules included, ESM and CommonJS — so two hosts share no module state and a
 * restart re-evaluates everything.
 *
 * - ESM: the main module is imported with ?dst-host=<name>&dst-boot=<n>&dst-run=<k>; the hooks
 *   carry the query to every import (the rules are in module-graph.ts). They are registered
 *   once: in-thread with module.registerHooks where Node has it (22.15+, 24), else with
 *   module.register (loader-hooks.ts, built into dist/loader-hooks.mjs, on Node's loader thread).
 * - CommonJS: Module._load is patched so that, inside a module host, require() uses that
 *   incarnation's own cache; CommonJS files imported from ESM come through the same cache.
 *   Their compiled code is kept for later incarnations (code-cache.ts).
 * - Loading is real asynchronous work (file reads, the loader thread): the simulation waits for
 *   it (World.waitForRealWork) until the host's module graph starts to evaluate.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import Module, { createRequire, register } from 'node:module';
import { noSeedAfterThis } from '../seed-fitness.js';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UsageError } from '../../runtime/errors.js';
import { testRealmGlobal } from '../../runtime/realms.js';
import { type ModuleHostSpec, setModuleHosts } from '../../runtime/interposer.js';
import { captureContext } from '../async-hooks/async-context.js';
import { queueOwnImmediate } from '../../runtime/driver/own-immediates.js';
import { currentHost, type Host } from '../context.js';
import { activeWorld } from '../../runtime/world.js';
import { abandonRealCall, beginRealCall, completeInPlace, completeRealCall, type RealCall } from '../thread-pool/real-work.js';
import { installCodeCache, isHostModule, markHostModule } from './code-cache.js';
import { type CjsParse, ENTRY_MARK, hostImportSpecifier, hostQuery, type Loaded, loadedInHostGraph, type Resolved, resolvedInHostGraph, setSharedDirectory, sourceText, unwrapHostImport, withoutHostQuery } from './module-graph.js';
import { esmKey, readResolutionCacheSetting, resolveCommonJs, resolveEsm } from './resolution-cache.js';
import type { PatchSet } from '../registry.js';
import type { Realm, Shim } from '../shim.js';

/**
 * cjs-module-lexer's parse (the names a CommonJS file exports, for a host's ES module importing
 * it), required at a host's first CommonJS module: loading the package cost 4-8 ms of CPU of
 * every register-mode start (docs/benchmarks.md, figure 12).
 */
let cjsLexer: typeof import('cjs-module-lexer') | undefined;
function parseCjs(source: string): CjsParse {
  cjsLexer ??= createRequire(__filename)('cjs-module-lexer') as typeof import('cjs-module-lexer');
  return cjsLexer.parse(source);
}

/* eslint-disable @typescript-eslint/no-explicit-any */
type CjsModule = any;
const ModuleClass = Module as any;


interface HostModules {
  spec: ModuleHostSpec;
  argv: string[];
  env: NodeJS.ProcessEnv;
  /**
   * The incarnation's CommonJS modules by file name, as Node's Module._cache holds a process's:
   * what its code sees as require.cache and Module._cache (moduleCache).
   */
  cache: Record<string, CjsModule>;
  /** The incarnation's main module when it is CommonJS: its process.mainModule and require.main. */
  mainModule: CjsModule | undefined;
  /** Releases the simulation once the host's module graph starts to evaluate. */
  release: (() => void) | undefined;
}

const hostModules = new WeakMap<Host, HostModules>();
const runNumbers = new WeakMap<object, number>();
let runs = 0;

function runNumber(host: Host): number {
  let n = runNumbers.get(host.world);
  if (n === undefined) runNumbers.set(host.world, (n = ++runs));
  return n;
}
let hooksRegistered = false;

/** The query of `host`'s current incarnation's module URLs (module-graph.ts). */
function hostQueryOf(host: Host): string {
  return `?dst-host=${encodeURIComponent(host.name)}&dst-boot=${host.incarnation}&dst-run=${runNumber(host)}`;
}

// ---- in-thread hooks (module.registerHooks: Node >= 22.15 and 24) ---------------------------
// The rules of shims/module/module-graph.ts, as dist/loader-hooks.mjs applies them on the loader
// thread, here synchronous and on the main thread. Preferred where they exist: with no loader
// thread, loading a module graph takes no turn of the event loop (measured: 0 immediates run
// during an import(), against hundreds with module.register on Node 22), so a dynamic import()
// made by host code in the middle of a run completes before the next event, at the same
// virtual instant, instead of after a real, machine-dependent delay. Pinned by
// test/hosts/module-hosts.test.mjs ("dynamic import()").

function resolveHook(asked: string, askedContext: { parentURL?: string; conditions?: unknown; importAttributes?: unknown }, nextResolve: (s: string, c: unknown) => Resolved): Resolved {
  const { specifier, context } = unwrapHostImport(asked, askedContext);
  // Inside a host graph, where the importer's file (its URL without the host query) resolved
  // this before: resolution-cache.ts.
  const key = hostQuery(context.parentURL) === undefined || onSimulatedDisk() ? undefined : esmKey(specifier, withoutHostQuery(context.parentURL!), context);
  return resolvedInHostGraph(
    resolveEsm(key, specifier, () => rest(() => nextResolve(specifier, context))),
    context.parentURL,
  );
}

/** Whether the run's files are a simulated disk's: resolutions are then not kept. */
function onSimulatedDisk(): boolean {
  return activeWorld()?.options.disk === 'simulated';
}

/**
 * Runs `fn`, another tool's loader hook, as code of no host (World.outsideHosts); `inside` runs
 * what it hands back (its `next`) in the import's context again. A hook is tooling, not the
 * program, though Node runs in-thread hooks inside the host call that imports: tsx's, on a cache
 * miss, queued an immediate and wrote its cache files there (events of the run: the same seed ran
 * differently the first time), and its esbuild started a worker thread, which a host may not (the
 * run crashed).
 */
function outsideHosts<T>(fn: (inside: <R>(back: () => R) => R) => T): T {
  const world = activeWorld();
  return world === undefined ? fn((back) => back()) : world.outsideHosts(fn);
}

/**
 * Whether hooks another tool registered before dst-runtime's may follow them in the chain (a
 * preload before dst-runtime's: register mode and explorer workers say so, runHookChainOutside).
 * The rest of the chain then runs outside every host, Node's own resolution at its end too: a
 * simulated disk then does not answer it (resolution of a host's files on its simulated disk,
 * with such a tool first, is left to the real disk).
 */
let chainOutside = false;

export function runHookChainOutside(): void {
  chainOutside = true;
}

/** The rest of the hook chain after dst-runtime's hooks. */
function rest<T>(next: () => T): T {
  return chainOutside ? outsideHosts(() => next()) : next();
}

type Hook = (first: unknown, context: unknown, next: unknown) => unknown;
const realRegisterHooks = (Module as unknown as { registerHooks?: (hooks: { resolve?: Hook; load?: Hook }) => unknown }).registerHooks;

/**
 * module.registerHooks while shims are installed: the hooks registered run outside every host,
 * and the `next` they call runs back in the context of the import (dst-runtime's hooks and
 * Node's resolution, which a simulated disk answers).
 */
function registerHooks(this: unknown, hooks: { resolve?: Hook; load?: Hook }): unknown {
  noSeedAfterThis('the program registered module hooks (module.registerHooks), which stay for the process\'s life');
  const outside = (hook: Hook | undefined): Hook | undefined =>
    typeof hook === 'function'
      ? (first, context, next) =>
          outsideHosts((inside) => hook(first, context, (a: unknown, b: unknown) => inside(() => (next as (a: unknown, b: unknown) => unknown)(a, b))))
      : hook;
  const own = hooks === null || typeof hooks !== 'object' ? hooks : { ...hooks, resolve: outside(hooks.resolve), load: outside(hooks.load) };
  return Reflect.apply(realRegisterHooks!, this, [own]);
}

/**
 * module.register while shims are installed: the hooks go to Node's loader thread and stay for
 * the process's life (an explorer worker's next seeds would load through them; on Node 22 and
 * 24 the next seed's loader spun for ever).
 */
function programRegister(this: unknown, ...args: unknown[]): unknown {
  noSeedAfterThis('the program registered module hooks (module.register), which stay for the process\'s life');
  return Reflect.apply(realRegister, this, args);
}
/** Taken before the shim replaces it: `register` above reads the module's property when called. */
const realRegister = Module.register;

function loadHook(url: string, context: unknown, nextLoad: (u: string, c: unknown) => Loaded): Loaded {
  if (hostQuery(url) === undefined) return rest(() => nextLoad(url, context));
  return loadedInHostGraph(url, strippedTypeScript(url, rest(() => nextLoad(url, context))), parseCjs);
}

type StripTypes = (source: string, options: { mode: 'strip' }) => string;
const stripTypes = (Module as unknown as { stripTypeScriptTypes?: StripTypes }).stripTypeScriptTypes;

/**
 * A host graph's TypeScript ES module (.ts, .mts), stripped of its types here rather than by
 * Node's translator, which appends `//# sourceURL=<the module's URL>` to what it strips: that
 * comment, after the one naming the file alone (module-graph.ts withOwnSourceUrl), named the
 * stack frames of an explorer worker's TypeScript modules with the host query, a different text
 * at every seed. Only where Node strips and would strip this file the same way (types stripped,
 * not transformed; not under node_modules, which Node refuses with its own error); anything the
 * stripper refuses goes to Node, which reports it. The stripper's own experimental warning is
 * not the program's (Node's stripping of the file prints none): it is kept off stderr.
 */
function strippedTypeScript(url: string, result: Loaded): Loaded {
  if (result.format !== 'module-typescript' || result.source == null || stripTypes === undefined) return result;
  if ((process.features as { typescript?: unknown }).typescript !== 'strip' || url.includes('/node_modules/')) return result;
  const text = sourceText(result.source);
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  try {
    return { ...result, format: 'module', source: stripTypes(text, { mode: 'strip' }) };
  } catch {
    return result;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** Which loader hooks this Node gets: in-thread (registerHooks) where available, else a loader thread. */
export const LOADER_HOOKS: 'registerHooks' | 'register' =
  typeof (Module as unknown as { registerHooks?: unknown }).registerHooks === 'function' ? 'registerHooks' : 'register';

/** The build's directory (dist/; this code may sit in dist/chunks): dst-runtime's own files. */
const BUILD_DIR = path.basename(__dirname) === 'chunks' ? path.dirname(__dirname) : __dirname;
setSharedDirectory(pathToFileURL(BUILD_DIR).href);

/**
 * Registers the loader hooks, once per process. On Node 20 that starts Node's loader thread,
 * whose stdout and stderr are piped into the process's: program-seeds.ts does it before it
 * records the process's state, so those pipes are part of the record.
 */
export function ensureHooks(heldImports = false): void {
  if (hooksRegistered) return;
  hooksRegistered = true;
  if (LOADER_HOOKS === 'registerHooks') {
    realRegisterHooks!.call(Module, { resolve: resolveHook as Hook, load: loadHook as Hook });
    return;
  }
  // Node 20 and 22 before 22.15: hooks on Node's loader thread. dist/loader-hooks.mjs sits
  // beside the build's entry points (this code may be in dist/chunks). `heldImports`: every ES
  // module's import() is held, not only a host graph's (register mode under DST_HELD_IMPORTS=1, register-mode.ts holdsDynamicImports; explore's workers).
  realRegister(pathToFileURL(path.join(BUILD_DIR, 'loader-hooks.mjs')).href, { data: { heldImports } });
}

/** Validates a module host's spec when it is added. */
export function validateModuleSpec(name: string, spec: ModuleHostSpec): void {
  if (typeof spec.main !== 'string' || spec.main === '') {
    throw new UsageError(`Failed to add host "${name}": main must be a module path, got ${String(spec.main)}`);
  }
  if (spec.argv !== undefined && (!Array.isArray(spec.argv) || spec.argv.some((a) => typeof a !== 'string'))) {
    throw new UsageError(`Failed to add host "${name}": argv must be an array of strings`);
  }
  if (spec.env !== undefined && (spec.env === null || typeof spec.env !== 'object' || Object.values(spec.env).some((v) => typeof v !== 'string'))) {
    throw new UsageError(`Failed to add host "${name}": env must be an object of strings`);
  }
}

/**
 * The environment a module host starts from: the test's process.env. Under Jest that is the
 * test file's copy of process, where the test set what it set, not Node's.
 */
function testProcessEnv(): NodeJS.ProcessEnv {
  const own = testRealmGlobal()?.process as NodeJS.Process | undefined;
  return own !== undefined && typeof own === 'object' && own.env !== undefined ? own.env : process.env;
}

/**
 * The file a module host's `main` names: a path (relative to the working directory), a file:
 * URL, or a package specifier resolved from the working directory as the project would import
 * it (`dst-runtime/services/postgres`).
 */
function resolveMain(main: string): string {
  if (main.startsWith('file:')) return fileURLToPath(main);
  const asPath = path.resolve(main);
  if (path.isAbsolute(main) || main.startsWith('.') || fs.existsSync(asPath)) return asPath;
  try {
    return createRequire(path.join(process.cwd(), 'noop.js')).resolve(main);
  } catch {
    return asPath; // not a package either: the import reports the missing file
  }
}

/**
 * The main function of a module host: loads (and so runs) its main module in a fresh graph. The
 * main module is the host's entry, as `node <main>` makes it: a CommonJS main is its
 * require.main and process.mainModule, an ES module main sees import.meta.main true (where Node
 * has it), and import.meta.url is pathToFileURL(process.argv[1]).href.
 * `options.env`: the process.env object the host's code gets as it is (program-seeds.ts gives
 * Node's own), instead of a copy of the test's with spec.env over it.
 */
export function moduleHostMain(spec: ModuleHostSpec, options: { env?: NodeJS.ProcessEnv } = {}): () => Promise<unknown> {
  const filename = resolveMain(spec.main);
  return () => {
    const host = currentHost();
    if (host === undefined) throw new Error('dst-runtime: a module host started outside its host context');
    ensureHooks();
    const modules: HostModules = {
      spec,
      argv: [process.execPath, filename, ...(spec.argv ?? [])],
      env: options.env ?? { ...testProcessEnv(), ...(spec.env ?? {}) },
      cache: Object.create(null) as Record<string, CjsModule>,
      mainModule: undefined,
      release: undefined,
    };
    hostModules.set(host, modules);
    // The run number keeps two runs in one process (same host names, same boots) from sharing
    // the ESM loader's cache, which is keyed by URL and never emptied.
    const url = `${pathToFileURL(filename).href}${hostQueryOf(host)}${ENTRY_MARK}`;
    const loading = import(url);
    const release = host.world.waitForRealWork(loading);
    modules.release = release;
    const settled = (): void => {
      if (modules.release === release) modules.release = undefined;
    };
    loading.then(settled, settled);
    return loading;
  };
}

function modulesOf(host: Host | undefined): HostModules | undefined {
  return host === undefined ? undefined : hostModules.get(host);
}

/**
 * Whether `host`'s module graph is still loading: its main was imported and none of its modules
 * has started to evaluate yet (the simulation waits for it, and its own reads are part of that
 * wait: held, a read's completion could only run after that hold ends). Only that host's: another
 * host's loading says nothing about this one's calls.
 */
export function loadingModuleGraph(host: Host): boolean {
  return hostModules.get(host)?.release !== undefined;
}

/**
 * require(filename) through the current host incarnation's own CommonJS cache. `entry`: the file
 * is the host's main module, which becomes its require.main and process.mainModule, as under
 * `node app.cjs`.
 */
function requireForHost(filename: string, parent?: CjsModule, entry = false): unknown {
  const modules = modulesOf(currentHost());
  if (modules === undefined) return ModuleClass._load(filename, parent, false);
  const cached = modules.cache[filename];
  // A module still loading here is a cycle: its exports so far, as Node gives. One that Node's
  // ESM translator put in the cache for this require to fill (Node 20's commonjs translator)
  // is loaded in place, as Node's _load does.
  if (cached !== undefined && (cached.loaded === true || isHostModule(cached))) return cached.exports;
  const module = cached ?? new ModuleClass(filename, parent);
  module.filename = filename;
  module.paths ??= ModuleClass._nodeModulePaths(path.dirname(filename));
  markHostModule(module);
  modules.cache[filename] = module;
  if (entry) {
    module.id = '.';
    modules.mainModule = module;
  }
  let threw = true;
  try {
    module.load(filename);
    threw = false;
  } finally {
    if (threw && modules.cache[filename] === module) delete modules.cache[filename];
  }
  return module.exports;
}

/**
 * Loads that are the process's while a host runs (dst-runtime's own files and what they
 * require): Module._cache is Node's own for them.
 */
let processLoads = 0;
/** Node's own Module._cache (what it is outside every host). */
let processCache: Record<string, CjsModule> = ModuleClass._cache;

/**
 * Module._cache, and so each module's require.cache (Node sets it from Module._cache as it makes
 * the module's require): inside a module host, the incarnation's own cache, as a process of its
 * own has its own. So a program that deletes require.cache[file] and requires it again gets a
 * fresh module, as under Node (before, the delete found nothing and the require gave the old
 * one), and one that walks require.cache sees its own modules, not another host's or another
 * seed's.
 */
function moduleCache(): Record<string, CjsModule> {
  if (processLoads > 0) return processCache;
  return modulesOfLoad()?.cache ?? processCacheView();
}

/** The current host incarnation's modules, unless the load in progress is the process's (processLoad). */
function modulesOfLoad(): HostModules | undefined {
  return processLoads === 0 ? modulesOf(currentHost()) : undefined;
}

/** DST_DEBUG=1: the program sees dst-runtime's own modules in require.cache too, as its own frames in stacks. */
let showOwnModules = false;
let processView: { target: Record<string, CjsModule>; view: Record<string, CjsModule> } | undefined;

/**
 * Which keys of Node's cache `cache` a program sees: not dst-runtime's own files, nor the modules
 * they required (seedrandom, ...), unless a module of the program's required one too.
 */
function shownKey(cache: Record<string, CjsModule>): (key: string | symbol) => boolean {
  const hidden = new Set<CjsModule>();
  const hide = (module: CjsModule): void => {
    if (module === undefined || module === null || hidden.has(module)) return;
    hidden.add(module);
    for (const child of module.children ?? []) hide(child);
  };
  const keys = Object.keys(cache);
  for (const key of keys) if (ownFile(key)) hide(cache[key]);
  const required = new Set<CjsModule>();
  for (const key of keys) {
    const module = cache[key];
    if (!hidden.has(module)) for (const child of module?.children ?? []) required.add(child);
  }
  return (key) => typeof key !== 'string' || !hidden.has(cache[key]) || required.has(cache[key]);
}

/**
 * Node's own cache as a program outside every host sees it (register mode): without
 * dst-runtime's own files (and what only they required) among its keys, which plain Node does not have, so a program that
 * lists require.cache sees what it sees under `node app.js`, and one that deletes every entry
 * leaves the runtime's modules in place (a later lazy load of a chunk would otherwise make a
 * second copy of the runtime). Reads and writes by key are Node's own.
 */
function processCacheView(): Record<string, CjsModule> {
  if (showOwnModules) return processCache;
  if (processView?.target !== processCache) {
    const target = processCache;
    processView = { target, view: new Proxy(target, { ownKeys: (t) => Reflect.ownKeys(t).filter(shownKey(t)) }) };
  }
  return processView.view;
}

function setModuleCache(value: unknown): void {
  const modules = modulesOfLoad();
  if (modules !== undefined) modules.cache = value as Record<string, CjsModule>;
  else processCache = value as Record<string, CjsModule>;
}

/** Node's own _load, for a load that is the process's. */
function processLoad(self: unknown, args: IArguments): unknown {
  processLoads++;
  try {
    return Reflect.apply(realLoad, self, args);
  } finally {
    processLoads--;
  }
}

const realLoad = ModuleClass._load;

/**
 * Whether `filename` is one of dst-runtime's own files: what they require (cjs-module-lexer,
 * es-module-lexer, loaded at first use, maybe while a host runs) is the process's, not a host's.
 */
function ownFile(filename: unknown): boolean {
  return typeof filename === 'string' && filename.startsWith(BUILD_DIR + path.sep);
}

function load(this: unknown, request: string, parent: CjsModule, isMain: boolean): unknown {
  const modules = modulesOfLoad();
  if (modules === undefined || typeof request !== 'string' || request.startsWith('node:') || Module.isBuiltin(request)) {
    return Reflect.apply(realLoad, this, arguments);
  }
  if (ownFile(parent?.filename)) return processLoad(this, arguments);
  const filename = resolveCommonJs(request, parent, isMain, onSimulatedDisk());
  // Builtins, and dst-runtime's own files (see module-graph.ts), are the process's.
  if (Module.isBuiltin(filename)) return Reflect.apply(realLoad, this, arguments);
  if (ownFile(filename)) return processLoad(this, arguments);
  return requireForHost(filename, parent);
}

/** A dynamic import in flight on the loader thread (see heldImport). */
interface HeldImport {
  call: RealCall;
  /** A module of the imported graph has started to evaluate. */
  evaluating: boolean;
  /** The import has settled (its settlement is in the line of real calls, or delivered in place). */
  settled: boolean;
  /** Its graph's top-level code waits (for simulated events): the import settles where Node settles it. */
  inPlace: boolean;
}

/**
 * The import each module evaluation belongs to: heldImport starts the import in a store of its
 * own, which Node's loader carries (through its promise jobs) to the evaluation of the graph it
 * loads. Run with AsyncLocalStorage's own run(), taken before the async-context shim wraps it,
 * so the program is not taken to keep stores of its own.
 */
const importStore = new AsyncLocalStorage<HeldImport>();
const storeRun = AsyncLocalStorage.prototype.run as (this: AsyncLocalStorage<HeldImport>, store: HeldImport, fn: () => Promise<unknown>) => Promise<unknown>;

function evaluating(): void {
  const modules = modulesOf(currentHost());
  if (modules?.release !== undefined) {
    modules.release();
    modules.release = undefined;
  }
  const held = importStore.getStore();
  if (held !== undefined && !held.evaluating) {
    held.evaluating = true;
    // A graph without top-level waits has run, and its import settled, by the end of this task.
    // One still unsettled then awaits something its own hold would keep from happening (a timer,
    // a held read queued behind it): it stops holding, and settles where Node settles it.
    queueOwnImmediate(() => {
      if (held.settled) return;
      held.inPlace = true;
      completeInPlace(held.call);
    });
  }
}

/**
 * A dynamic import() made by a module host's code where the ESM loader runs on its own thread
 * (module.register: Node 20, and 22 before 22.15): the loader hooks make each import() of a
 * host's ES modules through this (module-graph.ts). Resolving and loading are round trips to
 * that thread, so the import is real work the simulation waits for: no event runs until it
 * settles, and then it settles in an 'io' event, in call order with the host's other real work.
 * When the imported graph's top-level code is still waiting at the end of the task in which it
 * started to evaluate (a top-level await of a timer, of a held read), the wait ends there, and
 * the import settles where Node settles it, after that code has run.
 *
 * Without it, PGlite's `await import('fs/promises')` before reading its files took 0, 512 or
 * 1187 virtual ms on three runs of one seed, or outlived the run (issue 18).
 */
function heldImport(load: () => Promise<unknown>): Promise<unknown> {
  const host = currentHost();
  if (host === undefined) return load();
  const held: HeldImport = { call: beginRealCall(host, captureContext('DynamicImport')), evaluating: false, settled: false, inPlace: false };
  let loading: Promise<unknown>;
  try {
    loading = storeRun.call(importStore, held, load);
  } catch (error) {
    abandonRealCall(held.call); // its argument threw
    throw error;
  }
  return new Promise((resolve, reject) => {
    const settle = (settleIt: () => void): void => {
      held.settled = true;
      if (held.inPlace) settleIt();
      else completeRealCall(held.call, settleIt);
    };
    loading.then(
      (namespace) => settle(() => resolve(namespace)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

/** Whether Node's ESM loader runs hooks on a thread of its own: an import() is then real work to hold. */
const LOADER_THREAD = LOADER_HOOKS === 'register';

/**
 * An import() made by a CommonJS file (code-cache.ts rewrites each into this; module-graph.ts
 * commonJsWithHostImports): `filename` is the file's, `load` the file's own import(). In a module
 * host's file, a string specifier carries the file's URL with the host's query to the resolve
 * hooks (hostImportSpecifier), so what it imports joins the host's graph, as an import from one
 * of its ES modules does; elsewhere it passes unchanged. Held where a loader thread makes it real
 * work (heldImport).
 */
function cjsImport(filename: unknown, load: (specifier: unknown, options: unknown) => Promise<unknown>, specifier: unknown, options?: unknown): Promise<unknown> {
  const host = currentHost();
  const inHost = host !== undefined && modulesOf(host) !== undefined && typeof filename === 'string' && path.isAbsolute(filename) && typeof specifier === 'string';
  const wanted = inHost ? hostImportSpecifier(specifier, `${pathToFileURL(filename).href}${hostQueryOf(host)}`) : specifier;
  return LOADER_THREAD ? heldImport(() => load(wanted, options)) : load(wanted, options);
}

export const moduleHostsShim: Shim = {
  name: 'module-hosts',
  install(patches: PatchSet) {
    patches.replace(ModuleClass, '_load', load);
    if (realRegisterHooks !== undefined) patches.replace(Module as unknown as Record<string, unknown>, 'registerHooks', registerHooks);
    patches.replace(Module as unknown as Record<string, unknown>, 'register', programRegister);
    processCache = ModuleClass._cache;
    showOwnModules = process.env.DST_DEBUG === '1';
    // Restored after the accessor (restorers run newest first): a cache set meanwhile stays.
    patches.onRestore(() => {
      ModuleClass._cache = processCache;
    });
    patches.defineGetter(ModuleClass, '_cache', moduleCache, Object.getOwnPropertyDescriptor(ModuleClass, '_cache')?.enumerable ?? true, setModuleCache);
    installCodeCache(patches, () => {
      const host = currentHost();
      return host !== undefined && modulesOf(host) !== undefined ? hostQueryOf(host) : undefined;
    });
    readResolutionCacheSetting(process.env);
    // Read by the modules of host graphs, which Node's own loader evaluates in Node's realm.
    const g = globalThis as unknown as Record<symbol, unknown>;
    patches.replace(g, Symbol.for('dst-runtime.requireForHost'), (filename: string, entry?: boolean) => requireForHost(filename, undefined, entry === true));
    patches.replace(g, Symbol.for('dst-runtime.evaluating'), evaluating);
    patches.replace(g, Symbol.for('dst-runtime.heldImport'), heldImport);
    patches.replace(g, Symbol.for('dst-runtime.cjsImport'), cjsImport);
  },
  realm(patches: PatchSet, realm: Realm) {
    // process.argv / process.env of a module host are its own.
    const proc = realm.process;
    if (proc === undefined) return;
    const realArgv = Object.getOwnPropertyDescriptor(proc, 'argv')!;
    const realEnv = Object.getOwnPropertyDescriptor(proc, 'env')!;
    const read = (d: PropertyDescriptor) => (d.get !== undefined ? d.get.call(proc) : d.value);
    const realMainModule = Object.getOwnPropertyDescriptor(proc, 'mainModule');
    let argvValue = read(realArgv);
    let envValue = read(realEnv);
    patches.defineGetter(proc, 'argv', () => modulesOf(currentHost())?.argv ?? argvValue, realArgv.enumerable ?? true, (v) => {
      const modules = modulesOf(currentHost());
      if (modules !== undefined) modules.argv = v as string[];
      else argvValue = v;
    });
    // A CommonJS host main is its host's process.mainModule (Node's require.main reads it as each
    // module's require is made); outside every host, the process's own.
    // (Node defines it only once a CommonJS main ran: what was set meanwhile stays.)
    let mainValue = realMainModule === undefined ? undefined : read(realMainModule);
    if (realMainModule === undefined) {
      patches.onRestore(() => {
        if (mainValue !== undefined) (proc as { mainModule?: unknown }).mainModule = mainValue;
      });
    }
    patches.defineGetter(proc, 'mainModule', () => {
      const modules = modulesOf(currentHost());
      return modules !== undefined ? modules.mainModule : mainValue;
    }, realMainModule?.enumerable ?? true, (v) => {
      const modules = modulesOf(currentHost());
      if (modules !== undefined) modules.mainModule = v;
      else mainValue = v;
    });
    patches.defineGetter(proc, 'env', () => modulesOf(currentHost())?.env ?? envValue, realEnv.enumerable ?? true, (v) => {
      const modules = modulesOf(currentHost());
      if (modules !== undefined) modules.env = v as NodeJS.ProcessEnv;
      else envValue = v;
    });
  },
};

setModuleHosts({ validate: validateModuleSpec, main: moduleHostMain });
