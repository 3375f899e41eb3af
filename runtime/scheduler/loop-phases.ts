import { EVENT_KIND_CODE } from './event.js';

/**
 * The order a Node process runs what came due while it could not run (a busy callback, event-loop
 * lag, a GC pause, a stopped or descheduled process). Measured in plain Node 20, 22 and 24
 * (docs/notes/node-facts.md, "What runs first after a busy callback or a stop"; pinned by
 * test/net/loop-phases.test.mjs and compliance programs 91/92): Node does not run such work in the order it
 * came due but phase by phase of libuv's loop — timers, then I/O (poll), then immediates (check) —
 * continuing from the phase the process was in:
 *
 * - a callback busy in the timers phase: the timers already due when that phase began, then the
 *   I/O that arrived meanwhile, then immediates, then the timers that came due meanwhile;
 * - busy in an I/O callback: the rest of that poll's I/O, then immediates, then timers, then the
 *   I/O that arrived meanwhile (an expired timeout runs before a reply that arrived first);
 * - busy in an immediate: the immediates of that check phase, then timers, then I/O, then the
 *   rest of the immediates;
 * - stopped while idle (SIGSTOP, a frozen container: epoll_wait returns EINTR on resume): timers
 *   first, then I/O, then immediates; stopped with immediates pending: those first, then timers,
 *   then I/O;
 * - busy in a main script, which runs before the loop starts: timers, I/O, then immediates (even
 *   those it queued before it was busy). A host's main function in library mode is one. Under
 *   `node --import` (register mode), Node 22 and 24 run the main module so too, but Node 20 runs
 *   it from inside the loop, as an I/O callback: its immediates run before the expired timers.
 *
 * Close callbacks (a destroyed socket's) have a phase of their own after check, libuv's closing
 * phase, which runs the newest first: a timer busy between two destroy() calls and an immediate
 * runs the immediate, then the second close, then the first. An immediate queued by a busy
 * immediate (before it spun) belongs to the next turn: after the timers that came due.
 *
 * Within a phase, entries keep the order they came due in (I/O in arrival order), except timers:
 * Node keeps one list per duration and runs each list's due timers together, lists in the order
 * their first timers came due (inTimerLists).
 */

/** libuv's phases, in loop order. */
export const PHASE_TIMERS = 0;
export const PHASE_POLL = 1;
export const PHASE_CHECK = 2;
/**
 * libuv's closing phase, after check: handles' close callbacks (which phaseOfKind, going by kind
 * alone, counts as I/O). World's turn counting (scheduler/phase-order.ts) and loopOrder, through
 * Waited.closing, tell it apart.
 */
export const PHASE_CLOSING = 4;
/** Not inside a callback: the process was idle (or stopped between callbacks). */
export const PHASE_IDLE = -1;
/** A main script, before the loop's first turn. */
export const PHASE_MAIN = 3;

/**
 * The phase a register-mode program's top level runs in: a main script's (before the loop) on
 * Node 22 and 24; on Node 20 too when it runs a CommonJS entry without its ESM loader, but when
 * Node 20 runs the entry through its ESM loader (an ES module, or any `--import`/`--loader`
 * flag: `node --import dst-runtime/register app.js`, how every replay command runs a program) it
 * evaluates it from inside the loop, after reading the file: as I/O (docs/notes/node-facts.md).
 */
export function topLevelPhase(esmLoader: boolean): number {
  return esmLoader && Number(process.versions.node.split('.')[0]) < 22 ? PHASE_POLL : PHASE_MAIN;
}

const KIND_TIMEOUT = EVENT_KIND_CODE.timeout;
const KIND_INTERVAL = EVENT_KIND_CODE.interval;
const KIND_IMMEDIATE = EVENT_KIND_CODE.immediate;
const KIND_BOOT = EVENT_KIND_CODE.boot;

/**
 * The loop phase code of an entry of this kind (an EVENT_KIND_CODE) runs in; a boot (a host's
 * main function) runs as a main script. (A program's top level: World's topLevelPhase.)
 */
export function phaseOfKind(kind: number): number {
  if (kind === KIND_TIMEOUT || kind === KIND_INTERVAL) return PHASE_TIMERS;
  if (kind === KIND_IMMEDIATE) return PHASE_CHECK;
  if (kind === KIND_BOOT) return PHASE_MAIN;
  // Packets, completed thread-pool work (fs, dns, crypto), signals: libuv's poll phase.
  return PHASE_POLL;
}

/**
 * An entry that waited: its kind (an EVENT_KIND_CODE), the instant it came due, and the instant
 * its I/O was ready in the kernel (`readyNs`: a packet a process sent itself over loopback is in
 * the peer socket's buffer when write() returns, before the simulated arrival; otherwise its due
 * instant).
 */
export interface Waited {
  readonly kind: number;
  readonly timeNs: number;
  readonly readyNs: number;
  /** A handle's close callback: libuv's closing phase, after check, newest first. */
  readonly closing?: boolean;
  /** An immediate of a later turn's check phase (queued by an immediate): never taken on by a busy one. */
  readonly nextTurn?: boolean;
  /** A timer's duration in whole ms (Node's `_idleTimeout`, truncated): the list of Node's it is in. */
  readonly timerList?: number;
  /** The order it was queued in (the queue's seq): close callbacks run newest first by it. */
  readonly seq?: number;
  /**
   * Its place in the order the end of a stall last made it ready in (Parking.makeReady), when it
   * was parked again before it ran: a timers phase busy again goes on in that order.
   */
  readonly readyOrder?: number;
}

