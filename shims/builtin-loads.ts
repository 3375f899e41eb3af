/**
 * A builtin module's first load, seen from inside Node's loader, whatever loaded it: the shims of
 * builtins a program may never use (tls, https, http2) are installed then instead of at start-up
 * (shims/install.ts, `Shim.builtins`; figure 12 in docs/benchmarks.md).
 *
 * Every load of a builtin ends in BuiltinModule#compileForInternalLoader, which, once the
 * module's top level has run, appends `NativeModule <id>` to Node's list of loaded modules
 * (`process.moduleLoadList`, the same array) with primordials' ArrayPrototypePush. That is one
 * place every way in passes: require('x') and require('node:x') (Module._load), createRequire,
 * ES module imports of any form and dynamic import() (the builtin translator), the module hosts'
 * loaders, process.getBuiltinModule, and Node's own internal loads (https loading tls, http2
 * loading tls, undici loading tls and http). And it comes early enough: a public load
 * (compileForPublicLoader) makes the module's ES module facade and syncs its exports only after
 * compileForInternalLoader has returned, so `import { connect } from 'node:http2'` binds what the
 * shim put there (docs/notes/node-facts.md; test/net/lazy-builtin-shims.test.mjs).
 *
 * The push is watched by giving the list a prototype of its own: a Proxy whose `set` trap sees
 * every index the push writes (an array's push does [[Set]] of a new index, which an ordinary
 * array asks its prototype chain for), defines it on the list as push would, then reports the
 * id. The list stays an Array (Array.isArray, instanceof, its methods through the chain); the
 * prototype is put back when the patches are restored. Measured: no slower array code elsewhere
 * (V8's fast paths are per map; only this one array leaves them).
 */
import { originals } from '../runtime/originals.js';
import type { PatchSet } from './registry.js';

const ENTRY_PREFIX = 'NativeModule ';

function moduleLoadList(): string[] | undefined {
  const list = (originals.process as unknown as { moduleLoadList?: unknown }).moduleLoadList;
  return Array.isArray(list) ? (list as string[]) : undefined;
}

/** Whether Node has loaded builtin `id` (no `node:` prefix) in this thread. */
export function builtinLoaded(id: string): boolean {
  return moduleLoadList()?.includes(ENTRY_PREFIX + id) ?? false;
}

/** Whether watchBuiltinLoads can watch this thread's list (an extensible array). */
export function builtinLoadsWatchable(): boolean {
  const list = moduleLoadList();
  return list !== undefined && Object.isExtensible(list);
}

/**
 * Calls `loaded(id)` after each builtin module that loads from now on has run its top level
 * (and before whoever loaded it gets it), until `patches` are restored. Throws if Node has no
 * list to watch (builtinLoadsWatchable(): the caller then installs everything at once).
 */
export function watchBuiltinLoads(patches: PatchSet, loaded: (id: string) => void): void {
  const list = moduleLoadList();
  if (list === undefined || !builtinLoadsWatchable()) {
    throw new Error('Failed to watch builtin module loads: process.moduleLoadList is not an extensible array on this Node');
  }
  const previous = Object.getPrototypeOf(list) as object;
  const watcher = new Proxy(Object.create(previous) as object, {
    set(target, key, value, receiver) {
      if (receiver !== list) return Reflect.set(target, key, value, receiver);
      // What the push would have done without the watcher: an own data property at the index.
      const defined = Reflect.defineProperty(list, key, { value, writable: true, enumerable: true, configurable: true });
      if (defined && typeof value === 'string' && value.startsWith(ENTRY_PREFIX)) loaded(value.slice(ENTRY_PREFIX.length));
      return defined;
    },
  });
  Object.setPrototypeOf(list, watcher);
  patches.onRestore(() => {
    if (Object.getPrototypeOf(list) === watcher) Object.setPrototypeOf(list, previous);
  });
}
