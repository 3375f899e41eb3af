import type { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { formatTimeNs, NS_PER_MS } from './clock/units.js';
import { Driver } from './driver/driver.js';
import { assert, UsageError } from './errors.js';
import { type FailureKind, type FailureReport, runtimeError } from './failure.js';
import { Host, type HostRole } from './hosts/host.js';
import { originals } from './originals.js';
import { formatSeed } from './random/seed.js';
import { RandomStream } from './random/stream.js';
import { EVENT_KIND_CODE, type EventKind, SimEvent } from './scheduler/event.js';
import { EventQueue } from './scheduler/queue.js';
import { Fingerprint } from './trace/fingerprint.js';
import { captureSite } from './trace/site.js';
import { TraceWriter } from './trace/trace-writer.js';

export type WorldMode = 'library' | 'register';

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
  traceFile: string | undefined;
  /** The command that replays this run, printed with every failure. */
  replay: string;
}

export type StopReason = 'quiescent' | 'clients-done' | 'duration' | 'failure';

/** Where a run stands when it ends. */
export interface WorldOutcome {
  reason: StopReason;
  failure: FailureReport | undefined;
}

/** Fraction of a limit after which the runtime starts recording who schedules events. */
const CULPRIT_WATCH_RATIO = 0.9;

function invoke(event: SimEvent): void {
  event.fn.call(event.thisArg);
}

/**
 * The private state of one simulation: virtual time, the event queue, hosts, random streams,
 * the fingerprint and the trace. `Sim` is its public handle; shims reach it via activeWorld().
 */
export class World {
  readonly options: WorldOptions;
  readonly seed: bigint;
  readonly seedText: string;
  readonly mode: WorldMode;
  readonly epochMs: number;
  readonly als: AsyncLocalStorage<Host>;
  readonly hosts: Host[] = [];
  private readonly hostsByName = new Map<string, Host>();
  /** In register mode, code outside every host's context belongs to this host ("main"). */
  fallbackHost: Host | undefined;

  nowNs = 0;
  private seq = 0;
  /** Events run so far; the "event N" of failure messages. */
  eventsRun = 0;
  /** Ref'd handles and ref'd pending events: the run goes on while this is above zero. */
  refs = 0;
  private readonly queue = new EventQueue();
  readonly fingerprint = new Fingerprint();
  private readonly trace: TraceWriter | undefined;
  readonly driver: Driver;
  /** The event being run, if any. */
  current: SimEvent | undefined;
  /** The host of the last event run; unhandled rejections are attributed to it. */
  lastHost: Host | undefined;

  /** True when event sites are captured (tracing, or a limit is close). */
  captureSites: boolean;
  private culpritCounts: Map<string, number> | undefined;
  private readonly eventsWatch: number;
  private readonly timeWatchNs: number;

  private clientsPending = 0;
  private clientsTotal = 0;
  private stopped = false;
  private outcome: WorldOutcome | undefined;
  private readonly doneWaiters: Array<(outcome: WorldOutcome) => void> = [];
  /** Called for failures in register mode, where there is no run() promise to reject. */
  onFailure: ((report: FailureReport) => void) | undefined;

  constructor(options: WorldOptions) {
    this.options = options;
    this.seed = options.seed;
    this.seedText = formatSeed(options.seed);
    this.mode = options.mode;
    this.epochMs = options.epochMs;
    this.als = new originals.AsyncLocalStorage<Host>();
    this.trace = options.traceFile === undefined ? undefined : new TraceWriter(options.traceFile);
    this.captureSites = this.trace !== undefined;
    this.eventsWatch = Math.floor(options.eventsMax * CULPRIT_WATCH_RATIO);
    this.timeWatchNs = Math.floor(options.timeLimitNs * CULPRIT_WATCH_RATIO);
    this.driver = new Driver(() => this.step());
  }

  /** A random stream derived from (seed, name) alone. */
  stream(name: string): RandomStream {
    return new RandomStream(this.seed, name);
  }

  // ---- hosts -------------------------------------------------------------------------------

  addHost(name: string, role: HostRole, skewMs = 0): Host {
    if (typeof name !== 'string' || name.length === 0) {
      throw new UsageError(`Failed to add host: the name must be a non-empty string, got ${String(name)}`);
    }
    if (this.hostsByName.has(name)) {
      throw new UsageError(`Failed to add host "${name}": a host with that name already exists`);
    }
    if (!Number.isFinite(skewMs)) {
      throw new UsageError(`Failed to add host "${name}": skewMs must be a finite number, got ${String(skewMs)}`);
    }
    const host = new Host(this, name, this.hosts.length, role, skewMs);
    this.hosts.push(host);
    this.hostsByName.set(name, host);
    return host;
  }

