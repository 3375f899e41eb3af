/**
 * Strict mode's tripwire for register mode: real timers that escaped the simulation. A module
 * that captured the real setTimeout before dst-runtime was installed (a late preload), or an
 * API built on Node's internal timers, creates real Timeouts whose callbacks run at real times:
 * the run would no longer be a function of its seed. Node counts ref'd real timers and
 * immediates in process.getActiveResourcesInfo(); the driver's own immediates are known, so any
 * surplus is an escape. Checked at every driver batch boundary (every 256 events).
 *
 * The report says where each escaped timer came from:
 * - a real Timeout: where it was created. Node's Timeout constructor starts with
 *   `this._idleTimeout = after`; an accessor of that name on Timeout.prototype (real-timeouts.ts)
 *   sees every real Timeout being made, records its creation stack and turns itself into the
 *   own data property the plain assignment would have made (same keys, same order: 20, 22,
 *   24). Only real Timeouts pay for it; simulated timers are other objects.
 * - a real Immediate: where its callback is defined (inspector [[FunctionLocation]]). Its
 *   creation is not recorded: the driver itself runs on real immediates, one per event, and a
 *   stack per event would double the driver's cost.
 *
 * Library mode cannot use this check: the test runner's own real timers are legitimate there.
 */
import { ExitCode } from '../../runtime/exit-codes.js';
import { formatFailure, runtimeError } from '../../runtime/failure.js';
import { ownImmediates } from '../../runtime/driver/own-immediates.js';
import { originals } from '../../runtime/originals.js';
import { expectedNativeImmediates, nativeHoldActive } from '../timers/native-immediates.js';
import { realActiveResourcesInfo } from '../process/real-resources.js';
import { claimedStillCounted, isClaimed, onRealTimeoutCreated, type RealTimer } from './real-timeouts.js';
import { toolTimersPending } from './tool-work.js';
import { captureStack, functionLocation, functionUrl, programFrames } from '../../runtime/trace/site.js';
import type { Host } from '../context.js';
import type { World } from '../../runtime/world.js';
import type { PatchSet } from '../registry.js';
import { runtimeCallback, runtimeNoop } from '../../runtime/driver/runtime-resources.js';

/** Node's process object, taken at load: a program may replace the global one. */
const nodeProcess: NodeJS.Process = originals.process;

export function escapedRealWork(world: World): string | undefined {
  // Immediates native code queued (TLS, HTTP/2) are claimed, and waited for, first: also while
  // real work holds the world, as World.next() claims them. The install of the HTTP/2 shims holds
  // it for a check phase, and a program whose top level opened a session meanwhile (Node's
  // test-http2-backpressure, on Node 24) had its session's immediates counted as escapes, exit 74.
  if (world.preStepHold !== undefined) world.preStepHold();
  let timeouts = 0;
  let immediates = 0;
  for (const kind of realActiveResourcesInfo()) {
    if (kind === 'Timeout') timeouts++;
    else if (kind === 'Immediate') immediates++;
  }
  // Real timers taken into the simulation, between their birth and their adoption (a nextTick).
  timeouts -= claimedStillCounted();
  // A tool's own, made by code of no host (its loader hooks).
  const [toolTimeouts, toolImmediates] = toolTimersPending();
  timeouts -= toolTimeouts;
  let extraImmediates = immediates - toolImmediates - world.driver.queuedImmediates;
  if (extraImmediates > 0) extraImmediates -= expectedNativeImmediates();
  // While native immediates are waited for, those they queue in turn are waited for next.
  if (nativeHoldActive()) extraImmediates = 0;
  if (extraImmediates > 0) extraImmediates -= nodeInternalImmediates(world);
  const parts: string[] = [];
  if (timeouts > 0) parts.push(`${timeouts} real timer${timeouts === 1 ? '' : 's'} (Timeout)`);
  if (extraImmediates > 0) parts.push(`${extraImmediates} real immediate${extraImmediates === 1 ? '' : 's'}`);
  return parts.length === 0 ? undefined : parts.join(' and ');
}

/**
 * Real immediates that are not the program's: queued by Node's own modules, which took the
 * original setImmediate when Node started (a PerformanceObserver's delivery,
 * lib/internal/perf/observe.js), or by dst-runtime itself (a hold released once such a delivery
 * has run). Legitimate, not an escape. Counted among the immediates not yet run: the list of this
 * loop turn after the driver's running immediate, and the list of the next turn (walked back
 * from a probe).
 */
