import { originals } from '../originals.js';
import { ROOT_SCOPE } from './event-context.js';
import { outsideDomain } from './outside-domain.js';
import { runtimeCallback } from './runtime-resources.js';

/** How many original setImmediate callbacks are queued per turn of Node's event loop. */
export const DRIVER_BATCH = 256;

/**
 * The heartbeat. Runs one simulated event per callback of the ORIGINAL setImmediate, many queued
 * per loop turn. Node drains every nextTick and microtask between two immediate callbacks, so
 * each event's promise chains settle before the next event runs, exactly as between two timer
 * callbacks in real Node. A microtask- or loop-based driver would break that.
 */
export class Driver {
  private pending = 0;
  /** Queued immediates of this turn that are to do nothing (yieldTurn). */
  private skip = 0;
  private active = false;
  private readonly step: () => void;
  private readonly onStep: () => boolean;
  /** Called at every batch boundary and when the driver goes idle: a cheap place for tripwires. */
  onCheckpoint: (() => void) | undefined;
  /** Called around queueing a batch of original immediates (World disables its storage meanwhile). */
  beforeRefill: (() => void) | undefined;
  afterRefill: (() => void) | undefined;
  /**
   * The last original Immediate the driver queued. When a checkpoint runs (from refill(), inside
   * the last immediate of a batch) it is the immediate running, and what follows it in Node's list
   * are the real immediates still to run in this turn (the tripwire looks at them).
   */
  lastQueued: object | undefined;
  /** The first original Immediate of the last batch, and the first and last of the batch before it (liveBatches()). */
  private firstQueued: object | undefined;
  private earlierFirst: object | undefined;
  private earlierLast: object | undefined;

  /** Queues one batch of original immediates (refill()), made once. */
  private readonly queueBatch = (): void => {
    const setImmediate = originals.setImmediate;
    this.earlierFirst = this.firstQueued;
    this.earlierLast = this.lastQueued;
    this.firstQueued = this.lastQueued = setImmediate(this.step);
    for (let i = 1; i < DRIVER_BATCH; i++) this.lastQueued = setImmediate(this.step);
  };

  /**
   * `onStep` runs the next event and returns false when there is nothing more to run for now
   * (the driver then goes idle until kick() is called).
   */
  constructor(onStep: () => boolean) {
    this.onStep = onStep;
    this.step = () => {
      this.pending--;
      if (this.skip > 0) {
        this.skip--;
        return;
      }
      if (!this.active) return;
      // Refill before running user code so an exception escaping an event cannot stall us.
      if (this.pending === 0) this.refill();
      if (!this.onStep()) {
        this.active = false;
        this.onCheckpoint?.();
      }
    };
    runtimeCallback(this.step);
  }

  /** Starts (or keeps) the driver running. Cheap to call when already active. */
  kick(): void {
    if (this.active) return;
    this.active = true;
    if (this.pending === 0) this.refill();
  }

  /**
   * Leaves the rest of this turn of Node's loop to Node: the immediates queued for it do nothing,
   * and a batch queued now runs the next events in the next turn. Node runs its native immediates
   * (async_hooks' destroy callbacks of what a collection freed, ...) at the start of a turn's
   * check phase, before the JavaScript immediates: without a new turn they would wait for the
   * end of the batch, up to DRIVER_BATCH events later. Called from inside an event; the
   * simulated order of events is unchanged.
   */
  yieldTurn(): void {
    // Already yielded this turn, or this event is the turn's last (its step queued the next batch).
    if (!this.active || this.skip > 0 || this.pending === DRIVER_BATCH) return;
    this.skip = this.pending;
    this.refill();
  }

  /** Stops scheduling; already queued callbacks return at once. */
  stop(): void {
    this.active = false;
  }

  get running(): boolean {
    return this.active;
  }

  /** The callback of every original immediate the driver queues (the tripwire tells them apart by it). */
  get immediateCallback(): () => void {
    return this.step;
  }

  /**
   * The first and last original Immediate of the batches that may still be running or queued:
   * the last one and, after a yieldTurn(), the one before it. A batch's immediates are made one
   * after another, so their async ids are the consecutive ones from the first's to the last's.
   */
  liveBatches(): Array<[object, object]> {
    const batches: Array<[object, object]> = [];
    if (this.earlierFirst !== undefined && this.earlierLast !== undefined) batches.push([this.earlierFirst, this.earlierLast]);
    if (this.firstQueued !== undefined && this.lastQueued !== undefined) batches.push([this.firstQueued, this.lastQueued]);
    return batches;
  }

  /** Original immediates queued by the driver and not yet run. */
  get queuedImmediates(): number {
    return this.pending;
  }

  private refill(): void {
    this.onCheckpoint?.();
    this.beforeRefill?.();
    try {
      // Queued in the root context: events that captured no context of their own run in the
      // driver's immediate, and must not see a store of the code that happened to kick it.
      ROOT_SCOPE.runInAsyncScope(outsideDomain, undefined, this.queueBatch);
    } finally {
      this.afterRefill?.();
    }
    this.pending += DRIVER_BATCH;
  }
}
