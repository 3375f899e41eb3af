import { type AsyncLocalStorage, AsyncResource, executionAsyncId, executionAsyncResource } from 'node:async_hooks';
import { formatTimeNs, NS_PER_MS } from './clock/units.js';
import { HostDisks } from './disk/disks.js';
import type { ResolvedRule } from './disk/faults.js';
import { Driver, DRIVER_BATCH } from './driver/driver.js';
import { assert, UsageError } from './errors.js';
import { type FailureKind, type FailureReport, runtimeError } from './failure.js';
import type { Host, HostState, HostWorld } from './hosts/host.js';
import { HostLifecycle, type LifecycleLoop } from './hosts/lifecycle.js';
import { NativeResources } from './hosts/native-resources.js';
import { once } from './once.js';
import type { DiskMode } from './options.js';
import { originals } from './originals.js';
import { alsEnable, alsRun, FRAMED_CONTEXT, processAls, RESOURCE_STORE, ROOT_SCOPE } from './driver/event-context.js';
import { handleAsyncId, RUNTIME_SCOPE_TYPES, runtimeCallback, runtimeScope } from './driver/runtime-resources.js';
import { outsideDomain } from './driver/outside-domain.js';
import { formatSeed } from './random/seed.js';
import { RandomStream } from './random/stream.js';
import {
  EVENT_KIND_CODE,
  EVENT_KIND_NAME,
  type EventKind,
  kCheckTurn,
  kFire,
  kHost,
  kKind,
  kLocalClock,
  kRef,
  kScope,
  kSeq,
  kSite,
  type QueueEntry,
  SimEvent,
} from './scheduler/event.js';
import { Parking, type Parked } from './scheduler/parking.js';
import { loopOrder, phaseOfKind, phaseSlot, takenOn, waitedSlot, PHASE_CHECK, PHASE_CLOSING, PHASE_IDLE, PHASE_MAIN, PHASE_POLL, PHASE_TIMERS } from './scheduler/loop-phases.js';
import { PhaseOrder } from './scheduler/phase-order.js';
import { EventQueue } from './scheduler/queue.js';
import { keepShapesOf, shapesKept, startShapeKeeper } from './scheduler/shape-keeper.js';
import { DEFAULT_LATENCY, LOOPBACK_AT_ONCE_NS, Network, type NetworkOptions, type NetworkWorld } from './network/network.js';
import { Fingerprint } from './trace/fingerprint.js';
import { captureSite, failureSite } from './trace/site.js';
import { TraceWriter } from './trace/trace-writer.js';

/** A host of a World: its `world` is the whole simulation (lower layers see a HostWorld only). */
export type WorldHost = Host<World>;
/** An entry of a World's queue: a SimEvent, Timeout or Immediate of one of its hosts. */
type WorldEntry = QueueEntry<WorldHost>;

/** How a culprit without a place in the program is named (limitTripped). */
const UNKNOWN_PLACE = 'an unknown place';

export type WorldMode = 'library' | 'register';

/** The trace's format, named by its first line: 2 added annotations (send, recv, conn, action, stall, failure). */
export const TRACE_FORMAT = 'dst-trace/2';

export interface WorldOptions {
  seed: bigint;
  mode: WorldMode;
  /** Date.now() at virtual time zero, before host skew. */
  epochMs: number;
  /** The run fails when more events than this would run. */
  eventsMax: number;
  /** The run fails when ref'd work is still pending at this virtual time. */
  timeLimitNs: number;
  /** The run stops cleanly (a budget, not a failure) at this virtual time. */
  durationNs: number | undefined;
  /** Latency, loss, duplication and TCP timeout of the simulated network. */
  network?: NetworkOptions;
  traceFile: string | undefined;
  /** The command that replays this run, printed with every failure. */
  replay: string;
  /** Library mode: fail the run when host code's real timers escape the simulation (default false). */
  strict?: boolean;
  /** 'simulated': every host has a disk of its own over the real files (runtime/disk). Default 'real'. */
  disk?: DiskMode;
  /** Disk faults (validated): which hosts' disks fail, tear, fill up or lag, and on which paths. */
  diskFaults?: ResolvedRule[];
  /** Track the promises host code creates, to report those never settled (SimOptions.pending). */
  pending?: boolean;
  /**
   * The loop phase a register-mode program's top level runs in (loop-phases.ts topLevelPhase):
   * where its loop goes on after the top level was busy. Default PHASE_MAIN.
   */
  topLevelPhase?: number;
}

export type StopReason = 'quiescent' | 'idle' | 'clients-done' | 'duration' | 'failure';

/** Where a run stands when it ends. */
export interface WorldOutcome {
  reason: StopReason;
  failure: FailureReport | undefined;
}

/** A delay that is not a whole number of ns: a bug in the shim that asked (out of line, as noteEntry). */
function badDelay(delayNs: number): void {
  assert(false, `delayNs must be a non-negative integer, got ${delayNs}`);
}

/** Fraction of a limit after which the runtime starts recording who schedules events. */
const CULPRIT_WATCH_RATIO = 0.9;

/**
 * Whether the program under test has used an AsyncLocalStorage of its own (reported by the
 * async-context shim). Until then, on Node 20 and 22 too, events run in a scope made once per
 * host (see hostScope()): nothing could set another store on that shared resource.
 */
let userAsyncStores = false;

/** Called by the async-context shim the first time the program uses a store of its own. */
export function noteUserAsyncStores(): void {
  userAsyncStores = true;
}

/**
 * True while an async hook of the program with a destroy callback is enabled (set by the
 * async-context shim). Node delivers destroy hooks from a native immediate, after the resource
 * was destroyed (a closed handle, an agent's freed socket, emitDestroy()), at the start of the
 * loop's next check phase: the timers and I/O callbacks of the same turn run first. Here an
 * event that would run at the check phase or later (or is another host's) then waits for the
 * driver's next turn of Node's loop, which delivers them first (step(), destroysFirst()).
 */
let destroyHooksOn = false;

export function noteDestroyHooks(on: boolean): void {
  destroyHooksOn = on;
}

const KIND_NET = EVENT_KIND_CODE.net;
const KIND_IO = EVENT_KIND_CODE.io;
const KIND_IMMEDIATE = EVENT_KIND_CODE.immediate;
const KIND_TIMEOUT = EVENT_KIND_CODE.timeout;
const KIND_INTERVAL = EVENT_KIND_CODE.interval;

/** A loop phase's place in a turn of libuv's loop: a main script before the turn's timers. */
function phaseRank(phase: number): number {
  return phase === PHASE_MAIN ? -1 : phase;
}

/**
 * Clock reads one event may make (its synchronous code and the ticks and microtasks drained after
 * it) while time stands still. A program that reads the clock more often than this in one event
 * is waiting for time to pass (`while (performance.now() < t0 + 30);`, as Node's own
 * test-timers-immediate-queue does): each further read takes SPIN_NS_PER_READ of the host's CPU
 * time, so the wait ends, deterministically, and the host's other events run late by as much,
 * as after a busy loop in Node.
 */
export const CLOCK_READS_FROZEN = 10_000;
/** Virtual CPU time one clock read takes past CLOCK_READS_FROZEN in one event (1 µs). */
export const SPIN_NS_PER_READ = 1_000;

/**
 * Immediates that may run one after the other, with no other kind of event between them, while
 * time stands still. A longer run is a loop polling with setImmediate (`while (!reply) await
 * new Promise(setImmediate)`): in Node each turn of it takes real time, so the reply it waits
 * for arrives; here each further immediate takes SPIN_NS_PER_IMMEDIATE of its host's CPU time,
 * as clock reads past CLOCK_READS_FROZEN do, so time reaches the reply, deterministically.
 * Programs with shorter chains (every ordinary one) see no change.
 */
export const IMMEDIATES_FROZEN = 10_000;
/** Virtual CPU time one immediate takes past IMMEDIATES_FROZEN in a row (1 µs). */
export const SPIN_NS_PER_IMMEDIATE = 1_000;

/**
 * The private state of one simulation: virtual time, the event queue, hosts, random streams,
 * the fingerprint and the trace. `Sim` is its public handle; shims reach it via activeWorld().
 */
export class World implements HostWorld, NetworkWorld, LifecycleLoop {
  readonly options: WorldOptions;
  readonly seed: bigint;
  readonly seedText: string;
  readonly mode: WorldMode;
  readonly epochMs: number;
  readonly als: AsyncLocalStorage<WorldHost>;
  /** Native resources (libuv handles) the hosts' programs have not closed yet. */
  readonly natives = new NativeResources();
  /** The hosts and their lifecycle: add, boot, pause/resume, takeDown, restart. */
  readonly hosts: HostLifecycle<World>;
  /** hosts.idleWaiters, held here too: next() checks its size before every event. */
  private readonly idleWaiters: ReadonlySet<Host>;
  /** In register mode, code outside every host's context belongs to this host ("main"). */
  fallbackHost: WorldHost | undefined;

  nowNs = 0;
  private seq = 0;
  /** Ids of timers (what +timeout returns), counted per world so a seed always gives the same. */
  nextHandleId = 1;
  /** Events run so far; the "event N" of failure messages. */
  eventsRun = 0;
  /** Ref'd handles and ref'd pending events: the run goes on while this is above zero. */
  refs = 0;
  private readonly queue = new EventQueue<WorldEntry>();
  readonly fingerprint = new Fingerprint();
  private readonly trace: TraceWriter | undefined;
  /** Ids of traced messages and connections (counted only while tracing; never in the fingerprint). */
  private readonly traceIds = { msg: 0, conn: 0 };
  readonly driver: Driver;
  /** The event being run, if any. */
  current: WorldEntry | undefined;
  /** Runs the current event (what als.run calls: no closure or argument array per event). */
  private readonly fireCurrent = (): void => {
    this.current![kFire]();
  };
  /** Entries of paused or stalled hosts, held back from the queue. */
  private readonly parking = new Parking<WorldEntry>();
  /** parking.ready, held here too: next() checks it before every event. */
  private readonly ready = this.parking.ready;
  /** The earliest instant a stalled host's stall ends (Infinity when no host is stalled). */
  private wakeNs = Infinity;
  /** Clock reads since the current event started (see CLOCK_READS_FROZEN). */
  private clockReads = 0;
  /** CPU time the current event's code has spun reading the clock (see SPIN_NS_PER_READ). */
  private spinNs = 0;
  /** The host whose clock reads spun. */
  private spinHost: Host | undefined;
  /**
   * The kind of the event whose code runs now (it stays set for the ticks and microtasks after
   * it); -1 before the first event (a register-mode program's top level).
   */
  private eventKind = -1;
  /** The loop phase of a register-mode program's top level (WorldOptions.topLevelPhase). */
  private readonly topLevelPhase: number;
  /** Immediates run in a row, no other kind of event between them (see IMMEDIATES_FROZEN). */
  private immediatesInARow = 0;
  /**
   * The runtime's own events queued beside the program's work that must not keep a run from
   * going idle (scheduleBackground: the wall-clock steps of the skew fault).
   */
  private readonly background = new Set<WorldEntry>();
  /** Loopback packets, close callbacks and immediates whose order libuv's phases decide. */
  private readonly phases = new PhaseOrder<WorldHost>();
  /** The loop phase of the event running now (runEvent; PHASE_CLOSING for a close callback). */
  private runningPhase = PHASE_MAIN;
  /** Loopback packets scheduled that arrive at once (scheduleArrival). */
  private atOnceArrivals = 0;
  /** While a kernel answers a loopback packet (kernelReply): the poll turn its answer is read in. */
  private replyTurn = -1;
  /** The host of the last event run; unhandled rejections are attributed to it. */
  lastHost: WorldHost | undefined;

  /** True when event sites are captured (tracing, or a limit is close). */
  captureSites: boolean;
  private culpritCounts: Map<string, number> | undefined;
  private readonly eventsWatch: number;
  private readonly timeWatchNs: number;

