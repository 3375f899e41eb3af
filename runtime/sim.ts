import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { UsageError } from './errors.js';
import { SimulationError } from './failure.js';
import { getHostProcessHooks } from './hosts/process-hooks.js';
import { getInterposer, getModuleHosts, type ModuleHostSpec } from './interposer.js';
import { replayEnvironment, resolveOptions, shellQuote, type ResolvedOptions, type SimOptions } from './options.js';
import { formatSeed } from './random/seed.js';
import type { FaultOptions } from './network/network.js';
import type { LinkConfig } from './network/rules.js';
import type { CrashPolicy } from './hosts/lifecycle.js';
import { World } from './world.js';
import { originals } from './originals.js';

/** Node's process object, taken at load: a program may replace the global one. */
const nodeProcess: NodeJS.Process = originals.process;

/** What a finished run returns. */
export interface SimResult {
  /** The seed, as 0x-hex: pass it back as `seed` (or DST_SEED) to replay the run. */
  seed: string;
  /** A hash of every scheduling decision; equal fingerprints mean equal executions. */
  fingerprint: string;
  /** Virtual time at the end of the run, in nanoseconds. */
  elapsedNs: number;
  /** Events run. */
  events: number;
  /**
   * Why the run ended: nothing ref'd was left (quiescent), ref'd handles remained but nothing
   * could ever happen again (idle: e.g. only listening servers), every client finished, or the
   * virtual-time budget ran out.
   */
  stopReason: 'quiescent' | 'idle' | 'clients-done' | 'duration';
}

/** Options of one host. */
export interface HostOptions {
  /** Offset of this host's wall clock (Date) from the simulation's, in ms. */
  skewMs?: number;
  /**
   * Drift of this host's clocks in parts per million: 100 means its Date, performance.now,
   * hrtime and timers run 0.01% fast against virtual time (a 1 s timer fires after 0.9999 s).
   */
  driftPpm?: number;
  /**
   * What an uncaught exception or unhandled rejection in this host means: 'fail' the run
   * (default), leave the host crashed ('keep-down'), or 'restart' it at once (a supervisor).
   */
  onCrash?: CrashPolicy;
}

interface PendingHost {
  name: string;
  role: 'host' | 'client';
  main: () => unknown;
  options: HostOptions;
}

/** Real randomness for a fresh seed: the only place the runtime reads it. */
function drawSeed(): bigint {
  return randomBytes(8).readBigUInt64BE() >> 32n; // 32 bits: short enough to type
}

function replayCommand(resolved: ResolvedOptions, seedText: string): string {
  const machine = replayEnvironment();
  if (resolved.seedSource === 'option') {
    const withMachine = machine.length === 0 ? '' : `, with ${machine.join(' ')}`;
    return `new Sim({ seed: ${seedText} }) (the seed is pinned in the test${withMachine})`;
  }
  const argv = process.argv.slice(1).map((arg, i) => (i === 0 ? path.relative(process.cwd(), arg) || arg : arg));
  const settings = ['DST_TIME_LIMIT', 'DST_EVENT_LIMIT', 'DST_DISK']
    .filter((name) => process.env[name] !== undefined && process.env[name] !== '')
    .map((name) => `${name}=${shellQuote(process.env[name]!)}`);
  return [...machine, `DST_SEED=${seedText}`, ...settings, ...[path.basename(process.execPath), ...process.execArgv, ...argv].map(shellQuote)].join(' ');
}

type UncaughtListener = (this: NodeJS.Process, error: unknown, origin: string) => void;

/**
 * Takes over process 'uncaughtException' for the run. Host code that runs between events (a
 * process.nextTick or queueMicrotask callback) throws outside the event's try/catch, into
 * Node's uncaughtException machinery, where the test runner's listener would see it without
 * the seed. During the run the listener below is the only one: an exception thrown in a
 * host's context (the AsyncLocalStorage store is still the thrower's when Node emits) crashes
 * that host under its onCrash policy and fails the run with the full report; any other
 * exception goes to the listeners that were there before, in order, or, if there were none,
 * is rethrown to be fatal as it would have been. restore() puts the listeners back exactly
 * (those added during the run stay, after them).
 */
