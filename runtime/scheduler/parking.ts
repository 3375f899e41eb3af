import type { Host } from '../hosts/host.js';
import { EVENT_KIND_CODE, isCloseCallback, kCheckTurn, kKind, kSeq, type QueueEntry } from './event.js';

const KIND_IMMEDIATE = EVENT_KIND_CODE.immediate;
const KIND_TIMEOUT = EVENT_KIND_CODE.timeout;
const KIND_INTERVAL = EVENT_KIND_CODE.interval;

/**
 * An entry taken out of the queue while its host is paused or stalled, with the seq it was queued
 * under, its kind and the instant it came due (what scheduler/loop-phases.ts orders by).
 */
export interface Parked<E extends QueueEntry> {
  host: Host;
  entry: E;
  seq: number;
  kind: number;
  timeNs: number;
  readyNs: number;
  /** A handle's close callback (World.scheduleClose): the closing phase's. */
  closing: boolean;
  /**
   * An immediate queued for a later turn's check phase than its host's loop is in (queued by an
   * immediate): not one the check phase that was busy had taken on.
   */
  nextTurn: boolean;
  /**
   * Released by a stall's end into the phase the stall began in, among what that phase had
   * already taken on: the instant that phase began (World.phaseStartNs), which it keeps when
   * this entry's own callback is busy in turn.
   */
  phaseStartNs?: number;
  /** A timer's duration in ms: the list of Node's it is in (loop-phases.ts inTimerLists). */
  timerList?: number;
  /** Its place in the order the last stall's end made it ready in (makeReady; loop-phases.ts). */
  readyOrder?: number;
}

/**
 * Entries held back from the queue because their host is paused or stalled: World.next() parks
 * them as they come due, in that order. When a host's stall ends its entries become ready: they
 * were due before the instant the stall ended, so they run then, before the queue's entries of
 * that instant, in the order World gives them (Node's loop phases: loop-phases.ts). When a paused
 * host resumes, World queues its entries again. An entry cancelled or re-armed while parked has
 * another seq by then, and is dropped.
 */
export class Parking<E extends QueueEntry> {
  /** Entries of paused or stalled hosts, in the order they came due. */
  private parked: Array<Parked<E>> = [];
  /**
   * Entries of hosts whose stall has ended, in the order they came due. World.next() reads its
   * length before every event, through a reference of its own: the array is never replaced.
   */
  readonly ready: Array<Parked<E>> = [];

  /**
   * `loopTurn`: the turn of the loop the entry's process is in, when it is not its host's (a
   * chain of program faults: a process of a plain program, whose loop goes round with its own
   * callbacks, not with the other chains').
   */
  park(host: Host, entry: E, seq: number, timeNs: number, loopTurn = host.loopTurn): void {
    const readyNs = (entry as { readyNs?: number }).readyNs;
    const kind = entry[kKind];
    const turn = (entry as { [kCheckTurn]?: number })[kCheckTurn];
    const closing = isCloseCallback(entry);
    const nextTurn = kind === KIND_IMMEDIATE && turn !== undefined && turn > loopTurn;
    const parked: Parked<E> = { host, entry, seq, kind, timeNs, readyNs: readyNs !== undefined && readyNs < timeNs ? readyNs : timeNs, closing, nextTurn };
    if (kind === KIND_TIMEOUT || kind === KIND_INTERVAL) {
      // Node's list of the timer: its duration truncated to whole ms, as insert() keys its lists
      // (a simulated Timeout keeps Node's _idleTimeout, which may be fractional): a 10.5 ms timer
      // is in the 10 ms list, in the order it was armed among that list's timers. Keyed by the
      // raw 10.5 it was a list of its own, and ran after the 10 ms timers armed after it once a
      // stall or lag had held them (a probe, 2026-12-06: xacb where Node gives xabc).
      const duration = (entry as { _idleTimeout?: unknown })._idleTimeout;
      if (typeof duration === 'number') parked.timerList = Math.trunc(duration);
    }
    this.parked.push(parked);
  }

  /** Parks again an entry taken from `ready` (a new stall began before it ran). */
  repark(p: Parked<E>): void {
    this.parked.push(p);
  }

  /**
   * Takes out the parked entries `woken` answers true for (their host's or chain's stall ended),
   * in the order they were parked; they become ready when World passes them to makeReady().
   */
  take(woken: (p: Parked<E>) => boolean): Array<Parked<E>> {
    const parked = this.parked;
    const taken: Array<Parked<E>> = [];
    this.parked = [];
    for (const p of parked) (woken(p) ? taken : this.parked).push(p);
    return taken;
  }

  /** Entries whose stall ended, to run in this order (one still held is parked again by World.next()). */
  makeReady(entries: ReadonlyArray<Parked<E>>): void {
    for (const p of entries) {
      p.readyOrder = ++this.readyCount;
      this.ready.push(p);
    }
  }

  /** How many entries makeReady() has made ready (their readyOrder). */
  private readyCount = 0;

  /** Takes out `host`'s parked entries that are still live, in order (the host resumed). */
  unpark(host: Host): Array<Parked<E>> {
    const live: Array<Parked<E>> = [];
    const parked = this.parked;
    this.parked = [];
    for (const p of parked) {
      if (p.host !== host) {
        this.parked.push(p);
        continue;
      }
      if (p.entry[kSeq] === p.seq) live.push(p);
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