  /** Real asynchronous work the simulation must wait for (a host's modules loading). */
  private blockers = 0;
  private clientsPending = 0;
  private clientsTotal = 0;
  private stopped = false;
  private outcome: WorldOutcome | undefined;
  private readonly doneWaiters: Array<(outcome: WorldOutcome) => void> = [];
  /** Called for failures in register mode, where there is no run() promise to reject. */
  onFailure: ((report: FailureReport) => void) | undefined;

  // ---- chains: the parts of one program that faults treat as separate processes ----------------
  // (docs/architecture.md, "Faults for plain programs"). Off unless a fault plan turns them on.

  /** True while entries record their chain (set by ProgramFaults before the program runs). */
  chainsOn = false;
  /** The chain of the event whose code runs now (and of its ticks and microtasks); 0: the top level. */
  private chain = 0;
  private chainCount = 0;
  /** The chain of each queued entry (a WeakMap: Node's Timeout must show no key of ours). */
  private readonly chainOfEntry = new WeakMap<object, number>();
  /**
   * Chains stalled now: the instant each stall ends, and where the chain's loop was when it began
   * (as Host.stalledUntilNs, stallPhase and stallSinceNs for a host).
   */
  private readonly chainStalls = new Map<number, { untilNs: number; phase: number; sinceNs: number }>();
  /** The last stall of each chain that ended (its untilNs is when). */
  private readonly chainStallsEnded = new Map<number, { untilNs: number; phase: number; sinceNs: number }>();
  /**
   * Set by a fault plan: the end of a stall window of `chain` that covers `timeNs`, or 0. Asked
   * when an entry of the chain comes due, so a stall also delays a chain that was idle.
   */
  chainStallWindow: ((chain: number, timeNs: number) => number) | undefined;
  /** Set by a fault plan: called as each event starts, with its host and chain (event-loop lag). */
  beforeEvent: ((host: WorldHost, chain: number) => void) | undefined;
  /** The fault mix of this run, printed with every failure (a fault plan sets it). */
  faultMix: string | undefined;
  /** Hosts whose event loop lags (World.lag): until when, and the mean cost each event adds. */
  private readonly lagging = new Map<WorldHost, { untilNs: number; eventMeanNs: number; eventMaxNs: number }>();
  private lagRandom: RandomStream | undefined;

  constructor(options: WorldOptions) {
    this.options = options;
    this.topLevelPhase = options.topLevelPhase ?? PHASE_MAIN;
    this.seed = options.seed;
    this.seedText = formatSeed(options.seed);
    this.mode = options.mode;
    this.epochMs = options.epochMs;
    // Its stores are hosts, each of the world that set it: currentHost() checks which.
    this.als = processAls as AsyncLocalStorage<WorldHost>;
    this.hosts = new HostLifecycle<World>(this, this.natives);
    this.disks = new HostDisks(options.diskFaults ?? [], (name) => this.stream(name));
    this.idleWaiters = this.hosts.idleWaiters;
    this.trace = options.traceFile === undefined ? undefined : new TraceWriter(options.traceFile);
    this.captureSites = this.trace !== undefined;
    // The trace's first line says what the rest is: its format (annotations since 2), the seed,
    // and the network's default latency (a setLink back to it ends a latency spike).
    this.trace?.write({
      n: 0,
      tNs: 0,
      kind: 'run',
      format: TRACE_FORMAT,
      seed: this.seedText,
      mode: options.mode,
      latency: options.network?.latency ?? DEFAULT_LATENCY,
    });
    // DST_KEEP_SHAPES is read (and a bad value refused) as the first run starts, not as it ends.
    shapesKept();
    this.eventsWatch = Math.floor(options.eventsMax * CULPRIT_WATCH_RATIO);
    this.timeWatchNs = Math.floor(options.timeLimitNs * CULPRIT_WATCH_RATIO);
    this.driver = new Driver(() => this.step());
    const enable = alsEnable;
    if (RESOURCE_STORE !== undefined && enable !== undefined) {
      // The driver's own immediates carry no store of ours: events enter their host's context
      // themselves. With async_hooks, queueing them while our storage is disabled spares each
      // one the storage's init hook and the property it would add (an allocation per event).
      this.driver.beforeRefill = () => processAls.disable();
      this.driver.afterRefill = () => enable.call(processAls);
    }
  }

  /**
   * With options.pending: the promises host code created and that have not settled (set by the
   * shims when they install), grouped by creation site.
   */
  pendingPromises: (() => Array<{ site: string; host: string; count: number }>) | undefined;

  /** What the layers above attached to this run (the scenario's context: scenarioContext()). */
  readonly attachments = new Map<symbol, unknown>();

  private networkInstance: Network | undefined;

  /**
   * The hosts' simulated disks and their faults (runtime/disk/disks.ts), made by the fs shim on
   * first use when options.disk is 'simulated'.
   */
  readonly disks: HostDisks;

  /** The simulated network, created on first use. */
  get network(): Network {
    return (this.networkInstance ??= new Network(this, this.options.network));
  }

  /** A random stream derived from (seed, name) alone. */
  stream(name: string): RandomStream {
    return new RandomStream(this.seed, name);
  }

  /**
   * While an event's callback runs synchronously: its host, and the async id Node was executing
   * when the event started (the driver's immediate). Code that runs with that same async id is
   * that event's own synchronous code, whose store is the event's host (the runtime sets no other
   * store on that resource, and every way into another async context — an AsyncResource's
   * runInAsyncScope, a timer, a promise job — runs under another id), so currentHost() can
   * answer without AsyncLocalStorage.getStore(), which costs an executionAsyncResource() lookup
   * on Node 20/22 and is called by every setTimeout and Math.random.
   */
  private runningHost: WorldHost | undefined = undefined;
  private runningAsyncId = -1;

  /**
   * Virtual time as `host`'s code reads it now: the current instant, plus the CPU time this event
   * has spent spinning on the clock (see CLOCK_READS_FROZEN). Every clock a host reads (Date,
   * performance.now, hrtime, uptime) comes through here.
   */
  clockNowNs(host: Host): number {
    if (++this.clockReads > CLOCK_READS_FROZEN) {
      this.spinNs += SPIN_NS_PER_READ;
      this.spinHost = host;
    }
    return this.nowNs + this.spinNs;
  }

  /**
   * `host`'s code spends `ns` of virtual time in a call that blocks its process (a synchronous read
   * of a slow disk): counted as a spin, so its clock reads after the call see the time gone, and
   * its other events run late, as after a busy loop.
   */
  busy(host: Host, ns: number): void {
    this.spinNs += ns;
    this.spinHost = host;
  }

  /** The CPU time `host`'s code has spent spinning on the clock in the current event (see clockNowNs). */
  spinningNs(host: Host): number {
    return this.spinHost === host ? this.spinNs : 0;
  }

  /**
   * The instant work scheduled now counts from: the current instant, or, inside code that has
   * spun on the clock, the instant that code has reached (its timers count from there, as in
   * Node, where a timer armed after a busy loop is due its delay after the loop).
   */
  get scheduleNowNs(): number {
    return this.nowNs + this.spinNs;
  }

  /** The host whose code is running now (undefined: the test runner, in library mode; code outsideHosts() runs). */
  currentHost(): WorldHost | undefined {
    if (executionAsyncId() === this.runningAsyncId) return this.runningHost;
    const host = this.als.getStore();
    if (host !== undefined && host.world === this) return host;
    return host === OUTSIDE_HOSTS ? undefined : this.fallbackHost;
  }

  /**
   * The async ids of the runtime's own resources that may be running or queued now: the driver's
   * immediates of its live batches, and the scope the running event's code was entered under
   * (shims/async-hooks: a hook of the program's enabled now must not hear of them later).
   */
  liveRuntimeAsyncIds(): number[] {
    const ids: number[] = [];
    for (const [first, last] of this.driver.liveBatches()) {
      const from = handleAsyncId(first);
      const to = handleAsyncId(last);
      // Consecutive ids, unless something made a resource between two of them: then none is given.
      if (from === undefined || to === undefined || to - from !== DRIVER_BATCH - 1) continue;
      for (let id = from; id <= to; id++) ids.push(id);
    }
    if (this.runningAsyncId >= 0) ids.push(this.runningAsyncId);
    return ids;
  }

  /** Whether the calling code is code of no host by outsideHosts(). */
  inOutsideHosts(): boolean {
    return this.als.getStore() === OUTSIDE_HOSTS;
  }

  /**
   * Runs `fn` as code of no host, and what it starts too (its timers, I/O callbacks and promise
   * jobs, through the async context), in register mode as well: it then sees the real APIs, and
   * nothing it does is an event of the run. For tooling the program does not contain that runs
   * inside a host's call (another tool's module loader hooks: shims/module/module-hosts.ts).
   * `fn` gets `inside`, which runs a function back in the caller's context (the hook's `next`:
   * Node's own resolution, which a simulated disk answers). Strict mode's tripwire does not count
   * the real timers code outside makes (shims/strict/tool-work.ts).
   */
  outsideHosts<T>(fn: (inside: <R>(back: () => R) => R) => T): T {
    const running = this.runningAsyncId;
    const store = this.als.getStore();
    // What the code outside hands back to the caller's context (a hook's `next`) runs there again.
    const inside = <R>(back: () => R): R => {
      const outside = this.runningAsyncId;
      this.runningAsyncId = running;
      try {
        return store === undefined ? this.als.exit(back) : (alsRun.call(this.als, store, back) as R);
      } finally {
        this.runningAsyncId = outside;
      }
    };
    this.runningAsyncId = -1;
    try {
      return alsRun.call(this.als, OUTSIDE_HOSTS, () => fn(inside)) as T;
    } finally {
      this.runningAsyncId = running;
    }
  }

  // ---- what the hosts' lifecycle asks of the loop (LifecycleLoop) ----------------------------

  /** Lets Node finish the current turn of its loop before the next event (Driver.yieldTurn). */
  yieldTurn(): void {
    this.driver.yieldTurn();
  }

  /** Wakes the driver, unless the run is over. */
  kick(): void {
    if (!this.stopped) this.driver.kick();
  }

  /** `host` went down: its ref'd work no longer keeps the run alive, its parked entries are gone. */
  forget(host: Host): void {
    this.refs -= host.refs;
    host.refs = 0;
    this.parking.drop(host);
    // Its loopback packets are no longer pulled before its immediates (it runs none now); those
    // still queued arrive as usual, those parked are gone.
    this.phases.forget(host as WorldHost);
    for (const event of this.background) if (event[kHost] === host) this.background.delete(event);
    // Its events would be skipped when their time came (packets excepted: the kernel still
    // answers them); dropped now, so that what their callbacks hold (a database's 128 MB
    // WebAssembly memory behind a 10 s timer) is not kept alive until then.
    this.queue.dropWhere((entry) => entry[kHost] === host && entry[kKind] !== KIND_NET);
  }

  /**
   * `host` resumed: its parked entries run now (each keeps its ref), queued again behind the
   * instant's others, in the order Node runs them after SIGCONT (loopOrder: timers first).
   */
  unpark(host: Host): void {
    for (const { entry, timeNs } of loopOrder(this.parking.unpark(host), PHASE_IDLE, this.nowNs)) {
      if (timeNs < this.nowNs) this.resumedDueNs.set(entry, timeNs);
      const seq = ++this.seq;
      entry[kSeq] = seq;
      this.queue.push(entry, this.nowNs, seq);
    }
  }

  /** Writes `host` going down to the trace and the fingerprint. */
  recordDown(host: Host, how: HostState): void {
    if (this.trace !== undefined) {
      this.trace.write({ n: this.eventsRun, tNs: this.nowNs, host: host.name, boot: host.incarnation, kind: how });
    }
    this.fingerprint.mix(0xdead);
    this.fingerprint.mix(host.index);
  }

