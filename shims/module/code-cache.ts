/**
 * Compiled code of module hosts' CommonJS files, kept for the next incarnation that loads them.
 *
 * Every host incarnation evaluates its own module instances (module-hosts.ts), so a restarted
 * host, or a host of the next run in the same process, used to compile each of its files again:
 * for mqtt.js, about 100 files, the compile was about 40% of a re-load on Node 20 (on Node 22
 * and 24 V8's own compilation cache already shares most of it: docs/benchmarks.md). Here the
 * function Node would compile for a file (its body the file, its parameters exports, require,
 * module, __filename and __dirname) is compiled once per process and called again by every
 * later incarnation whose file has the same text:
 *
 * - Module state stays per incarnation: a CommonJS module's state lives in the activation of
 *   that function, and each call makes a fresh one, with fresh closures, `exports`, `module` and
 *   `require` (Node's own: Module.prototype._compile still runs, see STUB_SOURCE). What the
 *   calls share is the compiled code (V8's SharedFunctionInfos, the bytecode of inner functions compiled lazily by
 *   an earlier incarnation) and what a second call of one function shares in JavaScript: the
 *   wrapper's identity (`arguments.callee` and `fn.caller` in sloppy code) and the template
 *   objects of tagged templates (per call site, frozen).
 * - The cache is checked, not trusted: an entry is used only when the file's text, as Node's
 *   loader read it this time, is the text it was compiled from; a changed file is compiled again
 *   (a rejection) and replaces its entry.
 * - What the cache cannot reproduce takes Node's own path: a file that does not compile as
 *   CommonJS (Node then reports the SyntaxError, or loads it as an ES module where it detects
 *   one), formats other than CommonJS (require(esm), TypeScript), a file that may call import()
 *   (see IMPORT_CALL), a patched Module.wrap or Module.wrapper, source maps enabled (Node caches
 *   a file's map when it compiles it), and files past the size limit.
 * - DST_CODE_CACHE=0 turns it off (the bench's baseline). Outcomes are published on the
 *   diagnostics channel 'dst-runtime:code-cache' as { filename, outcome }: 'hit', 'miss' (first
 *   compile), 'rejected' (the file changed), 'bypassed' (Node's own path, for a reason above).
 *
 * Only CommonJS: an ES module's compile belongs to Node's ESM loader, which takes no compiled
 * code from a load hook, and each incarnation's modules have URLs of their own.
 */
import diagnostics from 'node:diagnostics_channel';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { envSwitch } from '../../runtime/env-switch.js';
import { mirrorSignature, type PatchSet } from '../registry.js';
import { everySeedAlone } from '../seed-fitness.js';
import { commonJsWithHostImports, type DynamicImport, isCommonJsFormat, isEsModuleFormat, loadedOutsideHostGraphs, requiredInHostGraph } from './module-graph.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type CjsModule = any;
type Wrapper = (this: unknown, exports: unknown, require: unknown, module: unknown, filename: string, dirname: string) => unknown;

interface Entry {
  /** The text the wrapper was compiled from: a later load uses it only for the same text. */
  source: string;
  /** Undefined: the text takes Node's own path (not CommonJS, or it may call import()). */
  wrapper: Wrapper | undefined;
}

const ModuleClass = Module as any;
/** The parameters of Node's CommonJS wrapper, in its order. */
const PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname'];
/** Source text kept, in UTF-16 code units: past it, new files are not cached (about 256 MB). */
const SOURCE_CHARS_MAX = 128 * 1024 * 1024;
/**
 * Where a file may call import(): `import`, then only white space or a comment before `(`. A
 * function compiled with vm.compileFunction has no ESM loader for its import() unless given
 * vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER, and each such import() then prints an
 * ExperimentalWarning that Node's own compile does not (Node 20, 22, 24): such files take Node's
 * path. A false match (a method named import) only costs the cache.
 */
