import { UsageError } from '../errors.js';
import type { FailureKind } from '../failure.js';
import { Host, type HostRole, type HostState, type HostWorld } from './host.js';
import type { NativeResources } from './native-resources.js';
import { getHostProcessHooks } from './process-hooks.js';

/** What a host's crash means for the run: a failure (default), or an expected event. */
export type CrashPolicy = 'fail' | 'keep-down' | 'restart';

/**
 * On a host's main function: the host is a client started from a module (sim.client(name, {
 * main })), done not when its module has loaded but when, after that, nothing of its own is
 * pending any more (no ref'd timer, socket or request), as a Node process ends when its loop is
 * empty. A CommonJS main has loaded as soon as its top level ran, with its work still to come.
 */
export const kUntilIdle: unique symbol = Symbol('dst.untilIdle');

/**
 * What the hosts' lifecycle asks of the event loop (World implements it): to boot a host, to
 * forget or bring back its pending work, and to account for what the run's end depends on.
 */
export interface LifecycleLoop extends HostWorld {
  /** Queues a host's boot event: `fn` runs on `host` after `delayNs`, keeping the run alive. */
  schedule(host: Host, delayNs: number, kind: 'boot', fn: () => void, thisArg: undefined, ref: true): unknown;
  /** `host` went down: its ref'd work no longer keeps the run alive, its parked entries are gone. */
  forget(host: Host): void;
  /** `host` resumed: its parked entries are queued again at the current instant, in order. */
  unpark(host: Host): void;
  /** Writes `host` going down to the trace and the fingerprint. */
  recordDown(host: Host, how: HostState): void;
  /** A client's main started (`first`: its first incarnation's): the run waits for it. */
  clientStarted(first: boolean): void;
  /** A client's main settled, or its incarnation went down. */
  clientSettled(): void;
  /** The run fails with this report (the first failure wins). */
  fail(kind: FailureKind, host: Host | undefined, error: unknown, summary: string): void;
  /** Wakes the driver, unless the run is over. */
  kick(): void;
}

/** Who a failure summary names: the host, or the simulation itself. */
function whoFailed(host: Host | undefined): string {
  return host === undefined ? 'the simulation' : `host "${host.name}"`;
}