  /** A client's main started (`first`: its first incarnation's): the run waits for it. */
  clientStarted(first: boolean): void {
    this.clientsPending++;
    if (first) this.clientsTotal++;
  }

  /** A client's main settled, or its incarnation went down. */
  clientSettled(): void {
    this.clientsPending--;
    this.kick();
  }

  /**
   * Stalls a host until virtual time `untilNs` (a GC pause, a descheduled VM, a busy loop): none
   * of its events runs before then; those that come due meanwhile run at `untilNs`, late, before
   * the host's events due at that instant, in the order Node's loop takes them up again from
   * `phase` (scheduler/loop-phases.ts: the phase of the callback that is busy, or PHASE_IDLE for
   * a process stopped between callbacks). Unlike pause(), a stall ends by itself. A longer stall
   * of a stalled host extends it (from where it began); a shorter one changes nothing.
   */
  stall(host: Host, untilNs: number, phase = PHASE_IDLE, sinceNs = this.nowNs): void {
    if (!(untilNs > this.nowNs) || host.state !== 'running' || untilNs <= host.stalledUntilNs) return;
    if (host.stalledUntilNs <= this.nowNs) {
      host.stallPhase = phase;
      host.stallSinceNs = sinceNs;
    }
    host.stalledUntilNs = untilNs;
    if (this.trace !== undefined) this.annotate(host, 'stall', { untilNs });
    if (untilNs < this.wakeNs) this.wakeNs = untilNs;
    this.kick();
  }

  /**
   * Event-loop lag on `host` until `untilNs`: each of its events takes longer than its own work,
   * by an exponential draw of mean `eventMeanNs` capped at `eventMaxNs` (a busy loop, a slow
   * synchronous call, swapping), so what comes due next on it runs late — in Node's phase order
   * after a busy callback (loop-phases.ts). Timers never fire early. A later call replaces the burst.
   */
  lag(host: WorldHost, untilNs: number, eventMeanNs: number, eventMaxNs: number): void {
    if (!(untilNs > this.nowNs) || host.state !== 'running') return;
    this.lagging.set(host, { untilNs, eventMeanNs, eventMaxNs });
  }

  /** Charges the lag of `host`'s burst, if any, to the event starting now. */
  private lagEvent(host: WorldHost): void {
    const burst = this.lagging.get(host);
    if (burst === undefined) return;
    if (burst.untilNs <= this.nowNs || host.state !== 'running') {
      this.lagging.delete(host);
      return;
    }
    this.lagRandom ??= this.stream('faults/lag');
    const costNs = Math.min(burst.eventMaxNs, Math.round(-Math.log(1 - this.lagRandom.double()) * burst.eventMeanNs));
    if (costNs > 0) this.stall(host, this.nowNs + costNs, this.currentPhase, this.phaseStartNs);
  }

