import type { Host } from '../hosts/host.js';
import { kSeq, type QueueEntry } from './event.js';

/** An entry taken out of the queue while its host is paused or stalled, with the seq it was queued under. */
export interface Parked<E extends QueueEntry> {
  host: Host;
  entry: E;
  seq: number;
}

/**
 * Entries held back from the queue because their host is paused or stalled: World.next() parks
 * them as they come due, in that order. When a host's stall ends its entries become ready: they
 * were due before the instant the stall ended, so they run then, before the queue's entries of
 * that instant. When a paused host resumes, World queues its entries again. An entry cancelled or
 * re-armed while parked has another seq by then, and is dropped.
 */
export class Parking<E extends QueueEntry> {
  /** Entries of paused or stalled hosts, in the order they came due. */
  private parked: Array<Parked<E>> = [];
  /**
   * Entries of hosts whose stall has ended, in the order they came due. World.next() reads its
   * length before every event, through a reference of its own: the array is never replaced.
   */
  readonly ready: Array<Parked<E>> = [];

  park(host: Host, entry: E, seq: number): void {
    this.parked.push({ host, entry, seq });
  }

  /** The hosts in `woken` ended their stall: their parked entries become ready, in order. */
  wake(woken: ReadonlySet<Host>): void {
    const parked = this.parked;
    this.parked = [];
    for (const p of parked) (woken.has(p.host) ? this.ready : this.parked).push(p);
  }

  /** Takes out `host`'s parked entries that are still live, in order (the host resumed). */
  unpark(host: Host): E[] {
    const live: E[] = [];
    const parked = this.parked;
    this.parked = [];
    for (const p of parked) {
      if (p.host !== host) {
        this.parked.push(p);
        continue;
      }
      if (p.entry[kSeq] === p.seq) live.push(p.entry);
    }
    return live;
  }

  /** Forgets every entry of `host` (it went down). */
  drop(host: Host): void {
    if (this.parked.length > 0) this.parked = this.parked.filter((p) => p.host !== host);
    if (this.ready.length > 0) {
      let kept = 0;
      for (const p of this.ready) if (p.host !== host) this.ready[kept++] = p;
      this.ready.length = kept;
    }
  }

  /** `host`'s live entries: ready ones first, then parked ones. */
  pendingOf(host: Host): E[] {
    const out: E[] = [];
    for (const p of [...this.ready, ...this.parked]) if (p.host === host && p.entry[kSeq] === p.seq) out.push(p.entry);
    return out;
  }

  clear(): void {
    this.parked = [];
    this.ready.length = 0;
  }
}
