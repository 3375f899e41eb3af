/**
 * Compiled code for the runtime's own bundle, kept across processes: parsing and compiling the
 * runtime is most of what register mode adds to a process's start (docs/benchmarks.md, figure
 * 12), and a V8 code cache skips most of it.
 *
 * Node 22.1+ has its own on-disk compile cache (module.enableCompileCache), which register mode
 * turns on before it loads the runtime:
 * - Where: Node's own choice. NODE_COMPILE_CACHE if set (Node has then turned the cache on
 *   itself, and this call changes nothing), else `<os.tmpdir()>/node-compile-cache`, the
 *   directory Node and npm use. Entries are keyed by the file's content, the Node version and V8's
 *   flags, and Node checks them before use: a stale or foreign entry is recompiled, never run.
 * - The cache stays on for the modules the program loads after (Node has no way to turn it off
 *   again): they compile faster on a second run too, which is what `dst explore
 *   --process-per-seed` does.
 *
 * Node 20 (and 22.0) has none, so register mode keeps a cache of its own for the runtime's chunks
 * only (`OwnCodeCache`), never for the program's modules:
 * - Where: `dst-runtime/` inside the same directory (NODE_COMPILE_CACHE, else
 *   `<os.tmpdir()>/node-compile-cache`), one file per chunk, named by a hash of the chunk's path,
 *   its whole text and Node's version and architecture. V8 checks its own version, flags and the
 *   source's length again before it uses the data, and says when it rejected it; a rejected or
 *   unreadable entry is compiled from the source and written anew (to a temporary name, then
 *   renamed, so a process never reads half an entry another one is writing).
 * - When it is written: once register mode has started, before the program's first line, so
 *   that the code cached includes what starting compiled (4-6 ms more of it than the chunks' top
 *   levels alone); on the real disk (runtime/disk/real.ts) whatever disk the program is given.
 * - Not with source maps on (--enable-source-maps): Node maps a stack through a module's source
 *   map only if its own loader compiled it, so the runtime's frames would lose their mapping.
 *
 * What it changes: only how fast code compiles. What a program runs, its stack traces and its
 * source text are the same, and so is every run's fingerprint (test/determinism,
 * test/hosts/register-code-cache.test.mjs). NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch) turns both
 * off.
 */
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { nodeCrypto } from './node-crypto.js';

/** Turns Node's compile cache on; false when this Node has none (Node 20 and 22.0). */
export function enableCompileCache(): boolean {
  const enable = (Module as unknown as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (typeof enable !== 'function') return false;
  try {
    enable();
  } catch {
    // The cache is a speed-up: a directory that cannot be made must not stop the program.
  }
  return true;
}

/** The directory of this runtime's own code cache, or undefined when caching is off. */
export function ownCodeCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined;
  if (sourceMapsOn(env)) return undefined;
  const base = env.NODE_COMPILE_CACHE !== undefined && env.NODE_COMPILE_CACHE !== '' ? path.resolve(env.NODE_COMPILE_CACHE) : path.join(os.tmpdir(), 'node-compile-cache');
  return path.join(base, 'dst-runtime');
}

function sourceMapsOn(env: NodeJS.ProcessEnv): boolean {
  const enabled = (process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled; // Node 20.7+
  if (enabled !== undefined) return enabled;
  return process.execArgv.includes('--enable-source-maps') || / --enable-source-maps(?= |$)/.test(` ${env.NODE_OPTIONS ?? ''}`);
}

type Extensions = Record<string, (module: NodeJS.Module, filename: string) => void>;

/** CommonJS's wrapper, on a line of its own so that the file's lines keep their numbers. */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {\n';

/**
 * The runtime's own code cache for the `.cjs` files right in `chunkDir` (Node 20): `during(load)`
 * compiles those `load` requires through it; `save()`, called once the runtime has started (so
 * that the code cached includes what starting it compiled), writes an entry for each that had
 * none V8 accepted.
 */
export class OwnCodeCache {
  private readonly inside: string;
  private readonly unsaved: { entry: string; script: vm.Script }[] = [];

  constructor(chunkDir: string, private readonly cacheDir: string) {
    this.inside = chunkDir.endsWith(path.sep) ? chunkDir : chunkDir + path.sep;
  }

  during<T>(load: () => T): T {
    const extensions = (Module as unknown as { _extensions: Extensions })._extensions;
    if (Object.hasOwn(extensions, '.cjs')) return load(); // someone else's loader: leave it alone
    const inside = this.inside;
    extensions['.cjs'] = (module, filename) => {
      if (!filename.startsWith(inside) || filename.includes(path.sep, inside.length)) extensions['.js'](module, filename);
      else this.compile(module, filename);
    };
    try {
      return load();
    } finally {
      delete extensions['.cjs'];
    }
  }

  save(): void {
    for (const { entry, script } of this.unsaved.splice(0)) {
      const temporary = `${entry}.${process.pid}.tmp`;
      try {
        fs.mkdirSync(this.cacheDir, { recursive: true });
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, entry);
      } catch {
        // A speed-up only: an unwritable directory costs the next process its compile, no more.
        try {
          fs.rmSync(temporary, { force: true });
        } catch {
          // nothing to take back
        }
      }
    }
  }

  private compile(module: NodeJS.Module, filename: string): void {
    const bytes = fs.readFileSync(filename);
    const key = nodeCrypto().createHash('sha1').update(`${process.version}\0${process.arch}\0${filename}\0`).update(bytes).digest('hex');
    const entry = path.join(this.cacheDir, `${path.basename(filename, '.cjs')}-${key}.bin`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = fs.readFileSync(entry);
    } catch {
      // not cached yet
    }
    const href = pathToFileURL(filename).href;
    const script = new vm.Script(`${WRAPPER_HEAD}${bytes.toString('utf8')}\n})`, {
      filename,
      lineOffset: -1,
      cachedData,
      // The runtime imports modules by absolute file URL (module hosts); a relative specifier is
      // the chunk's, as it would be for Node's loader.
      importModuleDynamically: ((specifier: string) => import(/^\.\.?\//.test(specifier) ? new URL(specifier, href).href : specifier)) as never,
    });
    if (cachedData === undefined || script.cachedDataRejected === true) this.unsaved.push({ entry, script });
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, makeRequire(module), module, filename, path.dirname(filename));
  }
}

/** `require` as Node's loader gives a module. */
function makeRequire(module: NodeJS.Module): NodeJS.Require {
  const ModuleClass = Module as unknown as {
    _resolveFilename: (request: string, parent: NodeJS.Module, isMain: boolean, options?: unknown) => string;
    _resolveLookupPaths: (request: string, parent: NodeJS.Module) => string[] | null;
    _cache: NodeJS.Require['cache'];
    _extensions: unknown;
  };
  const require = function require(id: string) {
    return module.require(id);
  } as NodeJS.Require;
  const resolve = (request: string, options?: { paths?: string[] }) => ModuleClass._resolveFilename(request, module, false, options);
  resolve.paths = (request: string) => ModuleClass._resolveLookupPaths(request, module);
  require.resolve = resolve as NodeJS.RequireResolve;
  require.main = process.mainModule;
  require.cache = ModuleClass._cache;
  (require as { extensions?: unknown }).extensions = ModuleClass._extensions;
  return require;
}