  /**
   * Ends the stalls due by now: their hosts' (and chains') parked entries become ready, each
   * host's (or chain's) in the order Node's loop runs them after such a stall (loopOrder).
   */
  private wakeStalled(): void {
    let wakeNs = Infinity;
    const woken = new Set<WorldHost>();
    for (const host of this.hosts.list) {
      if (host.stalledUntilNs === 0) continue;
      if (host.stalledUntilNs <= this.nowNs) {
        host.stalledUntilNs = 0;
        host.stallEndedNs = this.nowNs;
        if (!host.paused) woken.add(host);
      } else if (host.stalledUntilNs < wakeNs) wakeNs = host.stalledUntilNs;
    }
    let chains: Map<number, { phase: number; sinceNs: number }> | undefined;
    for (const [chain, stall] of this.chainStalls) {
      if (stall.untilNs <= this.nowNs) {
        this.chainStalls.delete(chain);
        this.chainStallsEnded.set(chain, stall);
        (chains ??= new Map()).set(chain, stall);
      } else if (stall.untilNs < wakeNs) wakeNs = stall.untilNs;
    }
    this.wakeNs = wakeNs;
    if (woken.size === 0 && chains === undefined) return;
    const ended = chains;
    const taken = this.parking.take((p) => woken.has(p.host as WorldHost) || (ended !== undefined && ended.has(this.chainOf(p.entry))));
    // One group per process that stalled (a host, or a chain: a process of a plain program), in
    // the order their first entries came due.
    const groups = new Map<WorldHost | number, Array<Parked<WorldEntry>>>();
    for (const p of taken) {
      const key = woken.has(p.host as WorldHost) ? (p.host as WorldHost) : this.chainOf(p.entry);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [p]);
      else group.push(p);
    }
    for (const [key, group] of groups) {
      const from = typeof key === 'number' ? ended!.get(key)! : { phase: key.stallPhase, sinceNs: key.stallSinceNs };
      const ordered = loopOrder(group, from.phase, from.sinceNs);
      // What the phase the stall began in had already taken on goes on in that phase, whose loop
      // time stays the instant it began: a timers phase runs only the timers due then.
      const slot = phaseSlot(from.phase);
      if (slot >= 0) {
        for (const p of ordered) if (waitedSlot(p) === slot && takenOn(p, from.sinceNs)) p.phaseStartNs = from.sinceNs;
      }
      this.parking.makeReady(ordered);
    }
  }

  /**
   * Program faults' chains: the host's loop turn when each chain last ran an event. An immediate
   * an immediate of its chain queued is that chain's next turn's, however far the other chains
   * took the host's turn meanwhile (Parking.park): under lag, a chain's due timer ran after its
   * next immediate, which Node never does.
   */
  private readonly chainTurns = new Map<number, number>();

  /** A new chain (a listening server's: a server is a process of its own). */
  newChain(): number {
    return this.chainsOn ? ++this.chainCount : 0;
  }

  /**
   * The chain of a socket the running code opens: a new one when the program's top level (chain
   * 0, and the timers it chains) opens it — the launcher starting a client — else the chain of
   * the code that opens it (a server calling another, a worker's second connection).
   */
  chainForSocket(): number {
    if (!this.chainsOn) return 0;
    return this.chain === 0 ? ++this.chainCount : this.chain;
  }

  /** The chain an entry belongs to (0 when chains are off or it was queued before). */
  chainOf(entry: object): number {
    return this.chainOfEntry.get(entry) ?? 0;
  }

  /** Runs `fn` as if code of `chain` ran it: what it schedules belongs to that chain. */
  withChain<T>(chain: number, fn: () => T): T {
    if (!this.chainsOn) return fn();
    const prior = this.chain;
    this.chain = chain;
    try {
      return fn();
    } finally {
      this.chain = prior;
    }
  }

  /** The chain of the code running now. */
  get currentChain(): number {
    return this.chain;
  }

  /**
   * True while a program's start runs: its top level before the first event (register mode), or
   * a host's boot event. Node's event loop has not started then (nodeTiming.loopStart is -1).
   */
  get bootRunning(): boolean {
    return this.eventKind === -1 || this.eventKind === EVENT_KIND_CODE.boot;
  }

  /**
   * The instant the loop phase of the callback running now began: its own, unless a stall's end
   * released it into the phase that stall began in (Parked.phaseStartNs). Node's timers phase
   * runs with the loop time of its start (processTimers(now)), so a stall that begins in a
   * callback it runs counts what that phase had taken on from then, not from this callback:
   * a timer another busy timer of the phase armed waits for the next turn, after its immediates.
   */
  get phaseStartNs(): number {
    return this.takenPhaseStartNs >= 0 ? this.takenPhaseStartNs : this.nowNs;
  }

  /** The loop phase (scheduler/loop-phases.ts) of the callback running now, or of the program's top level. */
  get currentPhase(): number {
    return this.eventKind === -1 ? this.topLevelPhase : phaseOfKind(this.eventKind);
  }

  /**
   * Stalls one chain until `untilNs`, as stall() stalls a host: none of its entries runs before
   * then; those that come due meanwhile run at `untilNs`, in Node's phase order from `phase`
   * (loop-phases.ts; PHASE_IDLE: a chain stopped between callbacks). The trace says so: a `stall`
   * of the host whose event ran last (program faults' chains are a plain program's, on one host),
   * with the chain's number.
   */
  stallChain(chain: number, untilNs: number, phase = PHASE_IDLE, sinceNs = this.nowNs): void {
    const stall = this.chainStalls.get(chain);
    if (!(untilNs > this.nowNs) || untilNs <= (stall?.untilNs ?? 0)) return;
    // A longer stall of a stalled chain extends it from where it began.
    if (stall !== undefined && stall.untilNs > this.nowNs) stall.untilNs = untilNs;
    else this.chainStalls.set(chain, { untilNs, phase, sinceNs });
    if (this.trace !== undefined) this.annotate(this.lastHost, 'stall', { untilNs, chain });
    if (untilNs < this.wakeNs) this.wakeNs = untilNs;
    this.kick();
  }

  /** True when `entry`'s chain is stalled at `timeNs` (a stall window that covers it starts the stall). */
  private chainHeld(entry: WorldEntry, timeNs: number): boolean {
    const chain = this.chainOf(entry);
    let untilNs = this.chainStalls.get(chain)?.untilNs ?? 0;
    if (untilNs > timeNs) return true;
    const windowEndNs = this.chainStallWindow?.(chain, timeNs) ?? 0;
    if (windowEndNs > timeNs && windowEndNs > this.nowNs) {
      // A stall that begins as another of the chain (or of its host: a busy main script) ends
      // finds the chain where that one left it, with the same entries taken on: it goes on from
      // there when this one ends. Otherwise the chain is stopped between callbacks.
      const ended = this.chainStallsEnded.get(chain);
      const host = entry[kHost];
      if (ended !== undefined && ended.untilNs === this.nowNs) this.stallChain(chain, windowEndNs, ended.phase, ended.sinceNs);
      else if (host.stallEndedNs === this.nowNs) this.stallChain(chain, windowEndNs, host.stallPhase, host.stallSinceNs);
      else this.stallChain(chain, windowEndNs);
      untilNs = windowEndNs;
    }
    return untilNs > timeNs;
  }

  /**
   * Where in a spin an entry queued now counts from. Node arms timers from the loop time it
   * refreshes, so after a busy loop a timer is due its delay after the loop. An immediate queued
   * by a timer, an I/O callback or anything but an immediate runs in the check phase of the same
   * loop turn, before the timers that came due during the loop: it counts from the event's start.
   * One queued by an immediate (or a main script, before the loop: a program's top level on Node
   * 22 and 24, loop-phases.ts) waits for the next turn, after them.
   */
  private spinFor(entry: WorldEntry): number {
    const kind = this.eventKind;
    const nextTurn = kind === KIND_IMMEDIATE || (kind === -1 && this.topLevelPhase === PHASE_MAIN);
    return entry[kKind] === KIND_IMMEDIATE && !nextTurn ? 0 : this.spinNs;
  }

  /**
   * Called before each event: the clock reads of the last one start again from zero, and if its
   * code spun on the clock, its host was busy for that long (its CPU time, and a stall: its other
   * events run late, as after a busy loop in Node).
   */
  private endSpin(): void {
    this.clockReads = 0;
    const spinNs = this.spinNs;
    if (spinNs === 0) return;
    this.spinNs = 0;
    const host = this.spinHost!;
    this.spinHost = undefined;
    host.spunNs += spinNs;
    // A busy first tick (a main script, a host's boot): its loop starts once it is over.
    if (this.bootRunning) {
      host.bootSpunNs = host.spunNs;
      host.clock.startLoopAt(this.nowNs + spinNs);
    }
    // The last event's code (its kind is still eventKind) was busy: its loop phase goes on after it.
    this.stall(host, this.nowNs + spinNs, this.currentPhase, this.phaseStartNs);
  }

  // ---- scheduling --------------------------------------------------------------------------

  /**
   * Queues `fn` to run on `host` after `delayNs` of virtual time. A ref'd event keeps the run
   * alive while pending; timers pass ref=false and account for themselves via refHandle().
   * A host that is down cannot schedule: the event is returned already cancelled.
   */
  schedule(
    host: WorldHost,
    delayNs: number,
    kind: EventKind,
    fn: (this: any) => void,
    thisArg: unknown,
    ref: boolean,
    scope?: AsyncResource,
    site?: string,
  ): SimEvent<WorldHost> {
    // Checked without building the message on the hot path.
    if (!(delayNs >= 0 && Number.isInteger(delayNs))) assert(false, `delayNs must be a non-negative integer, got ${delayNs}`);
    return this.scheduleAt(host, this.nowNs + this.spinNs + delayNs, kind, fn, thisArg, ref, scope, site);
  }

  /** schedule() at the instant `timeNs` (not before now). */
  private scheduleAt(
    host: WorldHost,
    timeNs: number,
    kind: EventKind,
    fn: (this: any) => void,
    thisArg: unknown,
    ref: boolean,
    scope: AsyncResource | undefined,
    site: string | undefined,
    first = false,
  ): SimEvent<WorldHost> {
    const seq = ++this.seq;
    const event = new SimEvent(seq, host, kind, fn, thisArg, ref, scope);
    if (host.state !== 'running') {
      event[kSeq] = 0; // cancelled
      return event;
    }
    if (this.captureSites) event[kSite] = site ?? captureSite();
    if (this.chainsOn) this.chainOfEntry.set(event, this.chain);
    if (ref) {
      host.refs++;
      this.refs++;
    }
    if (first) this.placeFirst(event, timeNs, seq);
    else this.queue.push(event, timeNs, seq);
    this.kickSoon();
    return event;
  }

  /** Set by continuePoll(): the next event continues the poll of the one running (next() reads it). */
  private continued = false;

  /** Places `event` ahead of what is due at `timeNs`, or ahead of the `ready` list while a stall's released entries run (continuePoll). */
  private placeFirst(event: SimEvent<WorldHost>, timeNs: number, seq: number): void {
    if (this.ready.length > 0) {
      this.ready.unshift({ host: event[kHost], entry: event, seq, kind: KIND_NET, timeNs, readyNs: timeNs, closing: false, nextTurn: false });
    } else {
      this.queue.pushFirst(event, timeNs, seq);
    }
  }

  /**
   * Queues `fn`, work libuv does next in this poll for the handle it is serving now (the socket's
   * next read: one that filled its buffer is followed by another, a partial one under EPOLLHUP by
   * the EOF, TcpEndpoint.flush; the http parser's callbacks Node runs inside that read,
   * shims/net/http.ts), to run straight after the running event: before anything else of this
   * instant (another socket's read, this turn's immediates), as libuv serves one handle before it
   * turns to the next. A separate event: Node drains ticks and microtasks after each callback.
   * Queued at this instant even when the running code spun on the clock: the stall that ends
   * the spin releases it first, as the busy poll phase's own (loop-phases.ts); while a stall's
   * released entries are running, it goes before what is left of them.
   */
  continuePoll(host: WorldHost, fn: (this: any) => void, scope: AsyncResource | undefined): SimEvent<WorldHost> {
    this.continued = true;
    const event = this.scheduleAt(host, this.nowNs, 'net', fn, undefined, false, scope, undefined, true);
    this.pendingPhase(event, host);
    return event;
  }

  /**
   * Queues `fn`, a socket's read in the next poll of `host`'s loop (what a partial read left
   * buffered: the EOF or error behind it), once the running event's ticks and microtasks have
   * run: behind the immediates they queue too, as the next poll comes after this turn's check
   * phase. After a busy callback, behind what the stall that ends it releases.
   */
  scheduleNextPoll(host: WorldHost, fn: (this: any) => void, scope: AsyncResource | undefined, watched = false): void {
    this.nextPolls.push({ host, fn, scope, timeNs: this.nowNs + this.spinNs, chain: this.chain, turn: this.pollTurn(host), watched });
    this.kickSoon();
  }

  /**
   * Runs `fn` once the current event and its ticks are done, before the next event is chosen:
   * where a real thread-pool completion would reach the simulation (the work the simulation does
   * itself in place of one: a simulated disk's call without latency, real-work.ts).
   */
  afterEvent(host: WorldHost, fn: () => void): void {
    // Work in flight keeps its host alive meanwhile, as the completion's ref'd event will (a
    // client whose top level started it is not done; the run does not end first).
    const incarnation = host.incarnation;
    host.refs++;
    this.refs++;
    this.afterEvents.push(() => {
      if (host.state === 'running' && host.incarnation === incarnation) {
        host.refs--;
        this.refs--;
      }
      fn();
    });
    this.kickSoon();
  }

  private readonly afterEvents: Array<() => void> = [];

  /**
   * Runs what afterEvent() queued: before the next event is chosen, and also where step() holds
   * an event already chosen (the ticks a handled throw left, destroys owed) and must see whether
   * real work holds the world: the hold those callbacks release would otherwise never go (a
   * simulated disk's fs.stat from such a tick hung the run).
   */
  private runAfterEvents(): void {
    if (this.afterEvents.length > 0) for (const fn of this.afterEvents.splice(0)) fn();
  }

  /**
   * Queues `fn` as an 'io' event of `host` at this instant once the current event and its ticks
   * are done (afterEvent): where Node's loop takes the completion of work a thread or a socket
   * did meanwhile (getaddrinfo, a crypto job, a DNS answer), in a poll phase, behind every
   * immediate the calling code queued, before or after the call. Queued at the call's instant
   * (after a clock spin, its end), in its chain, with its site. Returns how to cancel it.
   */
  scheduleAfterEvent(host: WorldHost, fn: (this: any) => void, thisArg: unknown, ref: boolean, scope: AsyncResource | undefined): () => void {
    const site = this.captureSites ? captureSite() : undefined;
    const timeNs = this.nowNs + this.spinNs;
    const chain = this.chain;
    let event: SimEvent<WorldHost> | undefined;
    let cancelled = false;
    this.afterEvent(host, () => {
      if (!cancelled) event = this.withChain(chain, () => this.scheduleAt(host, Math.max(timeNs, this.nowNs), 'io', fn, thisArg, ref, scope, site));
    });
    return () => {
      cancelled = true;
      if (event !== undefined) this.cancel(event);
    };
  }

  /** Reads of the next poll queued by the last event (scheduleNextPoll), not yet in the queue. */
  private readonly nextPolls: Array<{ host: WorldHost; fn: (this: any) => void; scope: AsyncResource | undefined; timeNs: number; chain: number; turn: number; watched: boolean }> = [];
  /**
   * The first reads of sockets epoll starts watching at their poll (scheduleNextPoll's
   * `watched`): epoll_ctl puts such a socket on the ready list as the poll starts, behind the
   * sockets whose data came in before, so loopback packets read in that poll go first.
   */
  private readonly watchedReads = new Set<SimEvent<WorldHost>>();

  /**
   * Queues the next poll's reads the last event asked for, now that its ticks have run. Each
   * knows its poll's turn: a completion of libuv's pending queue queued meanwhile for that turn
   * (an end() from an immediate) runs first, as the pending phase comes before poll (next()).
   */
  private queueNextPolls(): void {
    for (const { host, fn, scope, timeNs, chain, turn, watched } of this.nextPolls.splice(0)) {
      const event = this.withChain(chain, () => this.scheduleAt(host, Math.max(timeNs, this.nowNs), 'net', fn, undefined, false, scope, undefined));
      event.pollTurn = turn;
      if (watched) this.watchedReads.add(event);
    }
  }

  /**
   * Queues `fn` at this instant, between events: work Node's loop hands `host` in the poll phase
   * of the turn pollTurn() gives now (a message one of its MessagePorts received, dispatched by
   * Node in the first poll after its post). Before the immediates of that turn, after those of
   * earlier turns (scheduler/phase-order.ts).
   */
  schedulePollWork(host: WorldHost, fn: () => void, scope: AsyncResource | undefined): void {
    const event = this.scheduleAt(host, this.nowNs, 'net', fn, undefined, true, scope, undefined);
    event.pollTurn = this.pollTurn(host);
    this.phases.notePoll(host, event);
  }

  /** Whether `host`'s code runs in its loop's poll phase now (an I/O callback). */
  inPoll(host: WorldHost): boolean {
    return this.phaseNow(host) === PHASE_POLL;
  }

  /**
   * Queues `fn` as an unref'd 'fault' event of `host` that only matters beside the program's own
   * work: when nothing else is queued the run goes idle (or ends) as if it were not (a hung
   * program is reported idle, with its handles, not run to the time limit by clock steps).
   */
  scheduleBackground(host: WorldHost, delayNs: number, fn: () => void): void {
    const event: SimEvent<WorldHost> = this.schedule(host, delayNs, 'fault', () => {
      this.background.delete(event);
      fn();
    }, undefined, false);
    if (event[kSeq] !== 0) this.background.add(event);
  }

  /**
   * Queues an entry that carries its own fields (a simulated Timeout or Immediate) after
   * `delayNs`, under a new sequence number; a place it held before becomes stale. Returns false
   * (and leaves it unqueued) when its host is down. Its ref, if any, is its own business.
   */
  enqueue(entry: WorldEntry, delayNs: number): boolean {
    if (!(delayNs >= 0 && Number.isInteger(delayNs))) badDelay(delayNs);
    const seq = ++this.seq;
    if (entry[kHost].state !== 'running') {
      entry[kSeq] = 0;
      return false;
    }
    entry[kSeq] = seq;
    if (this.captureSites || this.chainsOn) this.noteEntry(entry);
    this.queue.push(entry, this.nowNs + (this.spinNs === 0 ? 0 : this.spinFor(entry)) + delayNs, seq);
    this.kickSoon();
    return true;
  }

  /**
   * enqueue(), with `delayNs` counted from `fromNs`, an instant of the running event before its
   * code spun on the clock (an interval re-armed from its callback's start). Due no earlier than
   * now; when that falls in the time the event's code spun, the host's busy stall holds it.
   */
  enqueueFrom(entry: WorldEntry, fromNs: number, delayNs: number): boolean {
    if (!(delayNs >= 0 && Number.isInteger(delayNs))) badDelay(delayNs);
    const seq = ++this.seq;
    if (entry[kHost].state !== 'running') {
      entry[kSeq] = 0;
      return false;
    }
    entry[kSeq] = seq;
    if (this.captureSites || this.chainsOn) this.noteEntry(entry);
    this.queue.push(entry, Math.max(this.nowNs, fromNs + delayNs), seq);
    this.kickSoon();
    return true;
  }

  /**
   * What enqueue() records of an entry only while tracing, near a limit, or with chains on: out of
   * line, as enqueue() is inlined into every setTimeout only while it stays small.
   */
  private noteEntry(entry: WorldEntry): void {
    if (this.captureSites && entry[kSite] === undefined) entry[kSite] = captureSite();
    // A timer keeps the chain it was first armed in (re-armed by refresh() or as an interval).
    if (this.chainsOn && !this.chainOfEntry.has(entry)) this.chainOfEntry.set(entry, this.chain);
  }

  /**
   * Queues a packet arrival at `host`'s network stack. Unlike schedule(), this works while the
   * host's process is down (its kernel still answers, e.g. with a reset), and the event waits
   * while the host is paused (a stalled machine answers nothing).
   */
  scheduleArrival(
    host: WorldHost,
    delayNs: number,
    fn: (this: any) => void,
    thisArg: unknown,
    scope?: AsyncResource,
    chain?: number,
    loopback?: boolean,
  ): SimEvent<WorldHost> {
    const sentNs = this.nowNs + this.spinNs;
    const timeNs = sentNs + Math.max(0, Math.round(delayNs));
    const seq = ++this.seq;
    const event = new SimEvent(seq, host, 'net', fn, thisArg, false, scope);
    // A packet a host sends itself is in the peer socket's buffer as write() returns, and is
    // read in the poll phase of this turn of its loop, or the next (scheduler/phase-order.ts).
    if (loopback === true) {
      event.readyNs = sentNs;
      // Only a packet that takes no more than loopback's own few µs: one a fault or a slow
      // loopbackLatency delays keeps its delay.
      if (timeNs - sentNs <= LOOPBACK_AT_ONCE_NS) {
        this.atOnceArrivals++;
        event.pollTurn = this.replyTurn >= 0 ? this.replyTurn : this.pollTurn(host);
        this.phases.notePoll(host, event);
      }
    }
    // A packet's arrival runs in the chain of the socket it reaches.
    if (this.chainsOn) this.chainOfEntry.set(event, chain ?? this.chain);
    this.queue.push(event, timeNs, seq);
    this.kickSoon();
    return event;
  }

  cancel(event: SimEvent): void {
    if (event[kSeq] === 0) return;
    event[kSeq] = 0;
    const host = event[kHost];
    if (event[kRef] && host.state === 'running') {
      host.refs--;
      this.refs--;
    }
  }

  /** A handle of `host` (a timer, a socket) starts keeping the run alive. */
  /**
   * Changes how fast a host's clocks run from now on (Sim.setClock). Its pending timers keep
   * their deadline on the host's clock, as a kernel's monotonic timers do when the oscillator
   * that drives them changes pace: each is queued again at the virtual instant where the host's
   * clock, at the new rate, reaches it. A host that is down only keeps the rate.
   */
  setDrift(host: WorldHost, driftPpm: number): void {
    const clock = host.clock;
    if (host.state !== 'running') {
      clock.setDrift(driftPpm, this.nowNs);
      return;
    }
    const nowLocalNs = clock.localNs(this.nowNs);
    const pending: Array<{ entry: WorldEntry; remainingLocalNs: number }> = [];
    for (const { timeNs, entry } of this.queue.snapshot()) {
      if (entry[kHost] === host && entry[kLocalClock] === true) pending.push({ entry, remainingLocalNs: clock.localNs(timeNs) - nowLocalNs });
    }
    clock.setDrift(driftPpm, this.nowNs);
    for (const { entry, remainingLocalNs } of pending) this.enqueue(entry, clock.virtualDelayNs(Math.max(0, Math.round(remainingLocalNs))));
  }

  /**
   * The entries of `host` that are pending: queued, parked while it is paused, and the one
   * running now (for process.getActiveResourcesInfo, which counts a timer during its callback).
   */
  pendingEntries(host: WorldHost): WorldEntry[] {
    const out: WorldEntry[] = [];
    for (const { entry } of this.queue.snapshot()) if (entry[kHost] === host) out.push(entry);
    out.push(...this.parking.pendingOf(host));
    const current = this.current;
    if (current !== undefined && current[kHost] === host && !out.includes(current)) out.push(current);
    return out;
  }

  refHandle(host: WorldHost): void {
    if (host.state !== 'running') return;
    host.refs++;
    this.refs++;
    this.kickSoon();
  }

  private kickQueued = false;
  private readonly deferredKick = runtimeCallback((): void => {
    this.kickQueued = false;
    if (!this.stopped && this.refs > 0) this.driver.kick();
  });

  /**
   * Starts an idle driver once the current synchronous code is done, if ref'd work exists then.
   * Deferred so that `setTimeout(f).unref()` never starts it: unref'd work alone must not keep
   * the process alive (an unref'd timer set in 'beforeExit' must not bring 'beforeExit' back).
   */
  private kickSoon(): void {
    if (this.stopped || this.driver.running || this.kickQueued) return;
    this.kickQueued = true;
    outsideDomain(this.queueDeferredKick);
  }

  /**
   * kickSoon()'s nextTick, made once: an arrow function written inside kickSoon() would make V8
   * allocate a context for `this` on every call, returning early or not (40 bytes per call, two
   * calls per timer armed: 80 of the timer workload's ~470 bytes per event, bench figure 1).
   */
  private readonly queueDeferredKick = (): void => {
    originals.nextTick(this.deferredKick);
  };

  unrefHandle(host: WorldHost): void {
    if (host.state !== 'running') return;
    host.refs--;
    this.refs--;
    // Checked without building the message on the hot path.
    if (host.refs < 0 || this.refs < 0) assert(false, `ref count of host "${host.name}" went below zero`);
  }

  // ---- running -----------------------------------------------------------------------------

  /** Begins driving events. Resolves when the run ends (library mode). */
  start(): Promise<WorldOutcome> {
    // Stopped before it started (aborted while the hosts were added): nothing to drive.
    if (this.outcome !== undefined) return Promise.resolve(this.outcome);
    const done = new Promise<WorldOutcome>((resolve) => this.doneWaiters.push(resolve));
    this.driver.kick();
    return done;
  }

  /** One driver step: run the next event. Returns false when the driver should idle. */
  private step(): boolean {
    let event = this.takenAfterThrow;
    // The drain of the last step threw: where Node drained at a check phase's start, its
    // processImmediate then runs the first immediate before the rest.
    let drainThrew = false;
    if (event !== undefined) {
      this.runAfterEvents();
      if (this.stopped || this.blockers > 0) return false;
      this.takenAfterThrow = undefined;
      drainThrew = true;
    } else if (this.takenForDestroys !== undefined) {
      this.runAfterEvents();
      if (this.stopped || this.blockers > 0) return false;
      event = this.takenForDestroys;
      this.takenForDestroys = undefined;
    } else {
      event = this.next();
      if (event === undefined) {
        this.threw = false;
        return false;
      }
      if (this.destroysOwed && this.destroysFirst(event)) {
        // Node's next turn delivers them (its native immediates run before the driver's).
        this.destroysOwed = false;
        this.takenForDestroys = event;
        this.driver.yieldTurn();
        return true;
      }
    }
    if (this.threw) {
      this.threw = false;
      if (!this.continuesPhase(event) && !(drainThrew && this.drainedAtCheck(event))) {
        // The ticks and microtasks left behind run first. One of them may throw in turn, or
        // start real work the world must wait for: then `event` waits for the next step.
        this.takenAfterThrow = event;
        originals.tickCallback.call(originals.process);
        this.runAfterEvents();
        if (this.stopped || this.blockers > 0) return false;
        this.takenAfterThrow = undefined;
      }
    }
    this.runEvent(event);
    return true;
  }

  /**
   * Register mode: code of the event that ran last (or of its ticks) threw, and a listener of
   * 'uncaughtException' took it. Node then leaves the ticks and microtasks queued behind it for
   * the next point that drains them (docs/notes/node-facts.md, "A callback that throws"): the
   * next callback of its phase runs first, and so do a timer or a read after a close callback;
   * anything else of a later phase runs after them. The driver's next immediate runs the next
   * event at once (as processImmediate runs its next immediate without draining), so step()
   * drains first where Node would have.
   */
  private threw = false;
  /** An event step() took and holds while the ticks an exception left behind run (see threw). */
  private takenAfterThrow: WorldEntry | undefined;

  /**
   * The list of the timer that threw (its duration): after a throw processTimers goes on with
   * the rest of that list, and drains before the next list. Undefined when a tick threw, or
   * something other than a timer.
   */
  private threwList: number | undefined;
  /** The chain of the code that threw (program faults' chains; 0 without them). */
  private threwChain = 0;
  /** When the entry next() returned last came due: its instant, or earlier if a stall or pause held it. */
  private takenDueNs = 0;

  /**
   * When the event running now came due: now, or earlier when a stall or a pause held it (a UDP
   * datagram waited in its socket's buffer meanwhile: network/udp.ts ReceiveQueue).
   */
  get runningDueNs(): number {
    const resumed = this.current === undefined ? undefined : this.resumedDueNs.get(this.current);
    return resumed ?? this.takenDueNs;
  }

  /** Entries a paused host had parked, queued again at its resume: when they first came due. */
  private readonly resumedDueNs = new WeakMap<object, number>();
  /**
   * Register mode: the async scope of the last event, when its code threw out of it, until the
   * next event (Node's uncaught-exception handler emits the error before anything else runs).
   */
  private threwIn: AsyncResource | undefined;

  /**
   * The async scope of the event whose code threw the error being emitted now (register mode):
   * the program's 'uncaughtException' listeners run in it, as in Node, where they see the
   * throwing callback's AsyncLocalStorage stores.
   */
  asyncScopeOfThrow(): AsyncResource | undefined {
    return this.threwIn;
  }

  /** Parked.phaseStartNs of the entry taken last, or -1 (see phaseStartNs). */
  private takenPhaseStartNs = -1;

  /**
   * The last event's code returned: a handled throw since came from the ticks and microtasks
   * drained after it (threwInDrain).
   */
  private lastEventReturned = true;
  /**
   * The handled throw came from the drain after a callback (a tick or a microtask), not from
   * the callback's code: Node's callback scope that drained failed, so the ticks left wait for
   * the next callback scope, which drains after its callback, or a check phase's start
   * (continuesAfterDrainThrow).
   */
  private threwInDrain = false;
  /** The instant the code that threw ended (its spin included). */
  private threwEndNs = 0;

  /** An exception thrown by a simulated event's code was handled (the 'uncaughtException' path). */
  noteHandledThrow(): void {
    this.threwInDrain = this.lastEventReturned && this.current === undefined && this.takenAfterThrow === undefined;
    this.threwEndNs = this.nowNs + this.spinNs;
    this.threw = true;
    this.threwChain = this.chain;
    const entry = this.current;
    this.threwList = entry !== undefined && (entry[kKind] === KIND_TIMEOUT || entry[kKind] === KIND_INTERVAL) ? (entry as { _idleTimeout?: number })._idleTimeout : undefined;
  }

  /**
   * Whether the drain that `event` waited for (it threw) stood for the start of a check phase,
   * and `event` is an immediate of it: after a throw or a close callback, Node drains there.
   */
  private drainedAtCheck(event: WorldEntry): boolean {
    const host = event[kHost];
    return host === this.lastHost && event[kKind] === KIND_IMMEDIATE && (host.loopPhase === PHASE_POLL || host.loopPhase === PHASE_CLOSING);
  }

  /**
   * Whether Node runs `event`, taken after a throw, before the ticks the throw left behind: the
   * next timer of the same timers phase (processTimers goes on), the next immediate (after a
   * throw, processImmediate is called again for what is queued now, in the same check phase),
   * the next callback from C++ in the same poll or closing phase (a failed callback scope does
   * not drain; the next one does, after its callback); after a close callback, also a timer due
   * now or a read of the next turn's poll (its check phase, which drains first, comes after).
   */
  private continuesPhase(event: WorldEntry): boolean {
    const host = event[kHost];
    if (host !== this.lastHost) return false;
    const kind = event[kKind];
    const turn = kind === KIND_IMMEDIATE || kind === KIND_IO ? (event as { [kCheckTurn]?: number })[kCheckTurn] : undefined;
    const phase = turn !== undefined && kind === KIND_IO ? PHASE_CLOSING : phaseOfKind(kind);
    const thrown = host.loopPhase;
    if (this.threwInDrain) {
      const after = this.continuesAfterDrainThrow(event, host, phase, turn, thrown);
      if (after !== undefined) return after;
    }
    // A packet the host sent itself knows the poll that reads it (its instant may be later).
    const pollTurn = (event as { pollTurn?: number }).pollTurn ?? -1;
    if (phase === PHASE_POLL && pollTurn >= 0) {
      if (thrown === PHASE_POLL) return pollTurn <= host.loopTurn;
      return thrown === PHASE_CLOSING && pollTurn <= host.loopTurn + 1;
    }
    // Due when the callback that threw ran, but held since by a stall of its process that began
    // then (event-loop lag, a GC pause in that callback): Node goes on with the phase, late.
    const heldFromThen = this.takenDueNs <= host.loopNs && (!this.chainsOn || this.chainOf(event) === this.threwChain);
    if (this.nowNs !== host.loopNs && !heldFromThen) return false;
    if (thrown === PHASE_CLOSING && phase !== PHASE_CLOSING) return phase === PHASE_TIMERS || phase === PHASE_POLL;
    if (phase !== thrown) return false;
    if (phase === PHASE_TIMERS && this.threwList !== undefined) return (event as { _idleTimeout?: number })._idleTimeout === this.threwList;
    return phase === PHASE_CHECK || turn === undefined || turn <= host.loopTurn;
  }

  /**
   * continuesPhase() after a throw in the drain that followed a callback (threwInDrain), where it
   * differs from a throw in the callback's code; undefined where it does not. Node's callback
   * scope that drained failed and does not drain again, and Node's handler queues an immediate,
   * so the check phase comes round without the loop blocking. The ticks left run after the next
   * callback, as its own scope closes, unless the next check phase's start drains first (the
   * scope around its native immediates): a callback due by then, of a later phase of the turn
   * before that check phase, runs first. So after the check phase's last immediate, a close
   * callback, or a timer or read due by then, runs before them, and an immediate of the next
   * check phase after them; after a timer, a read of the turn's poll runs before them. (A
   * program's top level is no event: its drain's leftovers are drained by Node's check phase
   * before the driver's first immediate; docs/notes/node-facts.md.)
   */
  private continuesAfterDrainThrow(event: WorldEntry, host: WorldHost, phase: number, turn: number | undefined, thrown: number): boolean | undefined {
    // An immediate of this check phase: the drain between immediates threw (processImmediate goes
    // on with them, below). One of the next check phase: its start drains.
    if (phase === PHASE_CHECK) return thrown === PHASE_CHECK ? (turn !== undefined && turn <= host.loopTurn) : undefined;
    if (phase === thrown || this.takenDueNs > this.threwEndNs) return undefined;
    const pollTurn = (event as { pollTurn?: number }).pollTurn ?? -1;
    if (thrown === PHASE_CHECK || thrown === PHASE_CLOSING) {
      // This turn's closing phase, the next turn's timers and poll.
      return phase !== PHASE_POLL || pollTurn < 0 || pollTurn <= host.loopTurn + 1;
    }
    // After a timer, a read of its turn's poll.
    if (phase === PHASE_POLL) return pollTurn < 0 || pollTurn <= host.loopTurn;
    return undefined;
  }

  /**
   * Holds the simulation (no event runs, virtual time stands still) until `done` settles or
   * `release` is called: for real asynchronous work such as loading a host's modules, whose
   * real duration must not decide which simulated events run first.
   */
  waitForRealWork(done: Promise<unknown>): () => void {
    const release = this.holdForRealWork();
    done.then(release, release);
    return release;
  }

  /** How many pieces of real work hold the simulation now (module loading, fs calls in flight, ...). */
  get realWorkHolds(): number {
    return this.blockers;
  }

  /** Holds the simulation until the returned function is called (once is enough; more are no-ops). */
  holdForRealWork(): () => void {
    this.blockers++;
    return once(() => {
      this.blockers--;
      this.kick();
    });
  }

  /**
   * Holds the simulation while Node's module loader reads a file for an import() of the program
   * (shims/fs/fs.ts), as holdForRealWork(). Before the first event its end starts the driver only
   * when an event is waiting: the reads of a register-mode entry's own graph, before its top level
   * has run, then leave the driver as they found it (a start there ran the first event before
   * strict mode's first look for the top level's real timers: tripwire.test.mjs).
   */
  holdForImport(): () => void {
    if (this.eventsRun > 0) return this.holdForRealWork();
    this.blockers++;
    return once(() => {
      this.blockers--;
      if (this.queue.size > 0 || this.ready.length > 0) this.kick();
    });
  }

  /** holdForImport() until `done` settles, as waitForRealWork() holds for real work. */
  waitForImport(done: Promise<unknown>): void {
    const release = this.holdForImport();
    done.then(release, release);
  }

  /**
   * Asked before each event while set: true after it took a hold for real work Node must run
   * before the next event (immediates native code queued: TLS, HTTP/2; shims/timers/native-immediates.ts).
   */
  preStepHold: (() => boolean) | undefined;

  private next(): WorldEntry | undefined {
    this.runAfterEvents();
    if (this.nextPolls.length > 0) this.queueNextPolls();
    // A spin without clock reads too: a synchronous call on a slow disk (busy()) in an event that
    // never read a clock left its time to whichever host ran next (its clocks then went back).
    if (this.clockReads !== 0 || this.spinNs !== 0) this.endSpin();
    // Asked even while real work (an fs call the event started) holds the world: the native
    // immediates that event queued must be claimed now, before that work completes, or where
    // its completion lands among their writes depends on the thread pool (real-work.ts, flush).
    // Not between an event and the continuation it queued (continuePoll: the next TLS record or
    // HTTP/2 frame of one read, the next read of the handle): libuv serves them in one poll, and
    // Node runs native immediates in the check phase after it. Claimed there, a session's writes
    // went out between two frames of one read (Node's test-http2-max-concurrent-streams: the
    // second stream was accepted, not refused, since the first had closed in between).
    const continued = this.continued;
    this.continued = false;
    if (!continued && this.preStepHold !== undefined && !this.stopped && this.preStepHold()) return undefined;
    for (;;) {
      if (this.stopped || this.blockers > 0) return undefined;
      if (this.idleWaiters.size > 0) this.hosts.settleIdleClients();
      if (this.clientsTotal > 0 && this.clientsPending === 0) {
        this.finish('clients-done');
        return undefined;
      }
      if (this.refs === 0) {
        this.quiesce();
        return undefined;
      }
      if (this.ready.length > 0) {
        const event = this.nextReady();
        if (event !== undefined) return event;
        continue;
      }
      const event = this.queue.peek();
      if (this.wakeNs !== Infinity && (event === undefined || this.queue.firstTimeNs >= this.wakeNs)) {
        // A stall ends before the next queued instant: time moves to its end.
        if (!this.advanceTo(this.wakeNs)) return undefined;
        this.wakeStalled();
        continue;
      }
      if (event === undefined || (this.background.size > 0 && this.wakeNs === Infinity && this.background.has(event) && this.onlyBackground())) {
        // Ref'd handles remain (a listening server, a paused host) but nothing is scheduled.
        // In library mode nothing outside the simulation may wake it: the run is over.
        if (this.options.durationNs !== undefined) {
          this.nowNs = Math.max(this.nowNs, this.options.durationNs);
          this.finish('duration');
        } else if (this.mode === 'library') {
          this.finish('idle');
        }
        return undefined;
      }
      const host = event[kHost];
      // Packets still arrive at a host whose process is down: its kernel answers them.
      if (host.state !== 'running' && event[kKind] !== KIND_NET) {
        this.queue.pop();
        continue;
      }
      const timeNs = this.queue.firstTimeNs;
      if (host.paused || host.stalledUntilNs > timeNs || (this.chainsOn && this.chainHeld(event, timeNs))) {
        this.queue.pop();
        this.parking.park(host, event, event[kSeq], timeNs, this.chainsOn ? (this.chainTurns.get(this.chainOf(event)) ?? host.loopTurn) : host.loopTurn);
        continue;
      }
      if (timeNs > this.nowNs && !this.advanceTo(timeNs)) return undefined;
      // Not while program faults hold chains: their lag and stalls decide such orders then.
      if (this.phases.completionsPending && !this.chainsOn && event[kKind] === KIND_NET && (event as SimEvent<WorldHost>).pollTurn >= 0) {
        // A completion of libuv's pending queue (a shutdown) runs before the reads of its turn's poll.
        const first = this.phases.completionBefore(event as SimEvent<WorldHost>, host);
        if (first !== undefined) {
          first[kSeq] = ++this.seq;
          return this.taken(first);
        }
      }
      const watched = this.watchedReads.size > 0 && this.watchedReads.has(event as SimEvent<WorldHost>);
      if (this.phases.active && !this.chainsOn && event[kKind] === KIND_NET && (watched || (event as SimEvent<WorldHost>).pollTurn > host.loopTurn)) {
        // Work of a later poll (an accept that waits for a poll of its own) after what an earlier
        // poll reads; a socket epoll starts watching after the packets its poll reads.
        const first = this.phases.earlierPoll(event as SimEvent<WorldHost>, host, watched);
        if (first !== undefined) {
          first[kSeq] = ++this.seq;
          return this.taken(first);
        }
      }
      if (this.phases.active && (event as { [kCheckTurn]?: number })[kCheckTurn] !== undefined) {
        // With program faults' chains, only the chain's own: a loopback packet it reads in an
        // earlier poll, its immediates before its close callbacks of the same turn (the chain is
        // not held now, or `event` would be parked).
        const chain = this.chainsOn ? this.chainOf(event) : 0;
        const first = this.phases.before(event, host, timeNs, this.chainsOn ? (entry) => this.chainOf(entry) === chain : undefined);
        if (first !== undefined) {
          // What libuv runs before this immediate or close callback (a loopback packet read in an
          // earlier poll phase, an immediate before a closing phase, a newer close callback) runs
          // now; its place in the queue is left stale.
          first[kSeq] = ++this.seq;
          return this.taken(first);
        }
      }

      this.queue.pop();
      return this.taken(event);
    }
  }

  /**
   * Whether every live entry of the queue is a background one (scheduleBackground). Asked only
   * with no stall pending: a stalled host's parked work runs when its stall ends.
   */
  private onlyBackground(): boolean {
    return !this.queue.some((entry) => !this.background.has(entry));
  }

  /**
   * The turn of `host`'s loop whose check phase an immediate queued now runs in: this turn's,
   * or the next one's when queued from an immediate or a close callback (Node runs immediates
   * queued during the check phase in the next turn).
   */
  checkTurn(host: WorldHost): number {
    const phase = this.phaseNow(host);
    return phase === PHASE_CHECK || phase === PHASE_CLOSING ? host.loopTurn + 1 : host.loopTurn;
  }

  /** Notes an immediate of `host` just queued (its place in libuv's phases: scheduler/phase-order.ts). */
  noteImmediate(host: WorldHost, immediate: WorldEntry): void {
    if (this.phases.closesPending) this.phases.noteImmediate(host, immediate, this.nowNs + (this.spinNs === 0 ? 0 : this.spinFor(immediate)));
  }

  /**
   * Queues `fn`, a handle's close callback of `host`, as libuv runs it: in the closing phase of
   * this turn (of the next, when queued from a close callback), after its poll and check phases,
   * newest first (scheduler/phase-order.ts). Due at this instant even while the code that closed
   * it spins on the clock: the closing phase follows the busy callback, and the stall that ends
   * it releases the callback with what else came due, in the closing phase's place
   * (loop-phases.ts). A ref'd event: a closing handle keeps the loop alive.
   */
  scheduleClose(host: WorldHost, fn: (this: any) => void, thisArg: unknown, scope: AsyncResource | undefined): SimEvent<WorldHost> {
    const event = this.scheduleAt(host, this.nowNs, 'io', fn, thisArg, true, scope, undefined);
    if (event[kSeq] !== 0) {
      event[kCheckTurn] = this.phaseNow(host) === PHASE_CLOSING ? host.loopTurn + 1 : host.loopTurn;
      this.phases.noteClose(host, event, this.nowNs);
    }
    return event;
  }

  /**
   * Marks `event`, a request's completion `host` queued now at this instant, as libuv runs it
   * from its pending queue (uv__io_feed): in this turn, right after the timers or right after
   * poll, so before this turn's immediates and close callbacks; in the next, when queued from an
   * immediate or a close callback (scheduler/phase-order.ts).
   */
  pendingPhase(event: SimEvent<WorldHost>, host: WorldHost): void {
    if (event[kSeq] === 0) return;
    // The turn an immediate queued now runs in: the pending queue is run in the same turns.
    event.pollTurn = this.checkTurn(host);
    this.phases.notePoll(host, event);
  }

  /**
   * The turn of `host`'s loop whose poll phase reads a packet it sends itself now: this turn's
   * when sent from a timer or the main script (the poll phase comes next), the next one's when
   * sent from an I/O callback (the epoll of this turn has returned), an immediate or a close
   * callback. Also the first turn whose poll sees what the host does to a socket now through
   * libuv's pending queue (a shutdown(2)).
   */
  pollTurn(host: WorldHost): number {
    const phase = this.phaseNow(host);
    return phase === PHASE_POLL || phase === PHASE_CHECK || phase === PHASE_CLOSING ? host.loopTurn + 1 : host.loopTurn;
  }

  /** The loop phase `host`'s code runs in now: the running event's, or a program's top level. */
  private phaseNow(host: WorldHost): number {
    if (this.eventKind === -1) return this.topLevelPhase;
    return this.runningHost === host ? this.runningPhase : host.loopPhase;
  }

  /**
   * Runs `send`, which sends the kernel's own answer to the packet being delivered now (a SYN-ACK
   * or a reset to a SYN): on loopback it is read in the same poll turn as that packet, as when
   * connect(2) runs the whole handshake at once, not in the turn after, as the application's
   * answers from its callbacks are.
   */
  kernelReply<T>(send: () => T): T {
    const current = this.current as SimEvent<WorldHost> | undefined;
    const turn = current !== undefined && current[kKind] === KIND_NET && current.pollTurn >= 0 ? current.pollTurn : -1;
    return this.inPollTurn(turn, send);
  }

  /** NetworkWorld.loopbackAtOnce: loopback packets scheduled so far that arrive at once. */
  get loopbackAtOnce(): number {
    return this.atOnceArrivals;
  }

  /**
   * Runs `send`, whose loopback packet its host reads in the poll phase of turn `turn` instead of
   * pollTurn()'s (-1: pollTurn()'s): a UDP socket's datagrams beyond the 32 libuv reads of it in
   * one poll wait for the next poll (network/udp.ts).
   */
  inPollTurn<T>(turn: number, send: () => T): T {
    if (turn < 0) return send();
    const outer = this.replyTurn;
    this.replyTurn = turn;
    try {
      return send();
    } finally {
      this.replyTurn = outer;
    }
  }

  /** The next entry of a host whose stall ended, if it is still live (undefined: try again). */
  private nextReady(): WorldEntry | undefined {
    const parked = this.ready.shift()!;
    const { host, entry, seq } = parked;
    if (entry[kSeq] !== seq || host.state !== 'running') return undefined;
    if (host.paused || host.stalledUntilNs > this.nowNs || (this.chainsOn && this.chainHeld(entry, this.nowNs))) {
      this.parking.repark(parked);
      return undefined;
    }
    const taken = this.taken(entry);
    this.takenDueNs = parked.timeNs;
    this.takenPhaseStartNs = parked.phaseStartNs ?? -1;
    return taken;
  }

  /**
   * Moves virtual time forward to `timeNs`, unless the run's budget or its time limit ends first
   * (then the run stops and this returns false).
   */
  private advanceTo(timeNs: number): boolean {
    if (timeNs <= this.nowNs) return true;
    if (this.options.durationNs !== undefined && timeNs > this.options.durationNs) {
      this.nowNs = this.options.durationNs;
      this.finish('duration');
      return false;
    }
    if (timeNs > this.options.timeLimitNs) {
      this.nowNs = this.options.timeLimitNs;
      this.limitTripped(
        `virtual time limit of ${formatTimeNs(this.options.timeLimitNs)} reached with work still pending ` +
          `(set DST_TIME_LIMIT or the timeLimitMs option to allow more)`,
      );
      return false;
    }
    if (timeNs >= this.timeWatchNs) this.watchCulprits();
    this.nowNs = timeNs;
    return true;
  }

  /** Accounts for an entry leaving the queue to run now; undefined when the event limit stops the run. */
  private taken(event: WorldEntry): WorldEntry | undefined {
    this.takenDueNs = this.nowNs;
    this.takenPhaseStartNs = -1;
    if (this.watchedReads.size > 0) this.watchedReads.delete(event as SimEvent<WorldHost>);
    if (event[kRef]) {
      event[kHost].refs--;
      this.refs--;
    }
    if (this.eventsRun >= this.options.eventsMax) {
      this.limitTripped(
        `event limit of ${this.options.eventsMax.toLocaleString('en-US')} events reached ` +
          `(set DST_EVENT_LIMIT or the eventsMax option to allow more)`,
      );
      return undefined;
    }
    if (this.eventsRun === this.eventsWatch) this.watchCulprits();
    return event;
  }

  /** Runs an entry next() returned; it is due now (its instant is nowNs). */
  private runEvent(event: WorldEntry): void {
    const n = ++this.eventsRun;
    if (this.threwIn !== undefined) this.threwIn = undefined;
    this.current = event;
    const host = event[kHost];
    host.eventsRun++;
    this.lastHost = host;
    const kind = event[kKind];
    this.eventKind = kind;
    if (kind !== KIND_IMMEDIATE) this.immediatesInARow = 0;
    else if (++this.immediatesInARow > IMMEDIATES_FROZEN) this.busy(host, SPIN_NS_PER_IMMEDIATE);
    const nowNs = this.nowNs;
    // The host's loop turn: a new one when time moved or its phase came round again; an immediate
    // or a close callback knows its own (a later one, when it was queued from its own phase).
    const turn = kind === KIND_IMMEDIATE || kind === KIND_IO ? (event as { [kCheckTurn]?: number })[kCheckTurn] : undefined;
    const phase = turn !== undefined && kind === KIND_IO ? PHASE_CLOSING : phaseOfKind(kind);
    this.runningPhase = phase;
    const pollTurn = kind === KIND_NET ? (event as SimEvent<WorldHost>).pollTurn : -1;
    if (this.beginsTurn(host, phase, pollTurn)) host.loopTurn++;
    if (turn !== undefined && turn > host.loopTurn) host.loopTurn = turn;
    // Work of a later poll at the same instant (an accept that waited for a poll of its own):
    // the loop has come round to that turn.
    else if (pollTurn > host.loopTurn) host.loopTurn = pollTurn;
    host.loopNs = nowNs;
    host.loopPhase = phase;
    if (this.phases.active) this.phases.ran(host, event);
    this.fingerprint.mixEvent(nowNs | 0, (nowNs / 0x1_0000_0000) | 0, host.index, host.incarnation, kind);
    if (this.trace !== undefined) {
      this.trace.write({
        n,
        tNs: this.nowNs,
        host: host.name,
        boot: host.incarnation,
        kind: EVENT_KIND_NAME[kind],
        seq: event[kSeq],
        site: event[kSite],
      });
    }
    if (this.culpritCounts !== undefined) {
      const site = `${EVENT_KIND_NAME[kind]} scheduled at ${event[kSite] ?? UNKNOWN_PLACE}`;
      this.culpritCounts.set(site, (this.culpritCounts.get(site) ?? 0) + 1);
    }
    if (this.chainsOn) {
      this.chain = this.chainOf(event);
      this.chainTurns.set(this.chain, host.loopTurn);
    }
    // Event-loop lag: this event's code takes longer than its own work (the chain, or the host,
    // is busy), so what comes due next in it runs late.
    if (this.beforeEvent !== undefined) this.beforeEvent(host, this.chain);
    if (this.lagging.size > 0) this.lagEvent(host);
    this.runningHost = host;
    // invoke() sets runningAsyncId: the id the event's code will run under.
    if (this.mode === 'register') {
      // Let an exception escape to Node's own uncaughtException machinery, as in real Node.
      // Node runs that machinery still in the callback's async context (its emitAfter is not in
      // a finally); the event's scope was left as the error went through it. Noted without a
      // catch: a rethrow would make Node's report show this file's line as the throw's.
      let returned = false;
      try {
        this.invoke(event);
        returned = true;
      } finally {
        this.lastEventReturned = returned;
        if (!returned) this.threwIn = event[kScope];
        this.runningAsyncId = -1;
        this.runningHost = undefined;
      }
    } else {
      try {
        this.invoke(event);
      } catch (error) {
        this.runningAsyncId = -1;
        this.runningHost = undefined;
        this.hosts.failed(host, error, 'crash');
      }
      this.runningAsyncId = -1;
      this.runningHost = undefined;
    }
    this.current = undefined;
    if (destroyHooksOn) this.destroysOwed = true;
  }

  /** An event ran while the program's destroy hooks were on: what it destroyed is heard at its host's next check phase. */
  private destroysOwed = false;
  /** An event step() took, to run once Node's loop has delivered the destroys owed (see destroysOwed). */
  private takenForDestroys: WorldEntry | undefined;

  /**
   * Whether Node would deliver the destroys the last event owes before `event`, the next to run:
   * unless it is a callback of the same host's loop turn before its check phase (a timer's
   * destroy is heard after the I/O callbacks of its turn, as plainly).
   */
  private destroysFirst(event: WorldEntry): boolean {
    const host = event[kHost];
    if (host !== this.lastHost) return true;
    const kind = event[kKind];
    const turn = kind === KIND_IMMEDIATE || kind === KIND_IO ? (event as { [kCheckTurn]?: number })[kCheckTurn] : undefined;
    const phase = turn !== undefined && kind === KIND_IO ? PHASE_CLOSING : phaseOfKind(kind);
    if (phase === PHASE_CHECK || phase === PHASE_CLOSING) return true;
    // A new turn of its loop (as runEvent() counts them).
    const pollTurn = kind === KIND_NET ? (event as SimEvent<WorldHost>).pollTurn : -1;
    return this.beginsTurn(host, phase, pollTurn) || (turn !== undefined && turn > host.loopTurn);
  }

  /**
   * Whether an event of `host` in loop phase `phase` running now begins a new turn of its loop:
   * when time moved or its phase came round again; not poll-phase work of the turn the loop is
   * in (`pollTurn`: a loopback packet read in the poll after the timers or the main script that
   * sent it, though its simulated arrival came a few µs later; the 32 datagrams libuv reads of a
   * socket in one poll).
   */
  private beginsTurn(host: WorldHost, phase: number, pollTurn: number): boolean {
    const rank = phaseRank(phase);
    const hostRank = phaseRank(host.loopPhase);
    if (pollTurn >= 0 && pollTurn === host.loopTurn && rank >= hostRank) return false;
    return this.nowNs !== host.loopNs || rank < hostRank;
  }

  private invoke(event: WorldEntry): void {
    const scope = event[kScope];
    if (scope !== undefined) {
      // Its code runs under the scope's own id, never this one: currentHost() asks the storage.
      this.runningAsyncId = executionAsyncId();
      scope.runInAsyncScope(event[kFire], event);
      return;
    }
    if (FRAMED_CONTEXT || (RESOURCE_STORE !== undefined && !userAsyncStores)) {
      const hostScope = this.hostScope(event[kHost]);
      // The event's code runs under the host scope's async id (see currentHost()).
      this.runningAsyncId = hostScope.asyncId();
      hostScope.runInAsyncScope(event[kFire], event);
      return;
    }
    // Below, the event's code runs under the driver's immediate, with the host as its store.
    this.runningAsyncId = executionAsyncId();
    if (RESOURCE_STORE !== undefined) {
      // als.run(host, fire), unrolled (see RESOURCE_STORE). run() enables the storage on its
      // first call, so the first event of a world goes through it.
      if (!this.alsEnabled) {
        this.alsEnabled = true;
        alsRun.call(this.als, event[kHost], this.fireCurrent);
        return;
      }
      const resource = executionAsyncResource() as unknown as Record<symbol, unknown>;
      const prior = resource[RESOURCE_STORE];
      resource[RESOURCE_STORE] = event[kHost];
      try {
        event[kFire]();
      } finally {
        resource[RESOURCE_STORE] = prior;
      }
    } else alsRun.call(this.als, event[kHost], this.fireCurrent);
  }

  private alsEnabled = false;

  /**
   * The scope an event enters when it captured none. With context frames, als.run() builds two
   * new frames (copies of a Map) per call, the largest cost of an event on Node 24; entering a
   * frame made once per host incarnation costs none. The frame holds the host and nothing the
   * event could change: a store entered by the event's code (enterWith) replaces the current
   * frame, and runInAsyncScope restores it afterwards. With async_hooks the same scope serves
   * only until the program uses a store of its own: from then on an enterWith would leak into the
   * host's later events through the shared resource, so invoke() sets the store on the driver's
   * immediate instead.
   */
  private hostScope(host: WorldHost): AsyncResource {
    let scope = host.scope;
    if (scope === undefined) {
      scope = this.freshScope(host, 'dst-host');
      host.scope = scope;
    }
    return scope;
  }

  /**
   * A new async context of `host` that holds no store of the program's (made in the root
   * context, whatever runs now), as a native resource that Node creates outside any callback: an
   * accepted connection. `triggerAsyncId` is what async hooks see as its trigger.
   */
  freshScope(host: WorldHost, type: string, triggerAsyncId?: number): AsyncResource {
    const options = triggerAsyncId === undefined ? { requireManualDestroy: true } : { requireManualDestroy: true, triggerAsyncId };
    const scope = ROOT_SCOPE.runInAsyncScope(() => alsRun.call(this.als, host, () => new AsyncResource(type, options))) as AsyncResource;
    if (RUNTIME_SCOPE_TYPES.has(type)) runtimeScope(scope);
    return scope;
  }

  private watchCulprits(): void {
    if (this.culpritCounts !== undefined) return;
    this.culpritCounts = new Map();
    this.captureSites = true;
  }

  private limitTripped(message: string): void {
    let culprit = '';
    if (this.culpritCounts !== undefined && this.culpritCounts.size > 0) {
      // A source with a place in the program names what to look at; network arrivals have
      // none, and come as often as the timer that drives them: they are named only when no
      // source has a place.
      let best = '';
      let bestCount = -1;
      let bestKnown = false;
      for (const [site, count] of this.culpritCounts) {
        const known = !site.endsWith(UNKNOWN_PLACE);
        if ((known && !bestKnown) || (known === bestKnown && count > bestCount)) {
          best = site;
          bestCount = count;
          bestKnown = known;
        }
      }
      culprit = `; the busiest source near the limit: ${best} (ran ${bestCount.toLocaleString('en-US')} times)`;
    }
    const host = this.current?.[kHost] ?? this.lastHost;
    this.fail('limit', host, runtimeError(`${message}${culprit}`), `run stopped: ${message}`);
  }

  /** Builds the report for a failure at the current point of the run. */
  report(kind: FailureKind, host: Host | undefined, error: unknown, summary: string): FailureReport {
    return {
      kind,
      summary,
      error,
      seed: this.seedText,
      timeNs: this.nowNs,
      event: this.eventsRun,
      host: host?.name,
      incarnation: host?.incarnation,
      replay: this.options.replay,
      ...(this.faultMix === undefined ? {} : { faults: this.faultMix }),
      fingerprint: this.fingerprint.toString(),
      ...siteField(failureSite(error)),
    };
  }

  /** Writes a failure to the trace (the viewer marks it where it happened), if tracing. */
  traceFailure(report: FailureReport, failed?: Host): void {
    if (this.trace === undefined) return;
    const error = report.error;
    const message = error instanceof Error ? `${error.name}: ${error.message}` : report.summary;
    const host = failed ?? (report.host === undefined ? undefined : this.hosts.get(report.host));
    // A scenario's failed invariant names itself on the error (runtime/scenario/scenario.ts).
    const invariant = error !== null && typeof error === 'object' ? (error as Record<symbol, unknown>)[Symbol.for('dst-runtime.invariant')] : undefined;
    this.annotate(host, 'failure', {
      failure: report.kind,
      message,
      ...(typeof invariant === 'string' ? { invariant } : {}),
      ...(report.site === undefined ? {} : { site: report.site }),
    });
  }

  /** Strict mode: real asynchronous work made by host code escaped the simulation; the run fails. */
  escaped(host: Host | undefined, error: unknown, summary: string): void {
    this.fail('escape', host, error, summary);
  }

  /**
   * The run is stopped from outside (library mode: Sim.abort). No host is named: whatever ran
   * last did not fail, the run was cut short.
   */
  aborted(error: unknown, summary: string): void {
    this.fail('aborted', undefined, error, summary);
  }

  /**
   * Register mode: the failure it printed (the first), whose kind and summary go in DST_REPORT
   * whole: the CLI's fresh run that confirms a failure compares its message with the explorer's,
   * and a message of several lines (an assertion's diff) cut to its first line differed.
   */
  get shownFailure(): FailureReport | undefined {
    return this.firstShownFailure;
  }
  private firstShownFailure: FailureReport | undefined;

  /** Register mode: prints `text`, the failure `report` as shown to the user, on the real stderr (shownFailure). */
  showFailure(report: FailureReport, text: string): void {
    this.firstShownFailure ??= report;
    originals.process.stderr.write(`${text}\n`);
  }

  /** The run fails with this report (the first failure wins). */
  fail(kind: FailureKind, host: Host | undefined, error: unknown, summary: string): void {
    if (this.outcome !== undefined) return;
    const report = this.report(kind, host, error, summary);
    this.traceFailure(report, host);
    this.finish('failure', report);
    this.onFailure?.(report);
  }

  /**
   * Library mode: what (a phrase) while the process has real work in flight that a host or client may be
   * awaiting although no simulated event stands for it: Node's module loader reading a file or
   * asking a loader-hooks thread for a dynamic import() (Node 20), or, while `clientsWaiting`, a
   * test runner fetching the module over its worker's IPC channel or port (Vitest;
   * shims/process/real-loads.ts).
   */
  realLoadsInFlight: ((clientsWaiting: boolean) => string | undefined) | undefined;
  private quiesceRetry: ReturnType<typeof setTimeout> | undefined;
  /** What the run waited for at its end the last time it asked (realLoadsInFlight). */
  private endWaitsFor: string | undefined;

  /**
   * What the run waits for now, if it waits for real work (undefined when it runs events or is
   * idle): for a report of a run stopped from outside, which otherwise cannot tell a busy run
   * from one that waits. At its end it waits while nothing ref'd is left (quiesce() asks only
   * then); not by whether the retry timer is armed: that timer is let go the moment it fires,
   * before the driver asks again, and a wall-clock guard firing in the same timers phase found
   * the run neither waiting nor busy (Node 24, a CI run, 2026-12-06). Work that came after the
   * wait is ref'd, so a run busy since then never shows the wait that is over.
   */
  get waitingFor(): string | undefined {
    if (this.blockers > 0) return `real work it holds for (${this.blockers}: a module load, an fs call or native immediates in flight)`;
    return this.refs === 0 ? this.endWaitsFor : undefined;
  }

  private quiesce(): void {
    // Register mode never "finishes": the process exits by itself once Node's loop is empty,
    // and new work (a real I/O callback) may still wake the driver.
    if (this.mode !== 'library') return;
    // A host or client awaiting a dynamic import() holds nothing simulated, but Node keeps its
    // process alive for the load: ask again once the real work has moved on (virtual time stands
    // still meanwhile, so how long the load takes changes nothing in the run).
    this.endWaitsFor = this.realLoadsInFlight?.(this.clientsPending > 0);
    if (this.endWaitsFor !== undefined) {
      // Made outside every host: it is the runtime's timer, not the host's (strict mode).
      this.quiesceRetry ??= this.als.exit(this.armQuiesceRetry);
      return;
    }
    this.finish('quiescent');
  }

  private readonly armQuiesceRetry = (): ReturnType<typeof setTimeout> => originals.setTimeout(this.retryQuiesce, 1);

  private readonly retryQuiesce = runtimeCallback((): void => {
    this.quiesceRetry = undefined;
    if (!this.stopped) this.driver.kick();
  });

  private finish(reason: StopReason, failure?: FailureReport): void {
    if (this.outcome !== undefined) return;
    this.stopped = true;
    this.driver.stop();
    if (this.quiesceRetry !== undefined) originals.clearTimeout(this.quiesceRetry);
    this.outcome = { reason, failure };
    this.trace?.flush();
    for (const resolve of this.doneWaiters.splice(0)) resolve(this.outcome);
  }

  get result(): WorldOutcome | undefined {
    return this.outcome;
  }

  /**
   * Releases resources: the native handles of every host (whatever the run's end: sockets
   * still open belong to machines that no longer exist, and an open native handle would keep
   * this world reachable from Node's handle list) and the trace file. Pending events are dropped.
   */
  dispose(): void {
    this.stopped = true;
    this.driver.stop();
    this.queue.clear();
    this.nextPolls.length = 0;
    this.parking.clear();
    this.natives.release(undefined);
    this.trace?.close();
    // After the first run of the process, before the garbage collection that would take the
    // maps of its entries with it (runtime/scheduler/shape-keeper.ts).
    if (!keeperWorldMade && shapesKept()) startShapeKeeper(keeperHost());
  }

  flushTrace(): void {
    this.trace?.flush();
  }

  /** True while a trace is written: annotations are built only then. */
  get tracing(): boolean {
    return this.trace !== undefined;
  }

  /**
   * Writes an annotation to the trace: something that happened during event `n` (a message sent
   * or delivered, a fault, the failure), not an event of its own. Annotations carry no `seq` and
   * never reach the fingerprint, so a traced run is the same run as an untraced one.
   */
  annotate(host: Host | undefined, kind: string, fields: Record<string, unknown>): void {
    if (this.trace === undefined) return;
    const who = host === undefined || host.role === 'system' ? {} : { host: host.name, boot: host.incarnation };
    this.trace.write({ n: this.eventsRun, tNs: this.nowNs, ...who, kind, ...fields });
  }

  /** A fresh id for a traced message or connection (each counted per run, from 1). */
  nextTraceId(kind: 'msg' | 'conn' = 'msg'): number {
    return ++this.traceIds[kind];
  }

  get pendingEvents(): number {
    return this.queue.size;
  }

  /** Milliseconds of virtual time, for messages. */
  get nowMs(): number {
    return this.nowNs / NS_PER_MS;
  }
}