function nodeInternalImmediates(world: World): number {
  const walked = new Set<RealTimer>();
  const walkFrom = (anchor: RealTimer | null | undefined): void => {
    for (let item: RealTimer | null | undefined = anchor; item !== null && item !== undefined && !walked.has(item); item = item._idlePrev) walked.add(item);
    for (let item = anchor?._idleNext; item !== null && item !== undefined && !walked.has(item); item = item._idleNext) walked.add(item);
  };
  // Anchors in every list that can hold pending immediates: the driver's last (this turn's list
  // when a checkpoint runs inside it), ours (holds waiting on Node's own immediates), a probe
  // (the next turn's list).
  walkFrom(world.driver.lastQueued as RealTimer | undefined);
  for (const own of ownImmediates) walkFrom(own as RealTimer);
  const probe = originals.setImmediate(runtimeNoop) as unknown as RealTimer;
  try {
    walkFrom(probe);
  } finally {
    originals.clearImmediate(probe as unknown as NodeJS.Immediate);
  }
  walked.delete(probe);
  // The driver's own are subtracted by count already (queuedImmediates): counted again here,
  // they would hide a real escape whenever the driver has immediates pending.
  const driverCallback = world.driver.immediateCallback;
  let count = 0;
  for (const item of walked) {
    if (item._destroyed || typeof item.hasRef !== 'function' || !item.hasRef()) continue;
    if (item._onImmediate !== driverCallback && isNodeInternal(item._onImmediate)) count++;
  }
  return count;
}

/** Verdicts by function source: whether a callback is defined in Node's modules or dst-runtime's. */
const internalBySource = new Map<string, boolean>();

function isNodeInternal(fn: unknown): boolean {
  if (typeof fn !== 'function') return false;
  const source = Function.prototype.toString.call(fn);
  let verdict = internalBySource.get(source);
  if (verdict === undefined) {
    const url = functionUrl(fn);
    // Not a frame of the program: Node's own (node:...) or dst-runtime's. Unknown: the program's.
    verdict = url !== undefined && programFrames(`\n    at ${url}`).length === 0;
    internalBySource.set(source, verdict);
  }
  return verdict;
}

// ---- where escaped real timers come from ----------------------------------------------------

/** Real Timeouts made since the tripwire was installed, with their creation stacks. */
const realTimeouts = new Set<WeakRef<RealTimer>>();
const creationStacks = new WeakMap<object, { stack?: string }>();

function trapRealTimeouts(): void {
  onRealTimeoutCreated((timer) => {
    creationStacks.set(timer, captureStack()); // formatted lazily, only if reported
    if (realTimeouts.size >= 1024) {
      for (const ref of realTimeouts) {
        const t = ref.deref();
        if (t === undefined || t._destroyed) realTimeouts.delete(ref);
      }
    }
    realTimeouts.add(new WeakRef(timer));
  });
}

/** One line (plus indented frames) per escaped real timer or immediate that can be found. */
function describeEscapes(): string[] {
  const lines: string[] = [];
  for (const ref of realTimeouts) {
    const timer = ref.deref();
    if (timer === undefined || timer._destroyed || !timer.hasRef() || isClaimed(timer)) continue;
    const frames = programFrames(creationStacks.get(timer)?.stack);
    const kind = timer._repeat === null ? `real Timeout (${timer._idleTimeout} ms)` : `real interval (every ${timer._repeat} ms)`;
    lines.push(frames.length === 0 ? `${kind} created inside Node or dst-runtime (no program frame on its stack)` : `${kind} created at ${frames[0]}`);
    for (const frame of frames.slice(1, 5)) lines.push(`    from ${frame}`);
  }
  // Immediates not yet run are a linked list: a probe appended at the tail walks back over them.
  const probe = originals.setImmediate(runtimeNoop) as unknown as RealTimer;
  try {
    for (let item = probe._idlePrev; item !== null && item !== undefined; item = item._idlePrev) {
      if (item._destroyed || typeof item.hasRef !== 'function' || !item.hasRef()) continue;
      const where = functionLocation(item._onImmediate);
      if (where === undefined) continue; // dst-runtime's own (the driver), or not locatable
      lines.push(`real Immediate whose callback is defined at ${where} (where it was created is not recorded)`);
    }
  } finally {
    originals.clearImmediate(probe as unknown as NodeJS.Immediate);
  }
  return lines;
}

