/**
 * Real timers and immediates made by code of no host (World.outsideHosts: another tool's loader
 * hooks, such as tsx's, writing its cache on an immediate). They are the tool's, run at real
 * times beside the simulation and touch nothing of it: strict mode's tripwire does not count them
 * as escapes. Noted by the timer functions when they pass a call to Node's (shims/timers/timers.ts).
 */
import { activeWorld } from '../../runtime/world.js';
import { PendingRealHandles, type RealTimer } from './real-timeouts.js';

const toolTimeouts = new PendingRealHandles();
const toolImmediates = new PendingRealHandles();

/** Notes `timer` (a real Timeout or Immediate just made) if code of no host made it. */
export function noteIfToolTimer(timer: unknown): void {
  if (activeWorld()?.inOutsideHosts() !== true) return;
  const real = timer as RealTimer;
  (real._onImmediate === undefined ? toolTimeouts : toolImmediates).note(real);
}

/** Tool timers still pending and ref'd, as Node counts them: [Timeouts, Immediates]. */
export function toolTimersPending(): [timeouts: number, immediates: number] {
  return [toolTimeouts.pending(), toolImmediates.pending()];
}