const IMPORT_CALL = /\bimport\s*(?:\(|\/\*|\/\/)/;
/**
 * The body Node's own _compile compiles and runs in place of a cached file's: it hands the
 * arguments Node made for the module (its require among them) to runCachedModule, which calls
 * the cached function with them. So everything _compile does around a module's evaluation stays
 * Node's: its require function, the stat cache of the outermost require (without it, resolving
 * mqtt.js's graph made Node 22 stat every candidate path again), the module's kIsExecuting
 * flag (require(esm) cycles), setHasStartedUserCJSExecution. The stub is tiny and always the
 * same text under the same name, which V8 on Node 22/24 (and Node's on-disk compile cache)
 * keep. A stack through it shows dst-runtime frames (runCachedModule and the stub above
 * Module._compile, the patched _compile below it) where Node shows none; they are frames of the
 * build's directory, which trace sites and the failure stacks leave out (DST_DEBUG=1 keeps them).
 */
const STUB_SOURCE = "return globalThis[Symbol.for('dst-runtime.runCachedModule')](this, arguments);";
/** The stub's file name: inside the build's directory, so trace sites and holds take its frame for dst-runtime's. */
const STUB_FILE = path.join(path.basename(__dirname) === 'chunks' ? path.dirname(__dirname) : __dirname, 'cached-module.js');

const realCompile = ModuleClass.prototype._compile as (this: CjsModule, content: string, filename: string, format?: string) => unknown;
const realWrap = ModuleClass.wrap;
const realWrapper = ModuleClass.wrapper;
const realWrapperText = Array.isArray(realWrapper) ? [...realWrapper] : [];

const apply = Reflect.apply;
const entries = new Map<string, Entry>();
/** The cached function and file of the module whose stub Node is about to run (set just before). */
let pending: { wrapper: Wrapper; filename: string } | undefined;
let sourceChars = 0;
/** Modules made by module-hosts.ts's requireForHost: only these take cached code. */
const hostModules = new WeakSet<object>();
const channel = diagnostics.channel('dst-runtime:code-cache');
let enabled = true;

export type CodeCacheOutcome = 'hit' | 'miss' | 'rejected' | 'bypassed';

function publish(filename: string, outcome: CodeCacheOutcome): void {
  if (channel.hasSubscribers) channel.publish({ filename, outcome });
}

/** DST_CODE_CACHE: '0' compiles module hosts' files afresh at every load; '1' or unset keeps compiled code. */
export function readCodeCacheSetting(env: NodeJS.ProcessEnv): void {
  enabled = envSwitch(env, 'DST_CODE_CACHE', true, "compiles every module host's CommonJS files again at each load");
}

/** Marks a module made for a host incarnation: its compile may take cached code. */
export function markHostModule(module: CjsModule): void {
  hostModules.add(module);
}

/** Whether markHostModule marked `module`. */
export function isHostModule(module: unknown): boolean {
  return typeof module === 'object' && module !== null && hostModules.has(module);
}

/** Whether the wrapper Node compiles is its own, unpatched one (APM tools patch Module.wrap). */
function wrapperUnpatched(): boolean {
  const wrapper = ModuleClass.wrapper;
  return ModuleClass.wrap === realWrap && wrapper === realWrapper && wrapper[0] === realWrapperText[0] && wrapper[1] === realWrapperText[1];
}

/**
 * The wrapper compiled from `source` for `filename`, or undefined where Node's own path must
 * compile it. What must take Node's path is remembered too (an entry without a wrapper), so a
 * file Node loads as an ES module is not compiled twice at every load.
 */
function wrapperFor(filename: string, source: string): Wrapper | undefined {
  const entry = entries.get(filename);
  if (entry !== undefined && entry.source === source) {
    publish(filename, entry.wrapper === undefined ? 'bypassed' : 'hit');
    return entry.wrapper;
  }
  if (sourceChars - (entry?.source.length ?? 0) + source.length > SOURCE_CHARS_MAX) {
    publish(filename, 'bypassed');
    return undefined;
  }
  let wrapper: Wrapper | undefined;
  if (!IMPORT_CALL.test(source)) {
    try {
      wrapper = vm.compileFunction(source, PARAMETERS, { filename }) as Wrapper;
    } catch {
      // Not CommonJS: Node's path throws its own SyntaxError, or loads an ES module it detects.
    }
  }
  if (entry !== undefined) sourceChars -= entry.source.length;
  entries.set(filename, { source, wrapper });
  sourceChars += source.length;
  publish(filename, wrapper === undefined ? 'bypassed' : entry === undefined ? 'miss' : 'rejected');
  return wrapper;
}

/**
 * Module.prototype._compile while shims are installed: a module host's CommonJS file runs the
 * wrapper compiled for its text at an earlier load, inside Node's own _compile (STUB_SOURCE);
 * everything else is Node's.
 */
function compile(this: CjsModule, content: string, filename: string, format?: string): unknown {
  // eslint-disable-next-line prefer-rest-params
  const args = Array.prototype.slice.call(arguments) as unknown[];
  // A host's file, or any file where register mode holds every import() on a loader thread.
  const rewritten = typeof content === 'string' && (hostModules.has(this) || (heldEverywhere && LOADER_THREAD));
  if (rewritten && (isEsModuleFormat(format) || (format === undefined && detectedEsm(filename, content)))) {
    const required = requiredEsm(this, content, filename);
    return Reflect.apply(realCompile, this, required === undefined ? args : [required.source, required.filename, 'module']);
  }
  if (rewritten && (format === undefined || isCommonJsFormat(format)) && IMPORT_CALL.test(content)) {
    args[0] = commonJsWithHostImports(content, dynamicImports);
  }
  if (!enabled || !hostModules.has(this) || typeof content !== 'string' || (format !== undefined && format !== 'commonjs')) {
    return Reflect.apply(realCompile, this, args);
  }
  if (!wrapperUnpatched() || (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled === true) {
    publish(filename, 'bypassed');
    return Reflect.apply(realCompile, this, args);
  }
  const wrapper = wrapperFor(filename, content);
  if (wrapper === undefined) return Reflect.apply(realCompile, this, args);
  pending = { wrapper, filename };
  try {
    return apply(realCompile, this, format === undefined ? [STUB_SOURCE, STUB_FILE] : [STUB_SOURCE, STUB_FILE, format]);
  } finally {
    pending = undefined;
  }
}

/**
 * Where a file whose format Node leaves to detection (a .js file without a package type) may be
 * an ES module: a line that starts with import or export, or import.meta. (A required module
 * whose only module syntax is a top-level await cannot be required: Node throws
 * ERR_REQUIRE_ASYNC_MODULE either way.)
 */
const MODULE_SYNTAX = /^[ \t]*(?:import|export)\b|\bimport\.meta\b/m;

/**
 * Whether Node's _compile will load `content` (format left to detection) as an ES module: it does
 * when the text does not compile as CommonJS and does as a module (es-module-lexer parses it).
 */
function detectedEsm(filename: string, content: string): boolean {
  const entry = entries.get(filename);
  if ((entry !== undefined && entry.source === content && entry.wrapper !== undefined) || !MODULE_SYNTAX.test(content)) return false;
  try {
    vm.compileFunction(content, PARAMETERS, { filename });
    return false;
  } catch {
    // Not CommonJS: an ES module if it lexes as one.
  }
  try {
    esmLexer()(content);
    return true;
  } catch {
    return false;
  }
}

/**
 * What Node compiles for an ES module that CommonJS code require()s (Node 20.19+, 22, 24), or
 * undefined for Node's own path: in a module host, a facade under a file name of the
 * incarnation's own that re-exports the module from the host's graph (module-graph.ts
 * requiredInHostGraph); in register mode with held imports on a loader thread, the module with its
 * dynamic imports held, as the load hook holds an imported one's (loadedOutsideHostGraphs).
 */
function requiredEsm(module: CjsModule, content: string, filename: string): { filename: string; source: string } | undefined {
  const fileUrl = pathToFileURL(filename).href;
  if (LOADER_THREAD) {
    // Node loads a require()d graph once per process, by the files' own URLs, past the loader
    // hooks: its state would outlive the seed, and an import() of the same file from the host's
    // graph would get another instance than require() did, where Node gives one.
    if (hostModules.has(module)) everySeedAlone(`it require()s an ES module (${filename}), which Node ${process.versions.node} loads once per process, past the loader hooks`);
    const loaded = loadedOutsideHostGraphs(fileUrl, { format: 'module', source: content }, dynamicImports);
    return typeof loaded.source === 'string' ? { filename, source: loaded.source } : undefined;
  }
  if (!hostModules.has(module)) return undefined;
  const query = currentHostQuery?.();
  if (query === undefined) return undefined;
  let names: string[];
  try {
    names = esmLexer()(content)[1].map((e) => e.n).filter((n): n is string => n !== undefined);
  } catch {
    return undefined; // Node reports the SyntaxError
  }
  return requiredInHostGraph(filename, fileUrl, query, names);
}

/** Called by the stub: the cached function, with Node's arguments for the module and its own file and directory. */
function runCachedModule(thisArg: unknown, args: IArguments): unknown {
  const call = pending;
  pending = undefined;
  if (call === undefined) throw new Error('dst-runtime: a cached module stub ran with no module to run (a bug in shims/module/code-cache.ts)');
  return apply(call.wrapper, thisArg, [args[0], args[1], args[2], call.filename, path.dirname(call.filename)]);
}

mirrorSignature(compile, realCompile);

/**
 * A CommonJS file's source reaches no load hook, so its import() expressions are rewritten here,
 * before Node compiles it (module-graph.ts commonJsWithHostImports, module-hosts.ts cjsImport): in
 * a module host's files, so that what they import joins the host's graph; and where Node's ESM
 * loader runs hooks on a thread of its own (Node 20, 22 before 22.15), so that the import, a round
 * trip to that thread, is held, in register mode's files too with DST_HELD_IMPORTS=1
 * (holdEveryImport). Found by es-module-lexer, which lexes a script too. (Such a file then takes
 * Node's own compile, as any file that may call import() does.)
 */
const LOADER_THREAD = typeof (Module as unknown as { registerHooks?: unknown }).registerHooks !== 'function';
let heldEverywhere = false;
type Lexer = (source: string) => readonly [readonly (DynamicImport & { d: number })[], readonly { n?: string }[], ...unknown[]];
let lexer: Lexer | undefined;
/** The current module host incarnation's query (module-hosts.ts), undefined outside every host. */
let currentHostQuery: (() => string | undefined) | undefined;

/** es-module-lexer's parse (its pure JavaScript build, loaded at first use). */
function esmLexer(): Lexer {
  return (lexer ??= (createRequire(__filename)('es-module-lexer/js') as { parse: Lexer }).parse);
}

/** The dynamic import() expressions of a source. */
function dynamicImports(source: string): (DynamicImport & { d: number })[] {
  return esmLexer()(source)[0].filter((i) => i.d > -1);
}

/** Register mode with DST_HELD_IMPORTS=1: every CommonJS file's import() is held, not only a module host's. */
export function holdEveryImport(): void {
  heldEverywhere = true;
}

/** Patches Module.prototype._compile (module-hosts.ts installs it with the other module patches). */
export function installCodeCache(patches: PatchSet, hostQuery: () => string | undefined): void {
  currentHostQuery = hostQuery;
  readCodeCacheSetting(process.env);
  patches.replace(ModuleClass.prototype, '_compile', compile);
  patches.replace(globalThis, Symbol.for('dst-runtime.runCachedModule'), runCachedModule);
}