function takeOverUncaught(world: World): { restore(): void } {
  const saved = nodeProcess.rawListeners('uncaughtException') as UncaughtListener[];
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    const added = (nodeProcess.rawListeners('uncaughtException') as UncaughtListener[]).filter((l) => l !== onUncaught);
    nodeProcess.removeAllListeners('uncaughtException');
    for (const listener of [...saved, ...added]) nodeProcess.on('uncaughtException', listener);
  };
  const onUncaught: UncaughtListener = function (error, origin) {
    const host = world.als.getStore();
    if (host !== undefined && host.world === world) {
      world.hosts.failed(host, error, 'crash');
      return;
    }
    if (saved.length === 0) {
      // Nothing listened before the run: the exception is fatal, as it would have been.
      restore();
      nodeProcess.nextTick(() => {
        throw error;
      });
      return;
    }
    for (const listener of [...saved]) {
      // A once() wrapper removes itself from the process (where it is not now) and must
      // not come back at restore().
      if ((listener as { listener?: unknown }).listener !== undefined) saved.splice(saved.indexOf(listener), 1);
      Reflect.apply(listener, process, [error, origin]);
    }
  };
  nodeProcess.removeAllListeners('uncaughtException');
  nodeProcess.on('uncaughtException', onUncaught);
  return { restore };
}

/**
 * A simulation: hosts and clients on one virtual clock under one seed. The public handle;
 * the state lives in a private World.
 *
 *     const sim = new Sim({ seed: 0x9f3c1a22 });
 *     sim.host('server', async () => { ... });
 *     sim.client('client', async () => { ... });
 *     const { seed, fingerprint } = await sim.run();
 */
export class Sim {
  readonly seed: string;
  private readonly resolved: ResolvedOptions;
  private readonly pending: PendingHost[] = [];
  private state: 'new' | 'running' | 'done' = 'new';
  private world: World | undefined;

  constructor(options: SimOptions = {}) {
    this.resolved = resolveOptions(options, process.env, drawSeed);
    this.seed = formatSeed(this.resolved.seed);
  }

  /**
   * Adds a host: a long-running process (a server). Its failure fails the run. `main` is a
   * function, or a module to run with its own module instances: `{ main: './server.js', argv, env }`.
   */
  host(name: string, main: (() => unknown) | ModuleHostSpec, options: HostOptions = {}): this {
    return this.add(name, 'host', main, options);
  }

  /** Adds a client: the run ends when every client's main has settled. */
  client(name: string, main: (() => unknown) | ModuleHostSpec, options: HostOptions = {}): this {
    return this.add(name, 'client', main, options);
  }

  private add(name: string, role: 'host' | 'client', spec: (() => unknown) | ModuleHostSpec, options: HostOptions): this {
    if (this.state !== 'new') throw new UsageError(`Failed to add ${role} "${name}": the simulation has already run`);
    let main: () => unknown;
    if (typeof spec === 'function') {
      main = spec;
    } else if (spec !== null && typeof spec === 'object') {
      getModuleHosts().validate(name, spec);
      main = getModuleHosts().main(spec);
    } else {
      throw new UsageError(`Failed to add ${role} "${name}": main must be a function or { main: 'module.js' }, got ${typeof spec}`);
    }
    if (options.driftPpm !== undefined && !(typeof options.driftPpm === 'number' && Number.isFinite(options.driftPpm) && Math.abs(options.driftPpm) < 1e6)) {
      throw new UsageError(`Failed to add ${role} "${name}": driftPpm must be a number between -1e6 and 1e6 (parts per million), got ${String(options.driftPpm)}`);
    }
    if (options.onCrash !== undefined && !['fail', 'keep-down', 'restart'].includes(options.onCrash)) {
      throw new UsageError(`Failed to add ${role} "${name}": onCrash must be 'fail', 'keep-down' or 'restart', got ${String(options.onCrash)}`);
    }
    const existing = typeof name === 'string' ? this.pending.find((p) => p.name.toLowerCase() === name.toLowerCase()) : undefined;
    if (existing !== undefined) {
      const same = existing.name === name ? '' : ` ("${existing.name}": host names are DNS names, which ignore case)`;
      throw new UsageError(`Failed to add ${role} "${name}": a host with that name already exists${same}`);
    }
    this.pending.push({ name, role, main, options });
    return this;
  }