  host(name: string): Host | undefined {
    return this.hostsByName.get(name);
  }

  /** The host whose code is running now (undefined: the test runner, in library mode). */
  currentHost(): Host | undefined {
    return this.als.getStore() ?? this.fallbackHost;
  }

  /**
   * Starts a host's main function at the current virtual time, in its own context. A client's
   * completion is awaited by the run; a host's rejection is a failure.
   */
  boot(host: Host, main: () => unknown): void {
    if (host.role === 'client') {
      this.clientsPending++;
      this.clientsTotal++;
    }
    this.schedule(host, 0, 'boot', () => {
      let result: unknown;
      try {
        result = main();
      } catch (error) {
        this.hostFailed(host, error, 'crash');
        return;
      }
      Promise.resolve(result).then(
        () => this.hostFinished(host),
        (error: unknown) => this.hostFailed(host, error, 'crash'),
      );
    }, undefined, true);
  }

  private hostFinished(host: Host): void {
    if (host.role !== 'client' || host.state !== 'running') return;
    host.state = 'finished';
    this.clientsPending--;
    this.driver.kick();
  }

  // ---- scheduling --------------------------------------------------------------------------

  /**
   * Queues `fn` to run on `host` after `delayNs` of virtual time. A ref'd event keeps the run
   * alive while pending; timers pass ref=false and account for themselves via refHandle().
   */
  schedule(
    host: Host,
    delayNs: number,
    kind: EventKind,
    fn: (this: any) => void,
    thisArg: unknown,
    ref: boolean,
    scope?: AsyncResource,
    site?: string,
  ): SimEvent {
    assert(delayNs >= 0 && Number.isInteger(delayNs), `delayNs must be a non-negative integer, got ${delayNs}`);
    const event = new SimEvent(this.nowNs + delayNs, ++this.seq, host, kind, fn, thisArg, ref, scope);
    if (this.captureSites) event.site = site ?? captureSite();
    if (ref) this.refs++;
    this.queue.push(event, this.nowNs);
    if (!this.stopped) this.driver.kick();
    return event;
  }

  cancel(event: SimEvent): void {
    if (event.cancelled) return;
    event.cancelled = true;
    if (event.ref) this.refs--;
  }

  refHandle(): void {
    this.refs++;
    if (!this.stopped) this.driver.kick();
  }

  unrefHandle(): void {
    this.refs--;
    assert(this.refs >= 0, 'ref count went below zero');
  }

  // ---- running -----------------------------------------------------------------------------

  /** Begins driving events. Resolves when the run ends (library mode). */
  start(): Promise<WorldOutcome> {
    const done = new Promise<WorldOutcome>((resolve) => this.doneWaiters.push(resolve));
    this.driver.kick();
    return done;
  }

  /** One driver step: run the next event. Returns false when the driver should idle. */
  private step(): boolean {
    const event = this.next();
    if (event === undefined) return false;
    this.runEvent(event);
    return true;
  }