/** How often (real ms) the tripwire also looks while the simulation has nothing to run. */
const IDLE_CHECK_MS = 5;

export function installTripwire(world: World): void {
  let tripped = false;
  // A program whose only timer escaped never runs a simulated event, so the driver's
  // checkpoints never come: an unref'd real interval (ours, not counted as ref'd work) looks too.
  originals.setInterval(runtimeCallback(() => world.driver.onCheckpoint?.()), IDLE_CHECK_MS).unref();
  trapRealTimeouts();
  world.driver.onCheckpoint = () => {
    if (tripped) return;
    const escaped = escapedRealWork(world);
    if (escaped === undefined) return;
    tripped = true;
    let where: string[] = [];
    try {
      where = describeEscapes();
    } catch {
      where = [];
    }
    const error = runtimeError(
      `${escaped} escaped the simulation: a module captured the real timer functions before ` +
        `dst-runtime was installed (make --import dst-runtime/register the FIRST preload), or used an ` +
        `API built on Node's internal timers. Set DST_STRICT=0 to allow real timers (the run is then ` +
        `not reproducible).` +
        where.map((line) => `\n  ${line}`).join(''),
    );
    const host = world.currentHost();
    const report = world.report('crash', host, error, `strict mode: ${escaped} escaped the simulation`);
    world.showFailure(report, formatFailure(report));
    nodeProcess.exit(ExitCode.escape);
  };
}

// ---- library mode: real timers made by host code ---------------------------------------------

/**
 * Strict mode in library mode. The test runner's own real timers are legitimate there, so the
 * register-mode count of active resources cannot be used; instead every real Timeout made while
 * host code runs (a module that captured the real setTimeout before dst-runtime was installed,
 * or an API built on Node's internal timers) is remembered with its creation stack, and at each
 * driver checkpoint (and right after the code that made it) one that still holds the event loop
 * (ref'd, not cleared) fails the run.
 * Unref'd internal timers (http's connection checks) do not hold the loop and are left alone.
 * The trap is an accessor on Timeout.prototype._idleTimeout, removed again when the run ends.
 */
export function watchHostRealTimers(world: World, patches: PatchSet): void {
  const made: { timer: WeakRef<RealTimer>; host: Host; stack: { stack?: string } }[] = [];
  let checkQueued = false;
  const uninstall = onRealTimeoutCreated((timer) => {
    const host = world.currentHost();
    if (host === undefined || host.role === 'system') return;
    const holder: { stack?: string } = {};
    Error.captureStackTrace(holder); // formatted lazily, only if reported
    made.push({ timer: new WeakRef(timer), host, stack: holder });
    // Look once the code that made it has finished its synchronous part (which may unref or
    // clear it): a short run may end before the driver's next checkpoint.
    if (!checkQueued) {
      checkQueued = true;
      nodeProcess.nextTick(check);
    }
  });
  if (uninstall === undefined) return; // not the Node we know
  patches.onRestore(() => {
    uninstall();
    world.driver.onCheckpoint = undefined;
  });
  const check = (): void => {
    checkQueued = false;
    for (let i = 0; i < made.length; i++) {
      const entry = made[i]!;
      const timer = entry.timer.deref();
      if (timer === undefined || timer._destroyed || isClaimed(timer)) {
        made.splice(i--, 1);
        continue;
      }
      if (!timer.hasRef()) continue;
      const frames = programFrames(entry.stack.stack);
      const kind = timer._repeat === null ? `a real Timeout (${timer._idleTimeout} ms)` : `a real interval (every ${timer._repeat} ms)`;
      const where = frames.length === 0 ? 'inside Node or dst-runtime (no program frame on its stack)' : `at ${frames[0]}`;
      const error = runtimeError(
        `strict mode: host "${entry.host.name}" created ${kind} that escaped the simulation, ${where}` +
          frames.slice(1, 5).map((frame) => `\n    from ${frame}`).join('') +
          `\n  A module captured the real timer functions before dst-runtime was installed (import dst-runtime ` +
          `before it), or used an API built on Node's internal timers. Pass { strict: false } (or DST_STRICT=0) ` +
          `to allow it (the run is then not reproducible).`,
      );
      made.length = 0;
      world.escaped(entry.host, error, `strict mode: ${kind} made by host "${entry.host.name}" escaped the simulation`);
      return;
    }
  };
  world.driver.onCheckpoint = check;
}
