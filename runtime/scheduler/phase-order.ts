import type { Host } from '../hosts/host.js';
import { EVENT_KIND_CODE, isCloseCallback, kCheckTurn, kKind, kSeq, type QueueEntry, type SimEvent } from './event.js';
import { PHASE_CHECK, PHASE_CLOSING, PHASE_POLL } from './loop-phases.js';

const KIND_IO = EVENT_KIND_CODE.io;
const KIND_IMMEDIATE = EVENT_KIND_CODE.immediate;

/** An entry that carries the turn of its host's loop whose check or closing phase runs it. */
type TurnEntry<H extends Host> = QueueEntry<H> & { [kCheckTurn]?: number };

/** A close callback or an immediate this order holds, and the instant it is due. */
interface Held<H extends Host> {
  readonly entry: TurnEntry<H>;
  readonly dueNs: number;
}

/**
 * The order libuv's phases give one host's work that is due at the same instant, where the
 * queue's order (the order the work was queued in) is not Node's. Each turn of a loop runs
 * timers, then poll (I/O), then check (immediates), then the closing phase (handles' close
 * callbacks); and:
 *
 * - loopback data a process sends itself is in the peer socket's buffer when write() returns, and
 *   is read in the poll phase of this turn or the next (SimEvent.pollTurn), though its simulated
 *   arrival is a few µs later: before an immediate or a close callback of the same or a later
 *   turn;
 * - a read libuv goes on to make of a socket in the same poll (World.continuePoll) runs there;
 * - a request libuv completes through its pending queue (uv__io_feed: a shutdown, a connect's
 *   delayed error) runs in the same turn when queued before the check phase (libuv runs pending
 *   callbacks after the timers and again right after poll), in the next when queued in check or
 *   closing: as poll-phase work here (SimEvent.pollTurn);
 * - a close callback runs in the closing phase of the turn it was queued in (of the next, when
 *   queued from a close callback): after the immediates queued before that phase, even those
 *   queued after the handle was closed, and before the immediates of later turns, even those
 *   queued before it;
 * - one closing phase runs its callbacks newest first (uv__make_close_pending pushes the
 *   handle on the front of a list; uv__run_closing_handles walks it from the front).
 *
 * World asks before() which entry runs instead of the one the queue holds next; the one it returns
 * runs now and its place in the queue becomes stale. Nothing is held while none of this host's
 * close callbacks or poll-phase work is pending, so the common path costs a counter read.
 */
export class PhaseOrder<H extends Host> {
  /**
   * Poll-phase work not yet run, per host, in queue order: loopback packets, pending-queue
   * completions, and reads libuv goes on to make in a poll (World.continuePoll).
   */
  private readonly polled = new Map<H, SimEvent<H>[]>();
  private polledCount = 0;
  /** How many of `polled` are completions of libuv's pending queue (kind io). */
  private completions = 0;
  /** Close callbacks not yet run, per host, in the order they were queued. */
  private readonly closing = new Map<H, Held<H>[]>();
  private closingCount = 0;
  /** Immediates a host queued while one of its close callbacks was pending, in queue order. */
  private readonly immediates = new Map<H, Held<H>[]>();

  /** Whether before() may pick anything: some host has poll-phase work or a close callback pending. */
  get active(): boolean {
    return this.polledCount > 0 || this.closingCount > 0;
  }

  /** Whether some host has a completion of its pending queue not yet run (completionBefore). */
  get completionsPending(): boolean {
    return this.completions > 0;
  }

  /** Whether immediates must be noted (noteImmediate): some close callback is pending. */
  get closesPending(): boolean {
    return this.closingCount > 0;
  }

  /**
   * A loopback packet `host` will read in the poll phase of turn `packet.pollTurn`, a completion
   * its pending queue runs in that turn, or a read it makes in that poll.
   */
  notePoll(host: H, packet: SimEvent<H>): void {
    let list = this.polled.get(host);
    if (list === undefined) this.polled.set(host, (list = []));
    list.push(packet);
    this.polledCount++;
    if (packet[kKind] === KIND_IO) this.completions++;
  }

