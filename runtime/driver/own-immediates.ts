import { originals } from '../originals.js';
import { outsideDomain } from './outside-domain.js';
import { runtimeCallback } from './runtime-resources.js';

/**
 * Original immediates dst-runtime queues besides the driver's (a hold released once Node has run
 * an immediate of its own), while pending. The strict-mode tripwire walks Node's immediate lists
 * from them: an immediate of this loop turn that is not the driver's can be found no other way.
 */
export const ownImmediates = new Set<object>();

/** Queues `fn` on the ORIGINAL setImmediate, known to the tripwire until it runs. */
export function queueOwnImmediate(fn: () => void): void {
  const immediate: object = outsideDomain(() =>
    originals.setImmediate(
      runtimeCallback(() => {
        ownImmediates.delete(immediate);
        fn();
      }),
    ),
  );
  ownImmediates.add(immediate);
}

/**
 * Runs `fn` once Node's loop has been through `checkPhases` more check phases: an immediate
 * queued from a check-phase callback runs in the next one, so 1 waits for the immediates Node
 * queued before it in this loop turn (a PerformanceObserver's delivery) and 2 for a whole poll
 * phase (a message on a MessagePort: shims/worker-threads/messaging.ts).
 */
export function afterCheckPhases(checkPhases: 1 | 2, fn: () => void): void {
  queueOwnImmediate(checkPhases === 1 ? fn : () => queueOwnImmediate(fn));
}

/** Holds `world`'s simulation (no event runs) until Node's loop has been through `checkPhases` more check phases (afterCheckPhases). */
export function holdForCheckPhases(world: { holdForRealWork(): () => void }, checkPhases: 1 | 2): void {
  afterCheckPhases(checkPhases, world.holdForRealWork());
}
