/**
 * Strict mode for APIs the simulation cannot own: worker threads run alongside the simulated
 * world and talk with it (real time, real I/O, real scheduling), and fs.watch reports real
 * changes at real times (fs.watchFile, a stat poll, is simulated: shims/fs/stat-watcher.ts), so
 * calling them from a simulated host is an error that names the API and says what to do instead.
 * Outside hosts (the test runner) they are untouched. A forked child (an IPC channel) is refused
 * where it would start, after Node's own argument checks (shims/process/child-processes.ts).
 *
 * Other children run for real, on the real disk, as a whole at one point: the synchronous ones
 * (spawnSync, execSync, execFileSync) as in Node, the host blocked until the child has exited, so
 * nothing of the simulation can interleave with it and what the program sees is the child's
 * result alone (its output, its exit status), as reading a real file gives that file's contents;
 * the asynchronous ones (spawn, exec, execFile) when the turn that spawned them is over
 * (shims/process/child-processes.ts). On a simulated disk they are refused (the child would not
 * see the host's files).
 *
 * The child_process and worker_threads guards are installed at those builtins' first load
 * (Shim.builtins): loading them at start cost every program 2-3 ms of CPU each (figure 12).
 */
import type childProcessModule from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type workerThreadsModule from 'node:worker_threads';
import { UnsupportedError } from '../../runtime/errors.js';
import { currentHost, type Host } from '../context.js';
import { diskOf, uvErrno } from '../fs/disk.js';
import { nodeBinding } from '../node-binding.js';
import { mirrorSignature, type PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

/** The synchronous children: the host waits for the child's exit, so they run for real. */
const SYNC_CHILD_PROCESS = ['spawnSync', 'execSync', 'execFileSync'] as const;
export const AS_HOST = 'run the other program as another simulated host (sim.host(name, { main }))';

/** `original`, throwing inside a host the error `refusal` gives for it (none: the call runs). */
function guard<T extends (...args: any[]) => any>(original: T, refusal: (host: Host) => UnsupportedError | undefined): T {
  const guarded = function (this: unknown, ...args: unknown[]) {
    const host = currentHost();
    const error = host === undefined ? undefined : refusal(host);
    if (error !== undefined) throw error;
    return Reflect.apply(original, this, args);
  };
  mirrorSignature(guarded, original);
  return guarded as unknown as T;
}

/** A child's refusal: only on a simulated disk, which the child would not see. */
export function simulatedDiskRefusal(api: string, host: Host): UnsupportedError | undefined {
  if (diskOf(host) === undefined) return undefined;
  return new UnsupportedError(
    `${api} on a simulated disk (host "${host.name}")`,
    `the child would read and write the real disk, not the host's simulated one; run with the real disk (the Sim option disk: 'real', or DST_DISK=real), or ${AS_HOST}`,
  );
}

/** The guards of child_process, installed at its first load. */
export const childProcessEscapesShim: Shim = {
  name: 'escapes-child-process',
  builtins: ['child_process'],
  install(patches: PatchSet) {
    const cp = createRequire(__filename)('node:child_process') as typeof childProcessModule as unknown as Record<string, (...args: any[]) => any>;
    for (const name of SYNC_CHILD_PROCESS) {
      patches.replace(cp, name, guard(cp[name]!, (host) => simulatedDiskRefusal(`child_process.${name}()`, host)));
    }
  },
};

/** The guard of worker_threads.Worker, installed at its first load. */
export const workerEscapesShim: Shim = {
  name: 'escapes-worker-threads',
  builtins: ['worker_threads'],
  install(patches: PatchSet) {
    const workerThreads = createRequire(__filename)('node:worker_threads') as typeof workerThreadsModule;
    const RealWorker = workerThreads.Worker;
    const Worker = function Worker(this: unknown, ...args: unknown[]) {
      if (currentHost() !== undefined) {
        throw new UnsupportedError('new worker_threads.Worker()', 'a worker thread runs outside the simulation; do the work on the host itself or in another simulated host');
      }
      return Reflect.construct(RealWorker, args, new.target ?? RealWorker);
    } as unknown as typeof RealWorker;
    Object.setPrototypeOf(Worker, RealWorker);
    (Worker as unknown as { prototype: unknown }).prototype = RealWorker.prototype;
    patches.replace(workerThreads, 'Worker', Worker);
  },
};

/** Whether fs.watch() is running now (which of the two watchers a refusal names). */
let inFsWatch = false;

/**
 * The file watchers' guard, on the watcher's handle (FSEvent.prototype.start): Node's own
 * validation runs first, as plainly (a bad path or encoding is Node's TypeError), and the
 * promise API refuses where Node would start watching, at the iterator's first next().
 */
export const escapesShim: Shim = {
  name: 'escapes',
  install(patches: PatchSet) {
    const watchInstead =
      'a file watcher reports real changes at real times; use fs.watchFile (a stat poll on the host\'s clock), poll with fs.stat from a simulated timer, or have the writer tell the reader over the simulated network';
    const fsEventPrototype = (nodeBinding('fs_event_wrap').FSEvent as { prototype: Record<string, (...args: any[]) => any> }).prototype;
    const realStart = fsEventPrototype.start!;
    const start = function start(this: unknown, ...args: unknown[]) {
      if (currentHost() === undefined) return Reflect.apply(realStart, this, args);
      // A path that is not there fails as inotify_add_watch fails (Node throws its ENOENT,
      // syscall 'watch'): the host's own disk answers, real or simulated.
      if (fs.statSync(args[0] as string, { throwIfNoEntry: false }) === undefined) return uvErrno('ENOENT');
      throw new UnsupportedError(inFsWatch ? 'fs.watch()' : 'fs.promises.watch()', watchInstead);
    };
    mirrorSignature(start, realStart);
    patches.replace(fsEventPrototype, 'start', start);
    const fsModule = fs as unknown as Record<string, (...args: any[]) => any>;
    const realWatch = fsModule.watch!;
    const watch = function watch(this: unknown, ...args: unknown[]) {
      const outer = inFsWatch;
      inFsWatch = true;
      try {
        return Reflect.apply(realWatch, this, args);
      } finally {
        inFsWatch = outer;
      }
    };
    mirrorSignature(watch, realWatch);
    patches.replace(fsModule, 'watch', watch);
  },
};