  // ---- lifecycle, callable while the simulation runs (from the test or from host code) ----

  private running(verb: string, name: string): World {
    if (this.world === undefined || this.state !== 'running') {
      throw new UsageError(`Failed to ${verb} host "${name}": the simulation is not running (call it during run())`);
    }
    return this.world;
  }

  /**
   * Crashes a host's machine: like SIGKILL, its timers, pending events and module state are
   * gone and peers see what TCP would show; and like a power loss, its simulated disk keeps only
   * what was fsync'd.
   */
  crash(name: string): void {
    const world = this.running('crash', name);
    const host = world.hosts.require(name, 'crash');
    if (host.state !== 'running') throw new UsageError(`Failed to crash host "${name}": it is already down`);
    world.hosts.takeDown(host, 'crashed');
    world.powerLoss(host.name);
  }

  /** Boots a new incarnation of a host that is down: its main runs again, its clock starts from zero. */
  restart(name: string): void {
    this.running('restart', name).hosts.restart(name);
  }

  /**
   * Stops a host gracefully: its process.on('SIGTERM') listeners run (it exits when it calls
   * process.exit or when nothing keeps it alive... as its code decides); without listeners it
   * terminates at once, as Node does on SIGTERM.
   */
  stop(name: string, signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP' = 'SIGTERM'): void {
    const world = this.running('stop', name);
    const host = world.hosts.require(name, 'stop');
    if (host.state !== 'running') throw new UsageError(`Failed to stop host "${name}": it is already down`);
    const hooks = getHostProcessHooks();
    world.schedule(host, 0, 'fault', () => hooks?.signal(host, signal), undefined, true);
  }

  /** crash + restart at the same instant (turmoil's bounce). */
  bounce(name: string): void {
    this.crash(name);
    this.restart(name);
  }

  /** Freezes a host (a GC pause, a stalled VM): its events wait while the others run. */
  pause(name: string): void {
    this.running('pause', name).hosts.pause(name);
  }

  resume(name: string): void {
    this.running('resume', name).hosts.resume(name);
  }

  // ---- network faults (turmoil's verb pairs; b omitted = between a and every other host) ----

  /** Drops every packet between a and b (both ways unless oneway) until repair(). */
  partition(a: string, b?: string, options: FaultOptions = {}): void {
    this.running('partition', a).network.partition(a, b, options);
  }

  repair(a: string, b?: string, options: FaultOptions = {}): void {
    this.running('repair', a).network.repair(a, b, options);
  }

  /** Keeps every packet between a and b until release(), then delivers them in order. */
  hold(a: string, b?: string, options: FaultOptions = {}): void {
    this.running('hold', a).network.hold(a, b, options);
  }

  release(a: string, b?: string, options: FaultOptions = {}): void {
    this.running('release', a).network.release(a, b, options);
  }

  /** Changes latency, loss or duplication of the link between a and b. */
  setLink(a: string, b: string, config: LinkConfig, options: FaultOptions = {}): void {
    this.running('configure the link of', a).network.setLink(a, b, config, options);
  }