/** A thrown value as a summary shows it: `Name: message` for an Error. */
function errorHead(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * The hosts of a world and what happens to them: added (names are DNS names, so case does not
 * count), booted, paused and resumed, taken down (a crash, an exit) and restarted as a new
 * incarnation, and what a crash means under each host's policy. `W` is the world its hosts live
 * in (World, so the shims reach it through host.world). Stalls are the event loop's (World.stall:
 * a host's code spun on the clock), as is the parking of a paused host's entries.
 */
export class HostLifecycle<W extends LifecycleLoop> {
  /** The current incarnation of every host, by index (what the fingerprint records). */
  readonly list: Array<Host<W>> = [];
  /** Hosts by name, lower-cased: host names are DNS names, which are case-insensitive. */
  private readonly byName = new Map<string, Host<W>>();
  private readonly mains = new Map<string, () => unknown>();
  private readonly crashPolicies = new Map<string, CrashPolicy>();
  private readonly downListeners: Array<(host: Host<W>, how: HostState) => void> = [];
  private systemHost: Host<W> | undefined;
  /**
   * Clients whose module has loaded, done once nothing of theirs is pending (see kUntilIdle).
   * World.next() checks its size before every event, through a reference of its own.
   */
  readonly idleWaiters = new Set<Host<W>>();

  constructor(
    private readonly world: W,
    private readonly natives: NativeResources,
  ) {}

  add(name: string, role: HostRole, skewMs = 0, onCrash: CrashPolicy = 'fail', driftPpm = 0): Host<W> {
    if (typeof name !== 'string' || name.length === 0) {
      throw new UsageError(`Failed to add host: the name must be a non-empty string, got ${String(name)}`);
    }
    const existing = this.byName.get(name.toLowerCase());
    if (existing !== undefined) {
      const same = existing.name === name ? '' : ` ("${existing.name}": host names are DNS names, which ignore case)`;
      throw new UsageError(`Failed to add host "${name}": a host with that name already exists${same}`);
    }
    if (!Number.isSafeInteger(skewMs)) {
      throw new UsageError(`Failed to add host "${name}": skewMs must be an integer number of ms, got ${String(skewMs)}`);
    }
    if (!(Number.isFinite(driftPpm) && Math.abs(driftPpm) < 1e6)) {
      throw new UsageError(`Failed to add host "${name}": driftPpm must be a number between -1e6 and 1e6 (parts per million), got ${String(driftPpm)}`);
    }
    const host = new Host(this.world, name, this.list.length, role, skewMs, 1, driftPpm);
    this.list.push(host);
    this.byName.set(name.toLowerCase(), host);
    this.crashPolicies.set(name, onCrash);
    return host;
  }

  /** The current incarnation of the host with this name (in any case, as DNS names). */
  get(name: string): Host<W> | undefined {
    return this.byName.get(name.toLowerCase());
  }

  /** The same, or a UsageError that says what failed to `verb` it and which hosts exist. */
  require(name: string, verb: string): Host<W> {
    const host = typeof name === 'string' ? this.byName.get(name.toLowerCase()) : undefined;
    if (host === undefined) {
      const known = this.list.map((h) => h.name).join(', ') || 'none';
      throw new UsageError(`Failed to ${verb} host "${name}": no such host (known: ${known})`);
    }
    return host;
  }

  /** A host for the simulation's own events (faults, scheduled lifecycle changes). */
  get system(): Host<W> {
    if (this.systemHost === undefined) {
      this.systemHost = new Host(this.world, '(simulation)', 0xffff, 'system', 0);
    }
    return this.systemHost;
  }

  /**
   * Starts a host's main function at the current virtual time, in its own context. A client's
   * completion is awaited by the run; a host's rejection is a failure.
   */
  boot(host: Host<W>, main: () => unknown): void {
    this.mains.set(host.name, main);
    const untilIdle = (main as { [kUntilIdle]?: boolean })[kUntilIdle] === true;
    // Every incarnation of a client is awaited: a restarted client is pending again until its
    // new main settles or it goes down (the crash of the previous one counted it as settled).
    if (host.role === 'client') this.world.clientStarted(host.incarnation === 1);
    this.world.schedule(host, 0, 'boot', () => {
      let result: unknown;
      try {
        result = main();
      } catch (error) {
        this.failed(host, error, 'crash');
        return;
      }
      Promise.resolve(result).then(
        () => (untilIdle ? this.settleWhenIdle(host) : this.mainSettled(host)),
        (error: unknown) => this.failed(host, error, 'crash'),
      );
    }, undefined, true);
  }

  private settleWhenIdle(host: Host<W>): void {
    if (host.role !== 'client' || host.mainDone) return;
    if (host.refs === 0) this.mainSettled(host);
    else this.idleWaiters.add(host);
  }

  /** Settles the idle-waiting clients that are idle now (World.next calls it before each event while any wait). */
  settleIdleClients(): void {
    for (const host of this.idleWaiters) {
      if (host.refs > 0 && host.state === 'running') continue;
      this.idleWaiters.delete(host);
      this.mainSettled(host);
    }
  }

  private mainSettled(host: Host<W>): void {
    if (host.role !== 'client' || host.mainDone) return;
    host.mainDone = true;
    this.world.clientSettled();
  }

  /** Registers a callback run whenever a host incarnation goes down (crash, exit, stop). */
  onDown(listener: (host: Host<W>, how: HostState) => void): void {
    this.downListeners.push(listener);
  }

  /**
   * Takes a host incarnation down: its pending events, timers and handles are gone, and its
   * code can no longer schedule anything. Listeners (the network) release its sockets the way
   * the kernel would when a process dies; then the native handles behind them are closed.
   */
  takeDown(host: Host<W>, how: 'crashed' | 'exited'): void {
    if (host.state !== 'running') return;
    host.state = how;
    this.world.forget(host);
    if (host.role === 'client' && !host.mainDone) this.mainSettled(host);
    for (const listener of this.downListeners) listener(host, how);
    this.natives.release(host);
    this.world.recordDown(host, how);
    this.world.kick();
  }

  /**
   * Boots the next incarnation of a host that is down: fresh clock from zero, fresh streams,
   * its main function run again. Returns the new incarnation.
   */
  restart(name: string): Host<W> {
    const old = this.require(name, 'restart');
    if (old.state === 'running') {
      throw new UsageError(`Failed to restart host "${name}": it is running (crash or stop it first)`);
    }
    const driftPpm = (old.clock.rate - 1) * 1e6;
    const host = new Host(this.world, old.name, old.index, old.role, old.clock.skewMs, old.incarnation + 1, driftPpm);
    this.list[old.index] = host;
    this.byName.set(old.name.toLowerCase(), host);
    const main = this.mains.get(old.name);
    if (main !== undefined) this.boot(host, main);
    return host;
  }

  /** Freezes a host (a GC pause, a stalled VM): its events wait, in order, until resume(). */
  pause(name: string): void {
    const host = this.require(name, 'pause');
    host.paused = true;
  }

  resume(name: string): void {
    const host = this.require(name, 'resume');
    if (!host.paused) return;
    host.paused = false;
    // A host still stalled stays parked; its stall's end brings its events back.
    if (host.stalledUntilNs > this.world.nowNs) return;
    // Deferred events run now, in the order of a process resumed by SIGCONT (World.unpark: expired
    // timers first), each keeping its ref. One cancelled or re-armed meanwhile has another seq by
    // now: it stays dropped.
    this.world.unpark(host);
    this.world.kick();
  }

  /**
   * A host's code threw or rejected: the host crashed (as it would crash its process), and the run
   * fails, unless the host's own listeners handle it or its crash policy expects it.
   */
  failed(host: Host<W> | undefined, error: unknown, kind: FailureKind): void {
    const hooks = getHostProcessHooks();
    if (hooks?.isExit(error)) return; // process.exit() unwinding a host's code
    // always()/unreachable() or a scenario's safety invariant (scenario/assertions.ts): a
    // property of the system broke, whatever the host does with exceptions. Its own
    // 'uncaughtException' listener (which many servers have, to log and go on) and a crash
    // policy of restart or keep-down once let the run pass.
    if (kind === 'safety') {
      if (host !== undefined && host.role !== 'system') {
        if (host.state !== 'running') return;
        // It threw: down, as a crash takes it (whatever its crash policy says), then the run fails.
        this.takeDown(host, 'crashed');
      }
      this.world.fail(kind, host, error, `${whoFailed(host)} broke a safety property: ${errorHead(error)}`);
      return;
    }
    if (host !== undefined && host.role !== 'system') {
      if (host.state !== 'running') return; // a leftover of an incarnation already down
      // Like Node: the host's node:domain or its own process.on('uncaughtException') listeners
      // keep it alive; a domain's handler that throws kills it with that error.
      const handled = hooks?.handleUncaught(host, error, kind === 'unhandled-rejection' ? 'unhandledRejection' : 'uncaughtException');
      if (handled === true) return;
      if (typeof handled === 'object') error = handled.fatal;
      this.takeDown(host, 'crashed');
      const policy = this.crashPolicies.get(host.name) ?? 'fail';
      if (policy === 'keep-down') return;
      if (policy === 'restart') {
        this.restart(host.name);
        return;
      }
    }
    const what = kind === 'unhandled-rejection' ? 'an unhandled rejection' : 'an uncaught exception';
    this.world.fail(kind, host, error, `${whoFailed(host)} crashed with ${what}: ${errorHead(error)}`);
  }
}
