/**
 * Real module loads a library-mode client may be waiting for (World.realLoadsInFlight).
 *
 * A client that awaits `import(...)` holds nothing simulated, yet Node keeps the process alive
 * until the load is done, and the client then goes on. Where the load is real asynchronous work,
 * the run must wait for it rather than end as quiescent (and it must not depend on how long the
 * load takes: the simulation stands still meanwhile). Measured on Node 20 (docs/notes/node-facts.md,
 * "Dynamic import() and the event loop"):
 * - without loader hooks, the ES module loader reads a file not yet loaded with fs/promises:
 *   real FSReqPromise and CloseReq requests, one after another, with only microtasks between;
 * - with loader hooks on Node's loader thread (module.register: dst-runtime's own on Node 20 once
 *   a module host has run, or a project's, such as tsx), every import(), even of a builtin, is a
 *   request to that thread; while one is pending Node refs the thread, and its MessagePort joins
 *   the process's list of active handles.
 * Node 22 and 24 load synchronously within the import()'s microtasks when no hooks thread exists
 * (dst-runtime uses module.registerHooks there), so nothing real is in flight between two events.
 *
 * Simulated requests are left out (native-handles.ts hides those the shims answer); so are the
 * real requests of socket writes and DNS lookups, which simulated sockets leave in Node's list
 * until they are collected: only file requests and the hooks thread's port count.
 */
import type { World } from '../../runtime/world.js';
import { unhiddenRequests } from '../net/native-handles.js';
import { realActiveRequests, realActiveResourcesInfo } from './real-resources.js';

/** Requests Node's module loader makes to read a file. */
const LOAD_REQUESTS = new Set(['FSReqPromise', 'CloseReq', 'FSReqCallback']);

function messagePorts(names: readonly string[], from: number): number {
  let count = 0;
  for (let i = from; i < names.length; i++) if (names[i] === 'MessagePort') count++;
  return count;
}

/** Sets World.realLoadsInFlight for a library-mode run (called as its shims are installed). */
export function watchRealLoads(world: World): void {
  const before = realActiveRequests();
  // MessagePorts already ref'd when the run starts are the runner's.
  const portsBefore = messagePorts(realActiveResourcesInfo(before), before.length);
  world.realLoadsInFlight = () => {
    const objects = realActiveRequests();
    const names = realActiveResourcesInfo(objects);
    for (const name of unhiddenRequests(names.slice(0, objects.length), objects)) {
      if (LOAD_REQUESTS.has(name)) return true;
    }
    return messagePorts(names, objects.length) > portsBefore;
  };
}
