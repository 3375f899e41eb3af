import type { AsyncResource } from 'node:async_hooks';
import { HostClock } from '../clock/host-clock.js';
import type { RandomStream } from '../random/stream.js';

/** The CPU time one event of a host counts for (10 µs): see Host.cpuNs. */
export const EVENT_CPU_NS = 10_000;

export type HostRole = 'host' | 'client' | 'system';
/** running: alive; crashed: killed (SIGKILL) or died of an error; exited: process.exit or stop. */
export type HostState = 'running' | 'crashed' | 'exited';

/**
 * What a host asks of the world it lives in (World implements it): the seed's streams, the
 * current instant, and the clock reads of its code, which may have spun past that instant.
 */
export interface HostWorld {
  /** Virtual time now (ns): a new incarnation's clock starts here. */
  readonly nowNs: number;
  /** Date.now() at virtual time zero, before skew. */
  readonly epochMs: number;
  /** A random stream derived from (seed, name) alone. */
  stream(name: string): RandomStream;
  /** Virtual time as `host`'s code reads it now (see World.clockNowNs). */
  clockNowNs(host: Host): number;
  /** The CPU time `host`'s code has spent spinning on the clock in the current event. */
  spinningNs(host: Host): number;
}

/**
 * One incarnation of a simulated machine: a name, its own clock, its own random streams. A
 * restart creates a new Host object with the next incarnation number, so code of the old
 * incarnation that still runs (a leftover microtask) is recognised by its context and can
 * neither schedule nor send. Streams are named `host:<name>:boot<incarnation>:<purpose>` so two
 * hosts, or two boots of one host, never share draws.
 *
 * `W` is the type of its world: the layers below World know it as a HostWorld only; World and
 * the shims, which reach the whole simulation through `host.world`, as a World (WorldHost).
 */
export class Host<W extends HostWorld = HostWorld> {
  readonly world: W;
  readonly name: string;
  /** Position in the world's host list; what the fingerprint records for this host. */
  readonly index: number;
  readonly role: HostRole;
  readonly incarnation: number;
  state: HostState = 'running';
  /** A paused host's events wait (in order, parked: scheduler/parking.ts) until it is resumed. */
  paused = false;
  /**
   * A stalled host's events wait until this virtual instant (World.stall: a busy loop, a GC
   * pause, a descheduled VM); 0 when it is not stalled.
   */
  stalledUntilNs = 0;
  /**
   * Where the host's loop was when its current stall began (a PHASE_* of
   * scheduler/loop-phases.ts; PHASE_IDLE when not inside a callback) and when: what decides the
   * order its waiting entries run in once the stall ends.
   */
  stallPhase = -1;
  stallSinceNs = 0;
  /** When its last stall ended (-1: none yet): a chain stall that starts then takes up its place. */
  stallEndedNs = -1;
  /**
   * Where this incarnation's loop is within an instant (World.noteLoopTurn): its turn, counted
   * from its start (a new one whenever virtual time moved, or its phase came round again), and
   * the phase and instant of the last callback it ran. What decides whether loopback data it
   * sent itself is read before an immediate it queued (scheduler/loop-phases.ts).
   */
  loopTurn = 0;
  loopPhase = 3; // PHASE_MAIN: a process starts in its main script
  loopNs = -1;
  /**
   * This incarnation went down with its machine (Sim.crash: a power loss), not only its process:
   * until the host boots again nothing answers at its addresses (Network.machineOff).
   */
  poweredOff = false;
  /** Events this incarnation has run: its CPU time (cpuNs) grows with them. */
  eventsRun = 0;
  /** CPU time this incarnation spent spinning on its clock (World.clockNowNs). */
  spunNs = 0;
  /** Of spunNs, what its first tick spun (before its event loop started: no loop time). */
  bootSpunNs = 0;
  /** Ref'd handles and pending ref'd events of this incarnation (part of world.refs). */
  refs = 0;
  /** For clients: the main function has settled. */
  mainDone = false;
  clock: HostClock;
  /** The async scope this incarnation's events run in, made on its first (see World.hostScope()). */
  scope: AsyncResource | undefined = undefined;
  private mathStream: RandomStream | undefined;
  private cryptoStream: RandomStream | undefined;

  constructor(world: W, name: string, index: number, role: HostRole, skewMs: number, incarnation = 1, driftPpm = 0) {
    this.world = world;
    this.name = name;
    this.index = index;
    this.role = role;
    this.incarnation = incarnation;
    const origin = world.stream(`host:${name}:boot${incarnation}:clock`);
    // Like a machine's uptime when the process starts: somewhere in its first ~11 days.
    const hrtimeOriginNs = origin.int(1, 1_000_000) * 1_000_000_000 + origin.int(0, 1_000_000_000);
    this.clock = new HostClock(world.nowNs, world.epochMs, skewMs, hrtimeOriginNs, driftPpm);
    this.loopNs = world.nowNs;
  }

  /** Math.random's stream for this incarnation. */
  get math(): RandomStream {
    return (this.mathStream ??= this.stream('math'));
  }

  /** The stream behind crypto.getRandomValues / randomBytes / randomUUID / randomInt. */
  get crypto(): RandomStream {
    return (this.cryptoStream ??= this.stream('crypto'));
  }

  /** A named stream private to this host incarnation. */
  stream(purpose: string): RandomStream {
    return this.world.stream(`host:${this.name}:boot${this.incarnation}:${purpose}`);
  }

  get alive(): boolean {
    return this.state === 'running';
  }

  /** Virtual time as this host's code reads it now (World.clockNowNs). */
  readNowNs(): number {
    return this.world.clockNowNs(this);
  }

  /** Date.now() on this host. */
  dateNowMs(): number {
    return this.clock.dateNowMs(this.world.clockNowNs(this));
  }

  /**
   * The CPU time this incarnation has used, deterministically: EVENT_CPU_NS for each event it ran,
   * plus the time it spent spinning on its clock. (What process.cpuUsage() and friends report.)
   */
  get cpuNs(): number {
    return this.eventsRun * EVENT_CPU_NS + this.spunNs + this.world.spinningNs(this);
  }

  toString(): string {
    return `host "${this.name}" (boot ${this.incarnation})`;
  }
}
