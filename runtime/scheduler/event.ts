import type { AsyncResource } from 'node:async_hooks';
import type { Host } from '../hosts/host.js';

/** What kind of work an event is; recorded in the trace and the fingerprint. */
export type EventKind =
  | 'boot'
  | 'timeout'
  | 'interval'
  | 'immediate'
  | 'io'
  | 'net'
  | 'fault'
  | 'call';

/** A numeric code per kind, fed to the fingerprint (cheaper than hashing the string). */
export const EVENT_KIND_CODE: Record<EventKind, number> = {
  boot: 1,
  timeout: 2,
  interval: 3,
  immediate: 4,
  io: 5,
  net: 6,
  fault: 7,
  call: 8,
};

/** The kind named by each code (the inverse of EVENT_KIND_CODE), for the trace. */
export const EVENT_KIND_NAME: readonly EventKind[] = (() => {
  const names: EventKind[] = [];
  for (const [kind, code] of Object.entries(EVENT_KIND_CODE)) names[code] = kind as EventKind;
  return names;
})();

// The fields every queue entry carries. Symbols, not names: a timer or an immediate is its own
// queue entry, and Node's Timeout and Immediate must show only Node's own enumerable keys.

/** Sequence number of the entry's live place in the queue; 0 when it is not queued. */
export const kSeq: unique symbol = Symbol('dst.seq');
/** The host (incarnation) the entry belongs to. */
export const kHost: unique symbol = Symbol('dst.host');
/** Its EventKind, as EVENT_KIND_CODE. */
export const kKind: unique symbol = Symbol('dst.kind');
/** A ref'd entry keeps the run alive while it is queued (timers account for themselves: false). */
export const kRef: unique symbol = Symbol('dst.ref');
/**
 * The async context to run in (captured when a timer or immediate was created, so the program's
 * own AsyncLocalStorage stores survive, as with real timers). Without one, the entry runs in a
 * context holding only its host.
 */
export const kScope: unique symbol = Symbol('dst.scope');
/** Where it was scheduled (first frame outside dst-runtime); captured only when needed. */
export const kSite: unique symbol = Symbol('dst.site');
/**
 * On an entry's prototype: true when its delay was measured on its host's own clock (a timer),
 * so a change of that host's drift re-times it while it is pending (World.setDrift).
 */
export const kLocalClock: unique symbol = Symbol('dst.localClock');
/** Runs the entry's work (a method on the entry's prototype). */
export const kFire: unique symbol = Symbol('dst.fire');
/**
 * On an Immediate (and a handle's close callback, World.scheduleClose): the turn of its host's loop
 * in whose check (or closing) phase it runs (World.checkTurn): loopback data read in an earlier
 * or the same turn's poll phase comes first.
 */
export const kCheckTurn: unique symbol = Symbol('dst.checkTurn');

/** Whether `entry` is a handle's close callback (World.scheduleClose: an I/O event with a turn). */
export function isCloseCallback(entry: { [kKind]: number; [kCheckTurn]?: number }): boolean {
  return entry[kKind] === EVENT_KIND_CODE.io && entry[kCheckTurn] !== undefined;
}

/**
 * One entry of the event queue: a SimEvent, or a simulated Timeout or Immediate, which is its own
 * entry so arming a timer allocates nothing. The queue keeps the sequence number an entry was
 * queued with beside it; an entry whose [kSeq] no longer matches (it was cancelled, or re-armed
 * elsewhere) is skipped, so cancelling and re-arming never search the queue.
 *
 * `H` is the type of its host: World's entries carry hosts of a World (see Host).
 */
export interface QueueEntry<H extends Host = Host> {
  [kSeq]: number;
  [kHost]: H;
  [kKind]: number;
  [kRef]: boolean;
  [kScope]: AsyncResource | undefined;
  [kSite]: string | undefined;
  [kLocalClock]?: boolean;
  [kFire](): void;
}

/** A queued call of `fn` (with `this` = `thisArg`): the runtime's own events. */
export class SimEvent<H extends Host = Host> implements QueueEntry<H> {
  [kSeq]: number;
  [kHost]: H;
  [kKind]: number;
  [kRef]: boolean;
  [kScope]: AsyncResource | undefined;
  [kSite]: string | undefined;
  readonly fn: (this: unknown) => void;
  readonly thisArg: unknown;
  /**
   * When its I/O was ready in the kernel, if before the instant it is due: a packet a host sent to
   * itself over loopback (scheduler/loop-phases.ts). Infinity otherwise (ready when due).
   */
  readyNs: number;
  /**
   * For a packet a host sent itself: the turn of its loop in whose poll phase it is read
   * (World.pollTurn); for a request's completion libuv runs from its pending queue, the turn that
   * runs it (World.pendingPhase); -1 otherwise.
   */
  pollTurn: number;
  /** For a handle's close callback: the turn whose closing phase runs it (World.scheduleClose). */
  [kCheckTurn]: number | undefined;

  constructor(
    seq: number,
    host: H,
    kind: EventKind,
    fn: (this: unknown) => void,
    thisArg: unknown,
    ref: boolean,
    scope: AsyncResource | undefined,
  ) {
    this[kSeq] = seq;
    this[kHost] = host;
    this[kKind] = EVENT_KIND_CODE[kind];
    this[kRef] = ref;
    this[kScope] = scope;
    this[kSite] = undefined;
    this.fn = fn;
    this.thisArg = thisArg;
    this.readyNs = Infinity;
    this.pollTurn = -1;
    this[kCheckTurn] = undefined;
  }

  [kFire](): void {
    this.fn.call(this.thisArg);
  }

  /** Cancelled (or never queued, for a host that was down): it will not run. */
  get cancelled(): boolean {
    return this[kSeq] === 0;
  }

  get host(): H {
    return this[kHost];
  }

  get kind(): EventKind {
    return EVENT_KIND_NAME[this[kKind]]!;
  }

  get site(): string | undefined {
    return this[kSite];
  }
}