  /**
   * A completion of `host`'s pending queue (a shutdown's) that runs before `next`, a read of the
   * poll of turn `next.pollTurn` due now: libuv runs the pending queue before poll. Undefined when
   * none is due by then.
   */
  completionBefore(next: SimEvent<H>, host: H): SimEvent<H> | undefined {
    const list = this.polled.get(host);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) {
      const entry = list[i]!;
      if (entry[kKind] !== KIND_IO || entry === next) continue;
      if (entry[kSeq] === 0) this.takePolled(host, list, i--);
      else if (entry.pollTurn <= next.pollTurn) return this.takePolled(host, list, i);
    }
    return undefined;
  }

  /**
   * Poll-phase work of `host` for an earlier turn than `next`'s, itself work of the poll of turn
   * `next.pollTurn` due now (an accept that waited for a later poll): libuv ran that earlier
   * poll first, though the simulated arrival of what it read is a few µs later. With
   * `sameTurnToo` (`next` is the first read of a socket epoll starts watching at that poll), also
   * what that poll reads of other sockets. Undefined when there is none.
   */
  earlierPoll(next: SimEvent<H>, host: H, sameTurnToo = false): SimEvent<H> | undefined {
    const list = this.polled.get(host);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) {
      const entry = list[i]!;
      if (entry[kSeq] === 0) this.takePolled(host, list, i--);
      else if (entry !== next && (entry.pollTurn < next.pollTurn || (sameTurnToo && entry.pollTurn === next.pollTurn && entry[kKind] !== KIND_IO))) return this.takePolled(host, list, i);
    }
    return undefined;
  }

  /** A close callback of `host`, due at `dueNs`, run in the closing phase of turn `event[kCheckTurn]`. */
  noteClose(host: H, event: SimEvent<H>, dueNs: number): void {
    let list = this.closing.get(host);
    if (list === undefined) this.closing.set(host, (list = []));
    list.push({ entry: event, dueNs });
    this.closingCount++;
  }

  /** An immediate `host` queued (due at `dueNs`): held only while one of its close callbacks is pending. */
  noteImmediate(host: H, immediate: TurnEntry<H>, dueNs: number): void {
    if (!this.closing.has(host)) return;
    let list = this.immediates.get(host);
    if (list === undefined) this.immediates.set(host, (list = []));
    list.push({ entry: immediate, dueNs });
  }

  /** `entry` of `host` runs now (whichever way it was picked): it is no longer pending. */
  ran(host: H, entry: TurnEntry<H>): void {
    const kind = entry[kKind];
    if (kind === KIND_IMMEDIATE) {
      const list = this.immediates.get(host);
      if (list !== undefined) removeHeld(list, entry);
      return;
    }
    if ((entry as SimEvent<H>).pollTurn >= 0 && this.polledCount > 0) {
      const list = this.polled.get(host);
      const i = list === undefined ? -1 : list.indexOf(entry as SimEvent<H>);
      if (i >= 0) this.takePolled(host, list!, i);
    }
    if (this.closingCount > 0 && isCloseCallback(entry)) {
      const list = this.closing.get(host);
      if (list !== undefined && removeHeld(list, entry)) this.closeDone(host, list);
    }
  }

  /**
   * `host` went down: nothing of it is held any more (it runs nothing now; its packets still
   * queued arrive as usual).
   */
  forget(host: H): void {
    const polled = this.polled.get(host);
    if (polled !== undefined) {
      this.polledCount -= polled.length;
      for (const entry of polled) if (entry[kKind] === KIND_IO) this.completions--;
      this.polled.delete(host);
    }
    const closing = this.closing.get(host);
    if (closing !== undefined) {
      this.closingCount -= closing.length;
      this.closing.delete(host);
    }
    this.immediates.delete(host);
  }

  /**
   * What of `host`'s pending work runs before `next` (an immediate or a close callback of `host`,
   * the next entry in queue order, due now at `nowNs`), as libuv's phases order them; undefined
   * when `next` runs first. Of what comes before `next`, the one libuv runs first: the earliest
   * turn; in a turn, poll (the first packet sent, completion or read queued) before check
   * (the immediate queued first) before closing (the close callback queued last). `only`
   * (program faults' chains): only what it accepts (the chain of `next`).
   */
  before(next: TurnEntry<H>, host: H, nowNs: number, only?: (entry: QueueEntry<H>) => boolean): QueueEntry<H> | undefined {
    const turn = next[kCheckTurn];
    if (turn === undefined) return undefined;
    const kind = next[kKind];
    const phase = kind === KIND_IMMEDIATE ? PHASE_CHECK : kind === KIND_IO ? PHASE_CLOSING : -1;
    if (phase < 0) return undefined;
    let best: QueueEntry<H> | undefined;
    let bestTurn = turn;
    let bestPhase = phase;
    const packets = this.polled.get(host);
    if (packets !== undefined) {
      for (let i = 0; i < packets.length; i++) {
        const packet = packets[i]!;
        // Cancelled: it will never run.
        if (packet[kSeq] === 0) this.takePolled(host, packets, i--);
        else if (packet.pollTurn <= turn && (only === undefined || only(packet))) {
          best = packet;
          bestTurn = packet.pollTurn;
          bestPhase = PHASE_POLL;
          break;
        }
      }
    }
    const closes = this.closing.get(host);
    if (closes !== undefined) {
      const immediates = this.immediates.get(host);
      if (immediates !== undefined) {
        // In queue order: of one turn's, the first.
        for (let i = 0; i < immediates.length; i++) {
          const { entry, dueNs } = immediates[i]!;
          if (entry[kSeq] === 0) immediates.splice(i--, 1);
          else if (entry !== next && dueNs <= nowNs && (only === undefined || only(entry))) {
            const t = entry[kCheckTurn]!;
            if (t < bestTurn || (t === bestTurn && PHASE_CHECK < bestPhase)) {
              best = entry;
              bestTurn = t;
              bestPhase = PHASE_CHECK;
            }
          }
        }
      }
      // In queue order: of one turn's, the last (the closing phase runs its newest first).
      for (let i = 0; i < closes.length; i++) {
        const { entry, dueNs } = closes[i]!;
        if (entry[kSeq] === 0) {
          closes.splice(i--, 1);
          this.closeDone(host, closes);
        } else if (entry !== next && dueNs <= nowNs && (only === undefined || only(entry))) {
          const t = entry[kCheckTurn]!;
          if (t < bestTurn || (t === bestTurn && bestPhase === PHASE_CLOSING)) {
            best = entry;
            bestTurn = t;
            bestPhase = PHASE_CLOSING;
          }
        }
      }
    }
    if (best !== undefined && bestPhase === PHASE_POLL) {
      const list = this.polled.get(host)!;
      return this.takePolled(host, list, list.indexOf(best as SimEvent<H>));
    }
    return best;
  }

  /** Takes the entry at `i` out of `host`'s poll-phase list. */
  private takePolled(host: H, list: SimEvent<H>[], i: number): SimEvent<H> {
    const [packet] = list.splice(i, 1);
    this.polledCount--;
    if (packet![kKind] === KIND_IO) this.completions--;
    if (list.length === 0) this.polled.delete(host);
    return packet!;
  }

  /** One of `host`'s close callbacks left `list`: with none left, its immediates are not held. */
  private closeDone(host: H, list: Held<H>[]): void {
    this.closingCount--;
    if (list.length > 0) return;
    this.closing.delete(host);
    this.immediates.delete(host);
  }
}

/** Removes `entry`'s place from `list`; whether it was there. */
function removeHeld<H extends Host>(list: Held<H>[], entry: QueueEntry<H>): boolean {
  for (let i = 0; i < list.length; i++) {
    if (list[i]!.entry === entry) {
      list.splice(i, 1);
      return true;
    }
  }
  return false;
}
