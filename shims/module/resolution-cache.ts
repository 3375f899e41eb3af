/**
 * Where a module host's imports and requires resolved, kept for the next incarnation that asks
 * the same from the same place.
 *
 * Every host incarnation resolves its graph again (module-hosts.ts gives it fresh module
 * instances, and Node's caches are keyed by what is fresh: the CommonJS parent module, the
 * ES module URL with its host query). Resolving is file system work: for each require() Node
 * walks up from the parent for a package.json (trySelf), stats the candidate files and reads
 * package.json "exports"; measured on Node 22, a quarter of a re-load of mqtt.js's ~100 files
 * (docs/benchmarks.md, figures 9 and 10). Here the answer is kept per process, keyed by what it
 * depends on:
 *
 * - CommonJS (requireForHost's resolution): the parent's directory and node_modules lookup paths,
 *   the request, Module.globalPaths and the extensions require() probes. Node's own require()
 *   keeps the same answers for the life of the process (its relativeResolveCache, keyed by the
 *   parent's directory and the request); host modules do not reach that cache.
 * - ES modules (the in-thread resolve hook, Node 22.15+ and 24): the specifier, the importer's
 *   URL without its host query, the conditions and the import attributes.
 *
 * Only answers are kept, never failures (a file not found yet may be written later, as in Node).
 * The cache is dropped whenever the files may have changed: the fs shim calls filesChanged()
 * for every call that may create, remove, rename or write a file (fs.ts), whoever makes it,
 * program or runtime. It is not used at all when the host's files are a simulated disk's
 * (`disk: 'simulated'`: the disk answers the loader's reads, and its files are the seed's), nor
 * when Module._resolveFilename or Module._findPath was replaced (module-alias and the like:
 * theirs may answer differently each time). What it cannot see, as Node's relativeResolveCache
 * cannot: files changed by another process while a simulation runs. Changes made while none runs
 * (a test writing its fixtures between two runs) are found at the next run's start: the
 * directories of every kept answer (and of Node's Module._pathCache's) are noted with their
 * times when a run ends, and a directory whose entries changed since (a file added, removed or
 * renamed changes its mtime) drops everything (filesUnchangedSinceLastRun).
 * `DST_RESOLUTION_CACHE=0` turns it off. Outcomes are published on the diagnostics channel
 * 'dst-runtime:resolution-cache' as { request, outcome }.
 * test/hosts/resolution-cache.test.mjs pins each case.
 */
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import Module from 'node:module';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import { envSwitch } from '../../runtime/env-switch.js';
import { onRealDisk } from '../../runtime/disk/real.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const ModuleClass = Module as any;
const realResolveFilename = ModuleClass._resolveFilename;
const realFindPath = ModuleClass._findPath;

/** Entries kept at most: past it the cache starts again (a process that loads many distinct graphs). */
const ENTRIES_MAX = 100_000;

const commonJs = new Map<string, string>();
const esm = new Map<string, unknown>();
let generation = 0;
const channel = diagnostics.channel('dst-runtime:resolution-cache');

/** 'hit': answered from the cache; 'miss': resolved, and kept. Published on 'dst-runtime:resolution-cache' as { request, outcome }. */
export type ResolutionOutcome = 'hit' | 'miss';

function publish(request: string, outcome: ResolutionOutcome): void {
  if (channel.hasSubscribers) channel.publish({ request, outcome });
}

/** Whether the cache is used: DST_RESOLUTION_CACHE=0 turns it off (read when shims are installed). */
let enabled = true;

export function readResolutionCacheSetting(env: NodeJS.ProcessEnv): void {
  enabled = envSwitch(env, 'DST_RESOLUTION_CACHE', true, "resolves module hosts' requires and imports afresh at each load");
}

/**
 * Files may have changed (a write, a rename, a new directory...): every answer is dropped, and
 * so are those of Node's own Module._pathCache, which Module._findPath keeps for the life of the
 * process (keyed by the request and the lookup paths): kept, a program that renamed a module
 * and required it again in its next seed, or its next incarnation, was handed the old file
 * (ENOENT) where a fresh process resolves the new one (test/hosts/resolution-cache.test.mjs).
 * Emptied in place: the object is the process's, recorded by process-state.ts.
 */
export function filesChanged(): void {
  generation++;
  if (commonJs.size > 0) commonJs.clear();
  if (esm.size > 0) esm.clear();
  emptyPathCache();
}

function emptyPathCache(): void {
  const pathCache = ModuleClass._pathCache as Record<string, unknown> | undefined;
  if (pathCache !== null && typeof pathCache === 'object') for (const key in pathCache) delete pathCache[key];
}

function commonJsKey(request: string, parent: any): string | undefined {
  if (!enabled || ModuleClass._resolveFilename !== realResolveFilename || ModuleClass._findPath !== realFindPath) return undefined;
  const paths = parent?.paths;
  if (typeof parent?.path !== 'string' || !Array.isArray(paths)) return undefined;
  const globalPaths = Array.isArray(ModuleClass.globalPaths) ? ModuleClass.globalPaths.join('\0') : '';
  return `${parent.path}\u0001${request}\u0001${paths.join('\0')}\u0001${globalPaths}\u0001${Object.keys(ModuleClass._extensions).join('\0')}`;
}