  /**
   * Changes a host's clock while the simulation runs (an NTP step, an operator's `date -s`, a
   * clock that starts to drift):
   * - `skewMs`: the new offset of its wall clock from the simulation's, in integer ms. Date
   *   jumps (forwards or backwards) at once; performance.now, process.hrtime, process.uptime
   *   and performance.timeOrigin do not (monotonic clocks never jump).
   * - `driftPpm`: how fast all of its clocks run from now on (1 + driftPpm/1e6 of virtual
   *   time); they go on from their current readings, without a jump. Timers keep their
   *   deadlines on the host's clock: a pending one fires when that clock, now running at the
   *   new rate, reaches it.
   * A host that is down keeps the setting for its next boot.
   */
  setClock(name: string, options: { skewMs?: number; driftPpm?: number }): void {
    const world = this.running('set the clock of', name);
    const host = world.hosts.require(name, 'set the clock of');
    const fail = (reason: string): never => {
      throw new UsageError(`Failed to set the clock of host "${name}": ${reason}`);
    };
    if (options === null || typeof options !== 'object') fail(`options must be an object { skewMs?, driftPpm? }, got ${String(options)}`);
    const unknown = Object.keys(options).filter((k) => k !== 'skewMs' && k !== 'driftPpm');
    if (unknown.length > 0) fail(`unknown option${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (known: skewMs, driftPpm)`);
    const { skewMs, driftPpm } = options;
    if (skewMs === undefined && driftPpm === undefined) fail('give skewMs, driftPpm or both');
    if (skewMs !== undefined && !(typeof skewMs === 'number' && Number.isSafeInteger(skewMs))) {
      fail(`skewMs must be an integer number of ms, got ${String(skewMs)}`);
    }
    if (driftPpm !== undefined && !(typeof driftPpm === 'number' && Number.isFinite(driftPpm) && Math.abs(driftPpm) < 1e6)) {
      fail(`driftPpm must be a number between -1e6 and 1e6 (parts per million), got ${String(driftPpm)}`);
    }
    if (driftPpm !== undefined) world.setDrift(host, driftPpm);
    if (skewMs !== undefined) host.clock.skewMs = skewMs;
  }

  /** The addresses of a host on the simulated network. */
  addressOf(name: string): { ipv4: string; ipv6: string } {
    const world = this.running('find the address of', name);
    return world.network.addressesOf(world.hosts.require(name, 'find the address of'));
  }

  /** Whether a host's current incarnation is running, crashed or exited, and its boot number. */
  status(name: string): { state: 'running' | 'crashed' | 'exited'; incarnation: number; paused: boolean; exitCode: number | undefined } {
    const host = this.running('inspect', name).hosts.require(name, 'inspect');
    return { state: host.state, incarnation: host.incarnation, paused: host.paused, exitCode: getHostProcessHooks()?.exitCode(host) };
  }

  /** Runs the simulation to its end. Rejects with a SimulationError carrying seed and replay. */
  async run(): Promise<SimResult> {
    if (this.state !== 'new') throw new UsageError(`Failed to run simulation (seed ${this.seed}): a Sim runs once; create a new one`);
    this.state = 'running';
    const world = (this.world = new World({
      seed: this.resolved.seed,
      mode: 'library',
      epochMs: this.resolved.epochMs,
      eventsMax: this.resolved.eventsMax,
      timeLimitNs: this.resolved.timeLimitNs,
      durationNs: this.resolved.durationNs,
      traceFile: this.resolved.traceFile,
      network: this.resolved.network,
      replay: replayCommand(this.resolved, this.seed),
      strict: this.resolved.strict,
      disk: this.resolved.disk,
    }));
    const interposer = getInterposer();
    const onRejection = (reason: unknown) => world.hosts.failed(world.lastHost, reason, 'unhandled-rejection');
    interposer.install(world);
    const uncaught = takeOverUncaught(world);
    nodeProcess.prependListener('unhandledRejection', onRejection);
    try {
      for (const p of this.pending) {
        const host = world.hosts.add(p.name, p.role, p.options.skewMs ?? 0, p.options.onCrash ?? 'fail', p.options.driftPpm ?? 0);
        world.hosts.boot(host, p.main);
      }
      const outcome = await world.start();
      if (outcome.failure !== undefined) throw new SimulationError(outcome.failure);
      return {
        seed: this.seed,
        fingerprint: world.fingerprint.toString(),
        elapsedNs: world.nowNs,
        events: world.eventsRun,
        stopReason: outcome.reason as SimResult['stopReason'],
      };
    } finally {
      nodeProcess.removeListener('unhandledRejection', onRejection);
      interposer.uninstall(world);
      uncaught.restore();
      world.dispose();
      this.state = 'done';
    }
  }
}
