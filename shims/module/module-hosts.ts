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
 * - Loading is real asynchronous work (file reads, the loader thread): the simulation waits for
 *   it (World.waitForRealWork) until the host's module graph starts to evaluate.
 */
import Module, { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseCjs } from 'cjs-module-lexer';
import { UsageError } from '../../runtime/errors.js';
import { type ModuleHostSpec, setModuleHosts } from '../../runtime/interposer.js';
import { currentHost, type Host } from '../context.js';
import { hostQuery, type Loaded, loadedInHostGraph, type Resolved, resolvedInHostGraph } from './module-graph.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type CjsModule = any;
const ModuleClass = Module as any;


interface HostModules {
  spec: ModuleHostSpec;
  argv: string[];
  env: NodeJS.ProcessEnv;
  cjs: Map<string, CjsModule>;
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

// ---- in-thread hooks (module.registerHooks: Node >= 22.15 and 24) ---------------------------
// The rules of shims/module/module-graph.ts, as dist/loader-hooks.mjs applies them on the loader
// thread, here synchronous and on the main thread. Preferred where they exist: with no loader
// thread, loading a module graph takes no turn of the event loop (measured: 0 immediates run
// during an import(), against hundreds with module.register on Node 22), so a dynamic import()
// made by host code in the middle of a run completes before the next event, at the same
// virtual instant, instead of after a real, machine-dependent delay. Pinned by
// test/hosts/module-hosts.test.mjs ("dynamic import()").

function resolveHook(specifier: string, context: { parentURL?: string }, nextResolve: (s: string, c: unknown) => Resolved): Resolved {
  return resolvedInHostGraph(nextResolve(specifier, context), context.parentURL);
}

function loadHook(url: string, context: unknown, nextLoad: (u: string, c: unknown) => Loaded): Loaded {
  if (hostQuery(url) === undefined) return nextLoad(url, context);
  return loadedInHostGraph(url, nextLoad(url, context), (source) => parseCjs(source).exports);
}

/** Which loader hooks this Node gets: in-thread (registerHooks) where available, else a loader thread. */
export const LOADER_HOOKS: 'registerHooks' | 'register' =
  typeof (Module as unknown as { registerHooks?: unknown }).registerHooks === 'function' ? 'registerHooks' : 'register';

function ensureHooks(): void {
  if (hooksRegistered) return;
  hooksRegistered = true;
  if (LOADER_HOOKS === 'registerHooks') {
    (Module as unknown as { registerHooks(hooks: object): unknown }).registerHooks({ resolve: resolveHook, load: loadHook });
    return;
  }
  // Node 20 and 22 before 22.15: hooks on Node's loader thread. dist/loader-hooks.mjs sits
  // beside the build's entry points (this code may be in dist/chunks).
  const dir = path.basename(__dirname) === 'chunks' ? path.dirname(__dirname) : __dirname;
  register(pathToFileURL(path.join(dir, 'loader-hooks.mjs')).href);
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

/** The main function of a module host: loads (and so runs) its main module in a fresh graph. */
export function moduleHostMain(spec: ModuleHostSpec): () => Promise<unknown> {
  const filename = path.resolve(spec.main);
  return () => {
    const host = currentHost();
    if (host === undefined) throw new Error('dst-runtime: a module host started outside its host context');
    ensureHooks();
    const modules: HostModules = {
      spec,
      argv: [process.execPath, filename, ...(spec.argv ?? [])],
      env: { ...process.env, ...(spec.env ?? {}) },
      cjs: new Map(),
      release: undefined,
    };
    hostModules.set(host, modules);
    // The run number keeps two runs in one process (same host names, same boots) from sharing
    // the ESM loader's cache, which is keyed by URL and never emptied.
    const url = `${pathToFileURL(filename).href}?dst-host=${encodeURIComponent(host.name)}&dst-boot=${host.incarnation}&dst-run=${runNumber(host)}`;
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

/**
 * Whether `host`'s module graph is loading: its main was imported and none of its modules has
 * started to evaluate yet. Real work started meanwhile in its context is the loader's own (its
 * reads of the program's files), which the simulation must not wait for: the host's load already
 * holds it, and a held read's completion could only run after that hold ends.
 */
export function loadingModules(host: Host): boolean {
  return hostModules.get(host)?.release !== undefined;
}

function modulesOf(host: Host | undefined): HostModules | undefined {
  return host === undefined ? undefined : hostModules.get(host);
}

/** require(filename) through the current host incarnation's own CommonJS cache. */
function requireForHost(filename: string, parent?: CjsModule): unknown {
  const modules = modulesOf(currentHost());
  if (modules === undefined) return ModuleClass._load(filename, parent, false);
  const cached = modules.cjs.get(filename);
  if (cached !== undefined) return cached.exports;
  const module = new ModuleClass(filename, parent);
  module.filename = filename;
  module.paths = ModuleClass._nodeModulePaths(path.dirname(filename));
  modules.cjs.set(filename, module);
  let threw = true;
  try {
    module.load(filename);
    threw = false;
  } finally {
    if (threw) modules.cjs.delete(filename);
  }
  return module.exports;
}

const realLoad = ModuleClass._load;

function load(this: unknown, request: string, parent: CjsModule, isMain: boolean): unknown {
  const modules = modulesOf(currentHost());
  if (modules === undefined || typeof request !== 'string' || request.startsWith('node:') || Module.isBuiltin(request)) {
    return Reflect.apply(realLoad, this, arguments);
  }
  const filename = ModuleClass._resolveFilename(request, parent, isMain);
  if (Module.isBuiltin(filename)) return Reflect.apply(realLoad, this, arguments);
  return requireForHost(filename, parent);
}

function evaluating(): void {
  const modules = modulesOf(currentHost());
  if (modules?.release !== undefined) {
    modules.release();
    modules.release = undefined;
  }
}

export const moduleHostsShim: Shim = {
  name: 'module-hosts',
  install(patches: PatchSet) {
    patches.replace(ModuleClass, '_load', load);
    const g = globalThis as unknown as Record<symbol, unknown>;
    patches.replace(g, Symbol.for('dst-runtime.requireForHost'), (filename: string) => requireForHost(filename));
    patches.replace(g, Symbol.for('dst-runtime.evaluating'), evaluating);
    // process.argv / process.env of a module host are its own.
    const realArgv = Object.getOwnPropertyDescriptor(process, 'argv')!;
    const realEnv = Object.getOwnPropertyDescriptor(process, 'env')!;
    const read = (d: PropertyDescriptor) => (d.get !== undefined ? d.get.call(process) : d.value);
    let argvValue = read(realArgv);
    let envValue = read(realEnv);
    patches.defineGetter(process, 'argv', () => modulesOf(currentHost())?.argv ?? argvValue, realArgv.enumerable ?? true, (v) => {
      const modules = modulesOf(currentHost());
      if (modules !== undefined) modules.argv = v as string[];
      else argvValue = v;
    });
    patches.defineGetter(process, 'env', () => modulesOf(currentHost())?.env ?? envValue, realEnv.enumerable ?? true, (v) => {
      const modules = modulesOf(currentHost());
      if (modules !== undefined) modules.env = v as NodeJS.ProcessEnv;
      else envValue = v;
    });
  },
};

setModuleHosts({ validate: validateModuleSpec, main: moduleHostMain });
