/**
 * Real timers and immediates made by code of no host (World.outsideHosts: another tool's loader
 * hooks, such as tsx's, writing its cache on an immediate). They are the tool's, run at real
 * times beside the simulation and touch nothing of it: strict mode's tripwire does not count them
 * as escapes. Noted by the timer functions when they pass a call to Node's (shims/timers/timers.ts).
 */
import { activeWorld } from '../../runtime/world.js';
import type { RealTimer } from './real-timeouts.js';

const toolTimers = new Set<RealTimer>();

/** Notes `timer` (a real Timeout or Immediate just made) if code of no host made it. */
export function noteIfToolTimer(timer: unknown): void {
  if (activeWorld()?.inOutsideHosts() !== true) return;
  if (toolTimers.size >= 256) toolTimersPending();
  toolTimers.add(timer as RealTimer);
}

/** Tool timers still pending and ref'd, as Node counts them: [Timeouts, Immediates]. Drops those done. */
export function toolTimersPending(): [timeouts: number, immediates: number] {
  let timeouts = 0;
  let immediates = 0;
  for (const timer of toolTimers) {
    if (timer._destroyed) toolTimers.delete(timer);
    else if (timer.hasRef()) {
      if (timer._onImmediate === undefined) timeouts++;
      else immediates++;
    }
  }
  return [timeouts, immediates];
}
