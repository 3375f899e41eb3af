/**
 * The pending-promise report (SimOptions.pending, DST_PENDING=1): the promises host code created
 * and that never settled by the end of the run, grouped by where they were created. A promise
 * that never settles is invisible otherwise — a client's request whose connection dropped, a
 * lock nobody releases — and the run simply ends or goes idle.
 *
 * An async_hooks hook (Node's own createHook, taken at load, not the program's view of it) sees
 * every promise made while a host's code runs: init records the host and a short stack, and
 * promiseResolve (called for rejections too) forgets it. Only the stack is captured per promise;
 * it is formatted for the promises still pending at the end. A promise whose stack holds no frame
 * of the program's (dst-runtime's own, Node's) is not the program's and is left out, as are the
 * promises of host incarnations that are down at the end (a crashed process's promises never
 * settle, by design).
 */
import { createHook } from 'node:async_hooks';
import type { Host } from '../context.js';
import { type CapturedStack, captureStack, programFrames } from '../../runtime/trace/site.js';
import type { World } from '../../runtime/world.js';

/** Promises of one creation site still pending at the end of a run. */
export interface PendingPromiseSite {
  /** The first frame of the program's where they were created ("file:line:col"). */
  site: string;
  /** The host (name) that created them. */
  host: string;
  count: number;
}

interface Created {
  host: Host;
  stack: CapturedStack;
}

/** Frames kept per promise: enough to get past Node's and dst-runtime's own. */
const FRAMES = 12;

/** Tracks the promises `world`'s hosts create; report() lists those still pending. */
export class PendingPromises {
  private readonly pending = new Map<number, Created>();
  private readonly hook: ReturnType<typeof createHook>;

  constructor(world: World) {
    this.hook = createHook({
      init: (asyncId, type) => {
        if (type !== 'PROMISE') return;
        const host = world.currentHost();
        if (host === undefined || host.role === 'system') return;
        this.pending.set(asyncId, { host, stack: captureStack(undefined, FRAMES) });
      },
      promiseResolve: (asyncId) => {
        this.pending.delete(asyncId);
      },
    });
  }

  start(): void {
    this.hook.enable();
  }

  stop(): void {
    this.hook.disable();
  }

  /** The promises still pending, by site and host: most first, then by site. */
  report(): PendingPromiseSite[] {
    const bySite = new Map<string, PendingPromiseSite>();
    for (const { host, stack } of this.pending.values()) {
      if (host.state !== 'running') continue;
      const site = programFrames(stack.stack)[0];
      if (site === undefined) continue;
      const key = `${host.name}\u0000${site}`;
      const entry = bySite.get(key);
      if (entry === undefined) bySite.set(key, { site, host: host.name, count: 1 });
      else entry.count++;
    }
    return [...bySite.values()].sort((a, b) => b.count - a.count || (a.site < b.site ? -1 : a.site > b.site ? 1 : a.host < b.host ? -1 : 1));
  }
}

/** The report as lines for a terminal. */
export function formatPendingPromises(sites: readonly PendingPromiseSite[]): string {
  if (sites.length === 0) return 'dst: every promise host code created settled';
  const total = sites.reduce((sum, s) => sum + s.count, 0);
  const width = String(sites[0]!.count).length;
  const lines = sites.map((s) => `    ${String(s.count).padStart(width)}  created at ${s.site} (host ${s.host})`);
  return [`dst: ${total.toLocaleString('en-US')} promise${total === 1 ? '' : 's'} created by host code never settled:`, ...lines].join('\n');
}