/** Module._resolveFilename(request, parent) for a host module, from the cache where it can be. */
export function resolveCommonJs(request: string, parent: any, isMain: boolean, simulatedDisk: boolean): string {
  if (simulatedDisk) {
    // The disk's files are the seed's: Node's own path cache must neither answer from the real
    // files (or another seed's disk) nor keep the disk's answer for them.
    emptyPathCache();
    try {
      return ModuleClass._resolveFilename(request, parent, isMain);
    } finally {
      emptyPathCache();
    }
  }
  const key = isMain ? undefined : commonJsKey(request, parent);
  if (key === undefined) return ModuleClass._resolveFilename(request, parent, isMain);
  const cached = commonJs.get(key);
  if (cached !== undefined) {
    publish(request, 'hit');
    return cached;
  }
  const before = generation;
  const filename = ModuleClass._resolveFilename(request, parent, isMain) as string;
  // Files changed while it resolved (a hook of the program's, another party's write): not kept.
  if (generation === before) {
    if (commonJs.size >= ENTRIES_MAX) commonJs.clear();
    commonJs.set(key, filename);
    publish(request, 'miss');
  }
  return filename;
}

/** The key of an ES module resolution, or undefined where it is not to be cached. */
export function esmKey(specifier: string, parentWithoutQuery: string | undefined, context: { conditions?: unknown; importAttributes?: unknown }): string | undefined {
  if (!enabled || parentWithoutQuery === undefined) return undefined;
  const conditions = Array.isArray(context.conditions) ? context.conditions.join('\0') : '';
  const attributes = context.importAttributes === undefined ? '' : JSON.stringify(context.importAttributes);
  return `${parentWithoutQuery}\u0001${specifier}\u0001${conditions}\u0001${attributes}`;
}

/** The next hook's answer for `key`, resolved through `resolve` when not kept. */
export function resolveEsm<R>(key: string | undefined, specifier: string, resolve: () => R): R {
  if (key === undefined) return resolve();
  const cached = esm.get(key);
  if (cached !== undefined) {
    publish(specifier, 'hit');
    // Not from the next hook this time: the chain must be told it stops here.
    return { ...(cached as object), shortCircuit: true } as R;
  }
  const before = generation;
  const resolved = resolve();
  if (generation === before) {
    if (esm.size >= ENTRIES_MAX) esm.clear();
    esm.set(key, { ...(resolved as object) });
    publish(specifier, 'miss');
  }
  return resolved;
}

/** The directories of the answers kept (ours and Node's _pathCache), with their times, when the last run ended. */
let directoriesAtRunEnd = new Map<string, string>();

/** A directory's times ('' when it is gone): any entry added, removed or renamed changes them. */
function directoryTimes(directory: string): string {
  try {
    const stat = fs.statSync(directory, { bigint: true });
    return `${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return '';
  }
}

/** The directories the kept answers lie in. */
function keptDirectories(): Set<string> {
  const directories = new Set<string>();
  const noteDirectory = (directory: unknown): void => {
    if (typeof directory === 'string' && directory.startsWith('/')) directories.add(directory);
  };
  const note = (file: unknown): void => {
    if (typeof file === 'string') noteDirectory(nodePath.dirname(file));
  };
  // Where each resolved from counts too: a file added beside the requiring module ('./cfg2'
  // resolved to cfg2/index.js, then cfg2.js appears) changes the answer.
  for (const [key, filename] of commonJs) {
    noteDirectory(key.slice(0, key.indexOf('\u0001')));
    note(filename);
  }
  for (const resolved of esm.values()) {
    const url = (resolved as { url?: unknown }).url;
    if (typeof url === 'string' && url.startsWith('file:')) {
      try {
        note(fileURLToPath(url.replace(/[?#].*$/, '')));
      } catch {
        // not a path
      }
    }
  }
  const pathCache = ModuleClass._pathCache as Record<string, unknown> | undefined;
  if (pathCache !== null && typeof pathCache === 'object') {
    // Node's keys are the request and its lookup paths, the first of which a relative request resolves from.
    for (const key in pathCache) {
      noteDirectory(key.split('\x00')[1]);
      note(pathCache[key]);
    }
  }
  return directories;
}

/** A run ends (the shims are restored): notes the directories of what is kept, for the next run's start. */
export function noteRunEnded(): void {
  const directories = keptDirectories();
  directoriesAtRunEnd = new Map();
  if (directories.size === 0) return;
  onRealDisk(() => {
    for (const directory of [...directories].sort()) directoriesAtRunEnd.set(directory, directoryTimes(directory));
  });
}

/**
 * A run starts (the shims are installed): when files changed since the last run ended, where
 * nothing of a simulation could see it (a test writing fixtures between runs), every kept
 * answer is dropped, Node's own too, as a fresh process would resolve afresh (a probe,
 * 2026-12-05: a module host required a config.js the test had since replaced by config.json).
 */
export function filesUnchangedSinceLastRun(): void {
  if (directoriesAtRunEnd.size === 0) return;
  const noted = directoriesAtRunEnd;
  directoriesAtRunEnd = new Map();
  const changed = onRealDisk(() => {
    for (const [directory, times] of noted) if (directoryTimes(directory) !== times) return true;
    return false;
  });
  if (changed) filesChanged();
}