  private next(): SimEvent | undefined {
    for (;;) {
      if (this.stopped) return undefined;
      if (this.clientsTotal > 0 && this.clientsPending === 0) {
        this.finish('clients-done');
        return undefined;
      }
      if (this.refs === 0) {
        this.quiesce();
        return undefined;
      }
      const event = this.queue.peek();
      if (event === undefined) {
        // Ref'd handles remain but nothing is scheduled: only outside work can wake us.
        if (this.options.durationNs !== undefined) this.finish('duration');
        return undefined;
      }
      if (event.cancelled) {
        this.queue.pop();
        continue;
      }
      if (event.timeNs > this.nowNs) {
        if (this.options.durationNs !== undefined && event.timeNs > this.options.durationNs) {
          this.nowNs = this.options.durationNs;
          this.finish('duration');
          return undefined;
        }
        if (event.timeNs > this.options.timeLimitNs) {
          this.nowNs = this.options.timeLimitNs;
          this.limitTripped(
            `virtual time limit of ${formatTimeNs(this.options.timeLimitNs)} reached with work still pending ` +
              `(set DST_TIME_LIMIT or the timeLimitMs option to allow more)`,
          );
          return undefined;
        }
        if (event.timeNs >= this.timeWatchNs) this.watchCulprits();
        this.nowNs = event.timeNs;
      }
      this.queue.pop();
      if (event.ref) this.refs--;
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
  }

  private runEvent(event: SimEvent): void {
    const n = ++this.eventsRun;
    this.current = event;
    const host = event.host;
    this.lastHost = host;
    const fp = this.fingerprint;
    fp.mixInt(event.timeNs);
    fp.mix(host.index);
    fp.mix(host.incarnation);
    fp.mix(EVENT_KIND_CODE[event.kind]);
    if (this.trace !== undefined) {
      this.trace.write({
        n,
        tNs: event.timeNs,
        host: host.name,
        boot: host.incarnation,
        kind: event.kind,
        seq: event.seq,
        site: event.site,
      });
    }
    if (this.culpritCounts !== undefined) {
      const site = `${event.kind} scheduled at ${event.site ?? 'an unknown place'}`;
      this.culpritCounts.set(site, (this.culpritCounts.get(site) ?? 0) + 1);
    }
    if (this.mode === 'register') {
      // Let an exception escape to Node's own uncaughtException machinery, as in real Node.
      this.invoke(event);
    } else {
      try {
        this.invoke(event);
      } catch (error) {
        this.hostFailed(host, error, 'crash');
      }
    }
    this.current = undefined;
  }

  private invoke(event: SimEvent): void {
    const scope = event.scope;
    if (scope !== undefined) scope.runInAsyncScope(event.fn, event.thisArg);
    else this.als.run(event.host, invoke, event);
  }

  private watchCulprits(): void {
    if (this.culpritCounts !== undefined) return;
    this.culpritCounts = new Map();
    this.captureSites = true;
  }

  private limitTripped(message: string): void {
    let culprit = '';
    if (this.culpritCounts !== undefined && this.culpritCounts.size > 0) {
      let best = '';
      let bestCount = -1;
      for (const [site, count] of this.culpritCounts) {
        if (count > bestCount) {
          best = site;
          bestCount = count;
        }
      }
      culprit = `; the busiest source near the limit: ${best} (ran ${bestCount.toLocaleString('en-US')} times)`;
    }
    const host = this.current?.host ?? this.lastHost;
    this.fail('limit', host, runtimeError(`${message}${culprit}`), `run stopped: ${message}`);
  }

  /** A host's code threw or rejected: the host crashed, and the run fails. */
  hostFailed(host: Host | undefined, error: unknown, kind: FailureKind): void {
    if (host !== undefined) host.state = 'crashed';
    const what = kind === 'unhandled-rejection' ? 'an unhandled rejection' : 'an uncaught exception';
    const head = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.fail(kind, host, error, `${host === undefined ? 'the simulation' : `host "${host.name}"`} crashed with ${what}: ${head}`);
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
    };
  }

  private fail(kind: FailureKind, host: Host | undefined, error: unknown, summary: string): void {
    if (this.outcome !== undefined) return;
    const report = this.report(kind, host, error, summary);
    this.finish('failure', report);
    this.onFailure?.(report);
  }

  private quiesce(): void {
    // Register mode never "finishes": the process exits by itself once Node's loop is empty,
    // and new work (a real I/O callback) may still wake the driver.
    if (this.mode === 'library') this.finish('quiescent');
  }

  private finish(reason: StopReason, failure?: FailureReport): void {
    if (this.outcome !== undefined) return;
    this.stopped = true;
    this.driver.stop();
    this.outcome = { reason, failure };
    this.trace?.flush();
    for (const resolve of this.doneWaiters.splice(0)) resolve(this.outcome);
  }

  get result(): WorldOutcome | undefined {
    return this.outcome;
  }

  /** Releases resources (the trace file). Pending events are dropped. */
  dispose(): void {
    this.stopped = true;
    this.driver.stop();
    this.queue.clear();
    this.trace?.close();
  }

  flushTrace(): void {
    this.trace?.flush();
  }

  get pendingEvents(): number {
    return this.queue.size;
  }

  /** Milliseconds of virtual time, for messages. */
  get nowMs(): number {
    return this.nowNs / NS_PER_MS;
  }
}

// ---- the active world ---------------------------------------------------------------------

let active: World | undefined;

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
