/**
 * Real work a host starts and the simulation must wait for: an asynchronous fs call, a zlib
 * write, a crypto job on Node's thread pool. Each call holds the whole simulation (no event runs,
 * virtual time stands still) from the moment it starts until it completes; its completion then
 * reaches host code as an 'io' event at that same instant. Completions are passed on in the
 * order the calls were made, whatever order the thread pool finished them in, each in its own
 * event (so the promise continuations of one settle before the next, as between two I/O
 * callbacks in Node). One line per world, shared by every kind of call, so a gzip and a file read
 * started in that order complete in that order too.
 *
 * Without the hold, virtual time ran on while the thread pool worked, and where a completion
 * landed among the simulated events depended on how fast the real machine was: not a function
 * of the seed.
 */
import type { AsyncResource } from 'node:async_hooks';
import type { Host } from '../context.js';
import type { World } from '../../runtime/world.js';
import { activeDomain, type DomainLike, runEnteredIn } from '../../runtime/driver/outside-domain.js';
import { captureSite } from '../../runtime/trace/site.js';
import { queueOwnImmediate } from '../../runtime/driver/own-immediates.js';
import { nativeHoldActive } from '../timers/native-immediates.js';

/** One asynchronous call in flight, completed in call order. */
export interface RealCall {
  host: Host;
  /** Passes the completion on to host code; set when the real call completes. */
  deliver: (() => void) | undefined;
  release: () => void;
  /** The async context to deliver in (the program's own ALS stores), as for timers. */
  scope: AsyncResource | undefined;
  /** Where the program made the call, when the world records sites (a trace, a limit close). */
  site: string | undefined;
  /** The node:domain active at the call, entered around the completion as Node's domain hooks do. */
  domain: DomainLike | undefined;
  /** Delivered by calling `deliver` when the line reaches it, not in an 'io' event (completeRealCallInLine). */
  inLine?: boolean;
}

/** Each world's calls in flight, oldest first. */
const inFlight = new WeakMap<World, RealCall[]>();

/** Starts holding the simulation for a call `host` is making now. */
export function beginRealCall(host: Host, scope: AsyncResource | undefined): RealCall {
  const world = host.world;
  let calls = inFlight.get(world);
  if (calls === undefined) inFlight.set(world, (calls = []));
  const site = world.captureSites ? captureSite() : undefined;
  const call: RealCall = { host, deliver: undefined, release: world.holdForRealWork(), scope, site, domain: activeDomain() };
  calls.push(call);
  return call;
}

/** The completion of a call whose settlement its host has already seen, where it happened. */
const IN_PLACE = (): void => {};

/** Records `call`'s completion and passes on every completed call at the head of the line. */
export function completeRealCall(call: RealCall, deliver: () => void): void {
  call.deliver = deliver;
  flush(call.host.world);
}

/**
 * Records `call`'s completion as `deliver`, called as the line reaches it (after the completions
 * of the calls made before it have been queued), between events: it queues the events itself
 * (a port's messages, which Node dispatches in a poll phase: shims/worker-threads/messaging.ts).
 */
export function completeRealCallInLine(call: RealCall, deliver: () => void): void {
  call.inLine = true;
  completeRealCall(call, deliver);
}

/** Records that `call`'s settlement happens where its own code settles it (the line only kept the hold). */
export function completeInPlace(call: RealCall): void {
  completeRealCall(call, IN_PLACE);
}

/** A call that threw synchronously (bad arguments): nothing to wait for, nothing to deliver. */
export function abandonRealCall(call: RealCall): void {
  const world = call.host.world;
  const calls = inFlight.get(world);
  const at = calls?.indexOf(call) ?? -1;
  if (at !== -1) calls!.splice(at, 1);
  call.release();
  flush(world); // the calls behind it may all be done already
}

/**
 * Every completed call at the head of the line becomes an 'io' event of its host at the current
 * instant, in call order. (A host that is down by then gets none: a killed process sees no
 * callbacks.) The simulation stays held while any call is in flight, so these events cannot run
 * before the others are queued.
 */
function flush(world: World): void {
  const calls = inFlight.get(world);
  if (calls === undefined) return;
  // Native immediates the last event queued (Http2Session's frame writes, TLSWrap's deferred
  // writes) run in the next check phase and write to the simulated network: a completion that
  // arrives first (poll phase) waits behind them, so its 'io' event is always queued after their
  // bytes, whatever the thread pool's speed (an fs stream piped into an HTTP/2 stream).
  if (nativeHoldActive() && calls.length > 0 && calls[0]!.deliver !== undefined) {
    queueOwnImmediate(() => flush(world));
    return;
  }
  while (calls.length > 0 && calls[0]!.deliver !== undefined) {
    const head = calls.shift()!;
    if (head.inLine === true) head.deliver!();
    else if (head.deliver !== IN_PLACE) {
      const { domain, deliver: completion } = head;
      const deliver = domain === undefined ? completion! : () => runEnteredIn(domain, completion!);
      world.schedule(head.host, 0, 'io', deliver, undefined, true, head.scope, head.site);
    }
    head.release();
  }
}

/**
 * Delivers a completion to `host` in an 'io' event `delayNs` from now, outside the line of calls
 * in flight: for work the simulation does itself and that takes virtual time (a simulated disk
 * with latency). Entered in the node:domain active now, as a held call's completion would be.
 */
export function deliverAfter(host: Host, delayNs: number, scope: AsyncResource | undefined, completion: () => void): void {
  const world = host.world;
  const site = world.captureSites ? captureSite() : undefined;
  const domain = activeDomain();
  const deliver = domain === undefined ? completion : () => runEnteredIn(domain, completion);
  world.schedule(host, delayNs, 'io', deliver, undefined, true, scope, site);
}

/** Makes the real call (`start`) as a held call of `host`; a synchronous throw abandons the call and is rethrown. */
function startHeld(host: Host, start: () => Promise<unknown>): { call: RealCall; real: Promise<unknown> } {
  const call = beginRealCall(host, undefined);
  try {
    return { call, real: start() };
  } catch (error) {
    abandonRealCall(call);
    throw error;
  }
}

/** A promise that settles in `call`'s 'io' event, with what `real` settles with. */
export function settleInEvent(call: RealCall, real: Promise<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    real.then(
      (value) => completeRealCall(call, () => resolve(value)),
      (error: unknown) => completeRealCall(call, () => reject(error)),
    );
  });
}

/**
 * Runs `start` (which makes the real call and returns its promise) as a held call of `host`: the
 * promise returned settles in an 'io' event, in call order. A synchronous throw passes through.
 */
export function heldPromise(host: Host, start: () => Promise<unknown>): Promise<unknown> {
  const { call, real } = startHeld(host, start);
  return settleInEvent(call, real);
}

/**
 * Runs `start` as a held call of `host` whose promise is handed back as it is: it settles where
 * Node settles it, and the simulation waits (no event runs) until it has. For work that settles
 * within the current turn's promise jobs, or from the task Node runs next, where moving the
 * settlement to an event of its own would move it behind work plain Node runs after it.
 */
export function heldInPlace(host: Host, start: () => Promise<unknown>): Promise<unknown> {
  const { call, real } = startHeld(host, start);
  const done = (): void => completeInPlace(call);
  real.then(done, done);
  return real;
}
