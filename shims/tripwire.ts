/**
 * Strict mode's tripwire for register mode: real timers that escaped the simulation. A module
 * that captured the real setTimeout before dst-runtime was installed (a late preload), or an
 * API built on Node's internal timers, creates real Timeouts whose callbacks run at real times:
 * the run would no longer be a function of its seed. Node counts ref'd real timers and
 * immediates in process.getActiveResourcesInfo(); the driver's own immediates are known, so any
 * surplus is an escape. Checked at every driver batch boundary (every 256 events).
 *
 * Library mode cannot use this check: the test runner's own real timers are legitimate there.
 */
import { ExitCode } from '../runtime/exit-codes.js';
import { formatFailure, runtimeError } from '../runtime/failure.js';
import { originals } from '../runtime/originals.js';
import type { World } from '../runtime/world.js';

export function escapedRealWork(world: World): string | undefined {
  let timeouts = 0;
  let immediates = 0;
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'Timeout') timeouts++;
    else if (kind === 'Immediate') immediates++;
  }
  const extraImmediates = immediates - world.driver.queuedImmediates;
  const parts: string[] = [];
  if (timeouts > 0) parts.push(`${timeouts} real timer${timeouts === 1 ? '' : 's'} (Timeout)`);
  if (extraImmediates > 0) parts.push(`${extraImmediates} real immediate${extraImmediates === 1 ? '' : 's'}`);
  return parts.length === 0 ? undefined : parts.join(' and ');
}

/** How often (real ms) the tripwire also looks while the simulation has nothing to run. */
const IDLE_CHECK_MS = 5;

export function installTripwire(world: World): void {
  let tripped = false;
  // A program whose only timer escaped never runs a simulated event, so the driver's
  // checkpoints never come: an unref'd real interval (ours, not counted as ref'd work) looks too.
  originals.setInterval(() => world.driver.onCheckpoint?.(), IDLE_CHECK_MS).unref();
  world.driver.onCheckpoint = () => {
    if (tripped) return;
    const escaped = escapedRealWork(world);
    if (escaped === undefined) return;
    tripped = true;
    const error = runtimeError(
      `${escaped} escaped the simulation: a module captured the real timer functions before ` +
        `dst-runtime was installed (make --import dst-runtime/register the FIRST preload), or used an ` +
        `API built on Node's internal timers. Set DST_STRICT=0 to allow real timers (the run is then ` +
        `not reproducible).`,
    );
    const host = world.currentHost();
    const report = world.report('crash', host, error, `strict mode: ${escaped} escaped the simulation`);
    process.stderr.write(`${formatFailure(report)}\n`);
    process.exit(ExitCode.escape);
  };
}
