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

/**
 * One entry of the event queue. Entries are never mutated once queued (their position in the
 * heap depends on timeNs and seq); cancelling marks them, and the queue skips marked entries.
 */
export class SimEvent {
  readonly timeNs: number;
  readonly seq: number;
  readonly host: Host;
  readonly kind: EventKind;
  readonly fn: (this: unknown) => void;
  readonly thisArg: unknown;
  /** A ref'd event keeps the simulation alive while it is pending (like a ref'd handle). */
  readonly ref: boolean;
  /**
   * The async context to run in (captured when a timer or immediate was created, so the
   * program's own AsyncLocalStorage stores survive, as with real timers). Without one, the
   * event runs in a fresh context holding only its host.
   */
  readonly scope: AsyncResource | undefined;
  cancelled = false;
  /** Where it was scheduled (first frame outside dst-runtime); captured only when tracing. */
  site: string | undefined = undefined;

  constructor(
    timeNs: number,
    seq: number,
    host: Host,
    kind: EventKind,
    fn: (this: unknown) => void,
    thisArg: unknown,
    ref: boolean,
    scope: AsyncResource | undefined,
  ) {
    this.timeNs = timeNs;
    this.seq = seq;
    this.host = host;
    this.kind = kind;
    this.fn = fn;
    this.thisArg = thisArg;
    this.ref = ref;
    this.scope = scope;
  }
}