/**
 * A PHASE_* to its place in loopOrder's lists (a turn: timers, poll, check, closing); -1 for
 * PHASE_IDLE and PHASE_MAIN, which are in no turn.
 */
export function phaseSlot(phase: number): number {
  if (phase === PHASE_CLOSING) return 3;
  return phase === PHASE_TIMERS || phase === PHASE_POLL || phase === PHASE_CHECK ? phase : -1;
}

/** The place in loopOrder's lists of the phase `w` runs in. */
export function waitedSlot(w: Waited): number {
  if (w.closing === true) return 3;
  const p = phaseOfKind(w.kind);
  return p === PHASE_TIMERS || p === PHASE_CHECK ? p : PHASE_POLL;
}

/**
 * Whether a phase busy since `sinceNs` had already taken `w` on (ready by then: the timers due
 * when it began, the I/O epoll returned, the immediates queued before it), when `w` is of it.
 */
export function takenOn(w: Waited, sinceNs: number): boolean {
  return w.readyNs <= sinceNs && w.nextTurn !== true;
}

/**
 * `waited` (in the order the entries came due) in the order Node runs them when the process can
 * run again, given the phase it was in when it stopped running (`phase`: a PHASE_*, or
 * PHASE_IDLE) at `sinceNs`. Returns a new array; stable within a phase.
 */
export function loopOrder<T extends Waited>(waited: readonly T[], phase: number, sinceNs: number): T[] {
  if (waited.length < 2) return waited.slice();
  const byPhase: [T[], T[], T[], T[]] = [[], [], [], []];
  for (const w of waited) byPhase[waitedSlot(w)]!.push(w);
  for (let i = 0; i < 3; i++) if (!isSortedByTime(byPhase[i]!)) byPhase[i]!.sort((a, b) => a.timeNs - b.timeNs);
  const timers = byPhase[PHASE_TIMERS];
  // The closing phase runs its newest first (uv__run_closing_handles walks a list it pushes on):
  // by the order they were queued in, not by their order here, which is already newest first for
  // entries a stall's end made ready and a later stall parked again (reversed, they flipped at
  // every stall of a lagging host: s0, s1, s2 on some seeds, s2, s1, s0 on others).
  const closing = byPhase[3];
  if (closing.length > 1 && closing.every((w) => w.seq !== undefined)) closing.sort((a, b) => b.seq! - a.seq!);
  else closing.reverse();
  const out: T[] = [];
  if (phase === PHASE_IDLE || phase === PHASE_MAIN) {
    byPhase[PHASE_TIMERS] = inTimerLists(timers);
    const first = phase === PHASE_IDLE && byPhase[PHASE_CHECK].length > 0 ? PHASE_CHECK : PHASE_TIMERS;
    for (let i = 0; i < 4; i++) out.push(...byPhase[(first + i) % 4]!);
    return out;
  }
  // Busy in `phase`: what that phase had already taken on (ready by `sinceNs`: the timers due when
  // it began, the I/O epoll returned, the immediates queued before it) first, then the phases
  // after it, then the rest of its own.
  const slot = phaseSlot(phase);
  let taken: T[] = [];
  let later: T[] = [];
  for (const w of byPhase[slot]!) (takenOn(w, sinceNs) ? taken : later).push(w);
  // Busy in the timers phase, its due timers' lists go on, and the rest are next turn's lists.
  // Timers a stall's end already ordered so, parked again when one of them was busy in turn, go
  // on in that order: Node's listOnTimeout runs the rest of its list before the next list, which
  // regrouping them by their first remaining timer did not (a lagging host ran a 30 ms list's
  // timer due at 52 before the 50 ms list's due at 55, after the one due at 50).
  if (slot === PHASE_TIMERS) {
    taken = taken.every((w) => w.readyOrder !== undefined) ? taken.sort((a, b) => a.readyOrder! - b.readyOrder!) : inTimerLists(taken);
    later = inTimerLists(later);
  } else {
    byPhase[PHASE_TIMERS] = inTimerLists(timers);
  }
  out.push(...taken);
  for (let i = 1; i < 4; i++) out.push(...byPhase[(slot + i) % 4]!);
  out.push(...later);
  return out;
}

/**
 * Timers due in one timers phase (`timers`, in the order they came due) in the order Node runs
 * them: its timers are in one list per duration, and processTimers takes the list whose first
 * timer is due first and runs every timer of it that is due before it looks at the next list
 * (listOnTimeout). So after a stall a 50 ms timer due at 55 runs right after one due at 50,
 * before a 30 ms timer due at 52.
 */
function inTimerLists<T extends Waited>(timers: T[]): T[] {
  if (timers.length < 3) return timers;
  // Keyed by duration; a timer with none known is a list of its own. A Map keeps the order of
  // each list's first timer, the one due first: the order processTimers takes the lists in.
  const lists = new Map<number | T, T[]>();
  for (const t of timers) {
    const key = t.timerList ?? t;
    const list = lists.get(key);
    if (list === undefined) lists.set(key, [t]);
    else list.push(t);
  }
  if (lists.size === 1 || lists.size === timers.length) return timers;
  const out: T[] = [];
  for (const list of lists.values()) out.push(...list);
  return out;
}

function isSortedByTime(list: readonly Waited[]): boolean {
  for (let i = 1; i < list.length; i++) if (list[i - 1]!.timeNs > list[i]!.timeNs) return false;
  return true;
}
