/**
 * Immediates queued by Node's C++ (Environment::SetImmediate), which the simulation cannot see
 * being queued: Node 24's TLSWrap defers a write issued from inside an OpenSSL callback
 * ("Deferring write issued from the SSL library's stack"), and Http2Session sends every frame it
 * queued from one (Http2Session::MaybeScheduleWrite). Node runs native immediates at the start
 * of the next check phase, before JavaScript immediates. The simulation must not run further
 * events before they ran (their bytes belong to this instant), so the world is held for one
 * check phase: the hold is released from an original immediate queued now, which runs after the
 * native ones.
 *
 * A native immediate shows in Node's count of ref'd immediates (process.getActiveResourcesInfo
 * lists one 'Immediate' per ref'd immediate, native or not): what is there beyond the driver's,
 * dst-runtime's own and those code outside the hosts queued (foreign ones, below) was queued
 * natively.
 */
import { ownImmediates, queueOwnImmediate } from '../../runtime/driver/own-immediates.js';
import { activeWorld, type World } from '../../runtime/world.js';
import { realActiveResourcesInfo } from '../process/real-resources.js';
import { PendingRealHandles, type RealTimer } from '../strict/real-timeouts.js';

/**
 * Native immediates seen and not run yet (the strict-mode tripwire does not count them as
 * escapes): counted when seen, uncounted when the hold waiting for them is released, which is
 * after Node ran them.
 */
let expected = 0;
/** Holds waiting for native immediates, not released yet. */
let holds = 0;

/** How many native immediates the tripwire should not count as escapes, now. */
export function expectedNativeImmediates(): number {
  return expected;
}

/** Whether the world is being held for native immediates (those they queue are waited for next). */
export function nativeHoldActive(): boolean {
  return holds > 0;
}

/**
 * Real immediates queued through the global setImmediate by code outside every host while a
 * world watches (a test runner's, another test's leftovers, a script polling beside the run):
 * not the simulation's, so never waited for. Counting them as native made the hold wait for a
 * foreign setImmediate loop for ever (each check phase it queued the next one), and the run hung.
 */
const foreign = new PendingRealHandles();
let watching = false;

/** Called by the global setImmediate outside the hosts with what it queued (shims/timers/timers.ts). */
export function noteForeignImmediate(immediate: NodeJS.Immediate): void {
  if (watching) foreign.note(immediate as unknown as RealTimer);
}

/** Node's count of ref'd immediates pending, native ones included. */
function realImmediates(): number {
  const list = realActiveResourcesInfo();
  let n = 0;
  // Immediates come last in the list (after requests and handles).
  for (let i = list.length - 1; i >= 0 && list[i] === 'Immediate'; i--) n++;
  return n;
}

/**
 * Watches `world` for native immediates left by the previous event (and its ticks): before each
 * event (World.preStepHold), Node's count of ref'd immediates beyond the driver's, dst-runtime's
 * own and those already expected means native code queued some; the world is held for one check
 * phase, after which Node has run them, and again while they queue more (a write completion that
 * schedules the next write). Installed once a host makes a TLS socket or an HTTP/2 session, so
 * programs that use neither pay nothing.
 */
export function watchNativeImmediates(world: World): void {
  if (world.preStepHold !== undefined) return;
  watching = true;
  const unclaimed = (): number => {
    const count = realImmediates() - world.driver.queuedImmediates - ownImmediates.size - expected - foreign.pending();
    return count < 0 ? count + settleInstalls(-count) : count;
  };
  const claim = (count: number, release: () => void): void => {
    holds++;
    expected += count;
    queueOwnImmediate(() => {
      holds--;
      expected -= count;
      const more = unclaimed();
      if (more > 0) claim(more, release);
      else release();
    });
  };
  world.preStepHold = () => {
    const count = unclaimed();
    if (count <= 0) return false;
    claim(count, world.holdForRealWork());
    return true;
  };
}

/**
 * What installs left (expectingNativeImmediates) and may not have run yet, oldest first. Their
 * count is taken back in full one check phase later; but an install made while the driver's
 * batch of immediates was queued behind it (a program's top level) sees some of them run before
 * that batch's events, and until then they were still expected: Node's count fell below what was
 * expected, and a native immediate queued meanwhile (an HTTP/2 session's first frames) went
 * unclaimed, so where its bytes landed depended on when the top level had run relative to the
 * driver (121-http2-secure-alpn: 91 or 92 events on one seed, in an explorer worker's first seed).
 */
const installs: { left: number }[] = [];

/** Takes up to `deficit` immediates that evidently ran off the installs' expectations; returns how many it took. */
function settleInstalls(deficit: number): number {
  let settled = 0;
  for (const install of installs) {
    const n = Math.min(install.left, deficit - settled);
    install.left -= n;
    settled += n;
    if (settled === deficit) break;
  }
  expected -= settled;
  while (installs.length > 0 && installs[0]!.left === 0) installs.shift();
  return settled;
}

/**
 * Runs `fn` (outside the hosts, at install) and tells the tripwire about the native immediates it
 * left, until they ran. A running simulation is held meanwhile (one check phase): while they are
 * pending, Node's count cannot tell one of them from a native immediate the next event's code
 * queues, and whether that event came before or after them depended on where the driver's batch
 * stood when the install ran (an explorer worker's first seed of 125-http2-timeouts-ping with
 * faults: 1 run in 12 wrote the server's first SETTINGS an event later).
 */
export function expectingNativeImmediates<T>(fn: () => T): T {
  const before = realImmediates();
  try {
    return fn();
  } finally {
    const left = realImmediates() - before;
    if (left > 0) {
      const install = { left };
      installs.push(install);
      expected += left;
      const release = activeWorld()?.holdForRealWork();
      queueOwnImmediate(() => {
        expected -= install.left;
        install.left = 0;
        const at = installs.indexOf(install);
        if (at !== -1) installs.splice(at, 1);
        release?.();
      });
    }
  }
}