function siteField(site: string | undefined): { site?: string } {
  return site === undefined ? {} : { site };
}

// ---- the active world ---------------------------------------------------------------------

/** True once the shape keeper's World exists (its own dispose() must not make another). */
let keeperWorldMade = false;

/**
 * The shape keeper's host: a host of a World that never runs, taken down at once, so what is made
 * for it is inert: a timer of it is never queued, an event of it comes back cancelled.
 */
function keeperHost(): WorldHost {
  keeperWorldMade = true;
  const world = new World({
    seed: 0n,
    mode: 'library',
    epochMs: 0,
    eventsMax: 0,
    timeLimitNs: 0,
    durationNs: undefined,
    traceFile: undefined,
    replay: '',
  });
  const host = world.hosts.add('dst-shape-keeper', 'system');
  host.state = 'exited';
  world.dispose();
  return host;
}

// The runtime's own events (boots, packets, calls): one cancelled SimEvent keeps their map.
keepShapesOf<WorldHost>((host) => [host.world.schedule(host, 0, 'call', noop, undefined, false)]);

function noop(): void {}

let active: World | undefined;

/** The async-context store of code of no host (World.outsideHosts): not a host of any world. */
const OUTSIDE_HOSTS = Object.freeze({ world: undefined }) as unknown as WorldHost;

/** The world whose shims are installed, if any. Shims consult it on every call. */
export function activeWorld(): World | undefined {
  return active;
}

export function setActiveWorld(world: World | undefined): void {
  if (world !== undefined && active !== undefined && active !== world) {
    throw new UsageError(
      `Failed to start simulation (seed ${world.seedText}): another simulation (seed ${active.seedText}) is running ` +
        `in this process; await its run() before starting the next`,
    );
  }
  active = world;
}
