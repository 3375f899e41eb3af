import { certificatesOf, type TlsCertificates } from './tls/certificates.js';
import { NS_PER_MS } from './clock/units.js';
import { UsageError } from './errors.js';
import { runtimeError, SimulationError, type FailureReport } from './failure.js';
import { getHostProcessHooks } from './hosts/process-hooks.js';
import { getInterposer, getModuleHosts, type ModuleHostSpec } from './interposer.js';
import { replayEnvironment, resolveOptions, resolveRunOptions, shellQuote, type ResolvedOptions, type RunOptions, type SimOptions } from './options.js';
import { type DiskFaultRule, type ResolvedRule, resolveDiskFaultRules } from './disk/faults.js';
import { formatSeed } from './random/seed.js';
import { rerunCommand, testFileOfCaller, withoutRerunCommand } from './testing/rerun.js';
import { runnerTestSignal } from './testing/runner-test.js';
import type { FaultOptions } from './network/network.js';
import type { LinkConfig, Rule } from './network/rules.js';
import { ipv4Of, ipv6Of } from './network/addresses.js';
import { type CrashPolicy, kUntilIdle } from './hosts/lifecycle.js';
import { World } from './world.js';
import { originals } from './originals.js';
import { nodeCrypto } from './node-crypto.js';
import { runtimeCallback } from './driver/runtime-resources.js';

/**
 * Writes a fault or other change to the world (crash, partition, setLink, ...) to the trace as an
 * `action` annotation, with the host whose code made it (none: the test, outside every host).
 * The viewer draws a partition from its `partition` to its `repair`, a pause to its `resume`.
 */
function traceAction(world: World, action: string, fields: Record<string, unknown>): void {
  if (world.tracing) world.annotate(world.currentHost(), 'action', { action, ...fields });
}

/** The hosts of a link fault, by their registered names ('*' for everyone). */
function linkFields(world: World, a: string, b: string | undefined, options: FaultOptions): Record<string, unknown> {
  const name = (n: string) => (n === '*' ? '*' : world.hosts.require(n, 'change the network of').name);
  return { a: name(a), b: b === undefined ? '*' : name(b), ...(options.oneway ? { oneway: true } : {}) };
}

/** Node's process object, taken at load: a program may replace the global one. */
const nodeProcess: NodeJS.Process = originals.process;

/** What a finished run returns. */
export interface SimResult {
  /** The seed, as 0x-hex: pass it back as `seed` (or DST_SEED) to replay the run. */
  seed: string;
  /**
   * A hash of every scheduling decision; equal fingerprints mean equal schedules (the same events
   * in the same order at the same virtual times), not equal data.
   */
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
  /**
   * With the `pending` option (DST_PENDING=1): the promises host code created and that never
   * settled, by creation site and host, most first.
   */
  pending?: Array<{ site: string; host: string; count: number }>;
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
  return nodeCrypto().randomBytes(8).readBigUInt64BE() >> 32n; // 32 bits: short enough to type
}

function replayCommand(resolved: ResolvedOptions, seedText: string, testFile: string | undefined): string {
  const machine = replayEnvironment();
  if (resolved.seedSource === 'option') {
    const withMachine = machine.length === 0 ? '' : `, with ${machine.join(' ')}`;
    return `new Sim({ seed: ${seedText} }) (the seed is pinned in the test${withMachine})`;
  }
  const settings = ['DST_TIME_LIMIT', 'DST_EVENT_LIMIT', 'DST_DISK', 'DST_DISK_FAULTS', 'DST_PENDING']
    .filter((name) => process.env[name] !== undefined && process.env[name] !== '')
    .map((name) => `${name}=${shellQuote(process.env[name]!)}`);
  const assignments = [...machine, `DST_SEED=${seedText}`, ...settings];
  return rerunCommand(assignments, process.env, testFile) ?? withoutRerunCommand(assignments, `or pin the seed: new Sim({ seed: ${seedText} })`);
}

/**
 * Replay commands set by the runtime's test-runner helpers (simTest, forEachSeed): the command
 * that reruns the test for this seed, instead of "new Sim({ seed }) (the seed is pinned)".
 */
const replays = new WeakMap<Sim, string>();

/** Makes `replay` the replay command `sim`'s failures print; internal (runtime/testing). */
export function setReplay(sim: Sim, replay: string): void {
  replays.set(sim, replay);
}

/** Whether `sim` has hosts and has not run: simTest runs it once the test's body has set it up (internal). */
export function readyToRun(sim: Sim): boolean {
  return sim['state'] === 'new' && sim['pending'].length > 0;
}

/** The simulation running in this process, if any (one at a time: the shims are process-wide). */
let runningSim: Sim | undefined;

/** Why a run is being stopped from outside: what its report says. */
interface AbortCause {
  /** The abort reason, as the report's error and the SimulationError's cause. */
  error: unknown;
  /** One line for the report's summary. */
  summary: string;
}

/** A reason given to abort() or by a signal, as one line. */
function reasonText(reason: unknown): string {
  if (reason === undefined) return 'no reason given';
  if (reason !== null && typeof reason === 'object' && typeof (reason as Error).message === 'string') {
    const { name, message } = reason as Error;
    return `${typeof name === 'string' && name !== '' ? `${name}: ` : ''}${message.split('\n')[0]}`;
  }
  return String(reason);
}

/** What aborting with `reason` reports (`how`: 'by its signal', ...): the reason itself when it is an error, else an error saying it. */
function abortCause(how: string, reason: unknown): AbortCause {
  const summary = `run aborted ${how}: ${reasonText(reason)}`;
  const isError = reason !== null && typeof reason === 'object' && typeof (reason as Error).message === 'string';
  return { error: isError ? reason : runtimeError(summary), summary };
}

/** Values the runtime's own layers attach to a Sim before it runs (the scenario's context): World.attachments. */
const attachments = new WeakMap<Sim, Map<symbol, unknown>>();

/** Attaches `value` under `key` to the run `sim` will make (World.attachments); internal. */
export function attachToRun(sim: Sim, key: symbol, value: unknown): void {
  let map = attachments.get(sim);
  if (map === undefined) attachments.set(sim, (map = new Map()));
  map.set(key, value);
}

type ProcessListener = (this: NodeJS.Process, ...args: unknown[]) => void;

/**
 * Makes `listener` the only listener of process `event` until restore(), which puts the
 * listeners that were there back exactly (those added during the run stay, after them).
 * `saved` is the list taken away; a once() wrapper removed from it is not put back.
 */
function takeOver(event: 'uncaughtException' | 'unhandledRejection', listener: ProcessListener): { saved: ProcessListener[]; restore(): void } {
  const saved = nodeProcess.rawListeners(event) as ProcessListener[];
  let restored = false;
  nodeProcess.removeAllListeners(event);
  nodeProcess.on(event, listener);
  return {
    saved,
    restore() {
      if (restored) return;
      restored = true;
      const added = (nodeProcess.rawListeners(event) as ProcessListener[]).filter((l) => l !== listener);
      nodeProcess.removeAllListeners(event);
      for (const l of [...saved, ...added]) nodeProcess.on(event, l);
    },
  };
}

/**
 * Takes over process 'uncaughtException' and 'unhandledRejection' for the run.
 *
 * Host code that runs between events (a process.nextTick or queueMicrotask callback) throws
 * outside the event's try/catch, into Node's uncaughtException machinery, where the test
 * runner's listener would see it without the seed. During the run the listener below is the
 * only one: an exception thrown in a host's context (the AsyncLocalStorage store is still the
 * thrower's when Node emits) crashes that host under its onCrash policy and fails the run with
 * the full report; any other exception goes to the listeners that were there before, in order,
 * or, if there were none, is rethrown to be fatal as it would have been.
 *
 * An unhandled rejection is the host's of the last event run (Node reports it after the
 * microtasks of that event's turn), and only the simulation sees it: a test runner's own
 * listener would otherwise act on a rejection the host handles itself with
 * process.on('unhandledRejection'), and differently in each runner (node:test fails the running
 * test; mocha emits it again, so the host's listener ran twice).
 */
function takeOverProcessErrors(world: World): { restore(): void } {
  const onUncaught: ProcessListener = function (error, origin) {
    const host = world.als.getStore();
    if (host !== undefined && host.world === world) {
      world.hosts.failed(host, error, 'crash');
      return;
    }
    const saved = uncaught.saved;
    if (saved.length === 0) {
      // Nothing listened before the run: the exception is fatal, as it would have been.
      uncaught.restore();
      nodeProcess.nextTick(() => {
        throw error;
      });
      return;
    }
    for (const listener of [...saved]) {
      // A once() wrapper removes itself from the process (where it is not now) and must
      // not come back at restore().
      if ((listener as { listener?: unknown }).listener !== undefined) saved.splice(saved.indexOf(listener), 1);
      Reflect.apply(listener, nodeProcess, [error, origin]);
    }
  };
  const uncaught = takeOver('uncaughtException', onUncaught);
  const rejections = takeOver('unhandledRejection', (reason) => {
    // After the run failed: a rejection its hosts' code left (run() waits a turn for them).
    if (world.result?.failure !== undefined) return;
    world.hosts.failed(world.lastHost, reason, 'unhandled-rejection');
  });
  return {
    restore() {
      rejections.restore();
      uncaught.restore();
    },
  };
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
  /** Under `mocha --parallel`, the test file that made it, for its replay line (rerun.ts). */
  private readonly testFile: string | undefined;
  private readonly pending: PendingHost[] = [];
  private state: 'new' | 'running' | 'done' = 'new';
  private world: World | undefined;
  /** An abort() that came before run(): run() rejects with it at once. */
  private abortBeforeRun: AbortCause | undefined;
  /** Undoes what run() set up (shims, process listeners, abort listeners, the guard): see teardown(). */
  private cleanup: (() => void) | undefined;

  /**
   * The simulation running in this process, if any: for a test runner's teardown hook to stop
   * one its test left running (`afterEach(() => Sim.running()?.abort('the test ended'))`).
   */
  static running(): Sim | undefined {
    return runningSim;
  }

  /**
   * The report of the run's failure once it has ended failing (an abort included), else
   * undefined: what `run()` rejected with, for code that did not await it (a runner's hook
   * that stopped a timed-out test's simulation).
   */
  get failure(): FailureReport | undefined {
    return this.world?.result?.failure;
  }

  constructor(options: SimOptions = {}) {
    this.resolved = resolveOptions(options, process.env, drawSeed);
    this.seed = formatSeed(this.resolved.seed);
    this.testFile = testFileOfCaller();
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
      // A module client ends as its process would: loaded, and nothing of its own pending.
      if (role === 'client') Object.defineProperty(main, kUntilIdle, { value: true });
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

  /** Network settings made before run() (a scenario's topology): applied when the run starts. */
  private readonly setup: Array<(world: World) => void> = [];

  /**
   * Runs `apply` on the network now, or, before run(), when the run starts (after every host is
   * added, before any boots): a topology can set links, partitions and rules up front. Host names
   * are checked at once either way.
   */
  private onNetwork(verb: string, names: Array<string | undefined>, apply: (world: World) => void): void {
    if (this.state === 'new') {
      for (const name of names) {
        if (name === undefined || name === '*') continue;
        if (!this.pending.some((p) => p.name.toLowerCase() === String(name).toLowerCase())) {
          const known = this.pending.map((p) => p.name).join(', ') || 'none';
          throw new UsageError(`Failed to ${verb} host "${name}": no such host (known: ${known}; add hosts before setting up their network)`);
        }
      }
      this.setup.push(apply);
      return;
    }
    apply(this.running(verb, names[0] ?? '(network)'));
  }

  private running(verb: string, name: string): World {
    if (this.world === undefined || this.state !== 'running') {
      throw new UsageError(`Failed to ${verb} host "${name}": the simulation is not running (call it during run())`);
    }
    return this.world;
  }

  /**
   * Crashes a host's machine (a power loss, a kernel panic, a VM that vanished): its process is
   * gone with its timers, pending events and module state; its simulated disk keeps only what
   * was fsync'd; and it sends nothing more, not even a reset, until restart() boots it again.
   */
  crash(name: string): void {
    const world = this.running('crash', name);
    const host = world.hosts.require(name, 'crash');
    if (host.state !== 'running') throw new UsageError(`Failed to crash host "${name}": it is already down`);
    // The machine goes with the process: its sockets vanish without a FIN or a reset, and until
    // it boots again nothing answers at its addresses (peers learn of it from their timeouts).
    host.poweredOff = true;
    traceAction(world, 'crash', { target: host.name });
    world.hosts.takeDown(host, 'crashed');
    world.disks.powerLoss(host.name);
  }

  /**
   * Kills a host's process (SIGKILL) on a machine that stays up: its timers, pending events and
   * module state are gone, and its kernel closes its sockets — a FIN to each peer, or a reset
   * where received data was never read — so peers learn of it at once. Its disk keeps
   * everything (the kernel still has the writes). Exit code 137.
   */
  kill(name: string): void {
    const world = this.running('kill', name);
    const host = world.hosts.require(name, 'kill');
    if (host.state !== 'running') throw new UsageError(`Failed to kill host "${name}": it is already down`);
    traceAction(world, 'kill', { target: host.name });
    const hooks = getHostProcessHooks();
    if (hooks !== undefined) hooks.signal(host, 'SIGKILL');
    else world.hosts.takeDown(host, 'crashed');
  }

  /** Boots a new incarnation of a host that is down: its main runs again, as a new process (its monotonic clocks start again from STARTUP_MS). */
  restart(name: string): void {
    const world = this.running('restart', name);
    const host = world.hosts.restart(name);
    traceAction(world, 'restart', { target: host.name, incarnation: host.incarnation });
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
    traceAction(world, 'stop', { target: host.name, signal });
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
    const world = this.running('pause', name);
    world.hosts.pause(name);
    traceAction(world, 'pause', { target: world.hosts.require(name, 'pause').name });
  }

  resume(name: string): void {
    const world = this.running('resume', name);
    world.hosts.resume(name);
    traceAction(world, 'resume', { target: world.hosts.require(name, 'resume').name });
  }

  /**
   * Stalls a host for `durationMs` (a GC pause, a descheduled VM): none of its events runs
   * meanwhile, and everything that came due runs late when the stall ends, in the order Node's
   * loop takes it up after a stop (expired timers first, then I/O, then immediates; immediates
   * first if some were pending). Unlike pause(), a stall ends by itself; its packets still arrive
   * (they wait in order).
   */
  stall(name: string, durationMs: number): void {
    const world = this.running('stall', name);
    if (!(typeof durationMs === 'number' && Number.isFinite(durationMs) && durationMs > 0)) {
      throw new UsageError(`Failed to stall host "${name}": durationMs must be a positive number of ms, got ${String(durationMs)}`);
    }
    const host = world.hosts.require(name, 'stall');
    world.stall(host, world.nowNs + Math.round(durationMs * NS_PER_MS));
  }

  /**
   * Event-loop lag on a host for `durationMs`: each of its events takes longer than its own work
   * (exponential, mean eventMsMax / 10, at most `eventMsMax`, default 100 ms), so its timers and
   * immediates fire late — never early — and in order, as under real load.
   */
  lag(name: string, durationMs: number, options: { eventMsMax?: number } = {}): void {
    const world = this.running('lag', name);
    const fail = (reason: string): never => {
      throw new UsageError(`Failed to lag host "${name}": ${reason}`);
    };
    if (!(typeof durationMs === 'number' && Number.isFinite(durationMs) && durationMs > 0)) fail(`durationMs must be a positive number of ms, got ${String(durationMs)}`);
    if (options === null || typeof options !== 'object') fail(`options must be an object { eventMsMax? }, got ${String(options)}`);
    const unknown = Object.keys(options).filter((k) => k !== 'eventMsMax');
    if (unknown.length > 0) fail(`unknown option${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (known: eventMsMax)`);
    const eventMsMax = options.eventMsMax ?? 100;
    if (!(typeof eventMsMax === 'number' && Number.isFinite(eventMsMax) && eventMsMax > 0)) fail(`eventMsMax must be a positive number of ms, got ${String(eventMsMax)}`);
    const host = world.hosts.require(name, 'lag');
    const maxNs = Math.round(eventMsMax * NS_PER_MS);
    world.lag(host, world.nowNs + Math.round(durationMs * NS_PER_MS), maxNs / 10, maxNs);
  }

  // ---- network faults (turmoil's verb pairs; b omitted = between a and every other host) ----

  /** Drops every packet between a and b (both ways unless oneway) until repair(). */
  partition(a: string, b?: string, options: FaultOptions = {}): void {
    this.onNetwork('partition', [a, b], (world) => {
      world.network.partition(a, b, options);
      traceAction(world, 'partition', linkFields(world, a, b, options));
    });
  }

  repair(a: string, b?: string, options: FaultOptions = {}): void {
    this.onNetwork('repair', [a, b], (world) => {
      world.network.repair(a, b, options);
      traceAction(world, 'repair', linkFields(world, a, b, options));
    });
  }

  /** Keeps every packet between a and b until release(), then delivers them in order. */
  hold(a: string, b?: string, options: FaultOptions = {}): void {
    this.onNetwork('hold', [a, b], (world) => {
      world.network.hold(a, b, options);
      traceAction(world, 'hold', linkFields(world, a, b, options));
    });
  }

  release(a: string, b?: string, options: FaultOptions = {}): void {
    this.onNetwork('release', [a, b], (world) => {
      // Announced first: the packets it lets go are sent within the release.
      traceAction(world, 'release', linkFields(world, a, b, options));
      world.network.release(a, b, options);
    });
  }

  /**
   * Resets established TCP connections as a middlebox does (a load balancer or a NAT that
   * dropped the flow, a firewall): both ends get a reset, so their reads fail with ECONNRESET.
   * It picks the connections between `a` and `b` (b omitted: every connection of `a`); `port`
   * keeps those with that port at either end; `afterBytes` resets each of them once that many more
   * bytes have been written on it (either way) instead of now. Returns how many it picked.
   */
  resetConnections(a: string, b?: string, options: { port?: number; afterBytes?: number } = {}): number {
    const world = this.running('reset the connections of', a);
    const fail = (reason: string): never => {
      throw new UsageError(`Failed to reset the connections of host "${a}": ${reason}`);
    };
    if (options === null || typeof options !== 'object') fail(`options must be an object { port?, afterBytes? }, got ${String(options)}`);
    const unknown = Object.keys(options).filter((k) => k !== 'port' && k !== 'afterBytes');
    if (unknown.length > 0) fail(`unknown option${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (known: port, afterBytes)`);
    const { port, afterBytes } = options;
    if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) fail(`port must be an integer in 1..65535, got ${String(port)}`);
    if (afterBytes !== undefined && !(Number.isSafeInteger(afterBytes) && afterBytes >= 0)) fail(`afterBytes must be a whole number of bytes >= 0, got ${String(afterBytes)}`);
    const hostA = world.hosts.require(a, 'reset the connections of');
    const hostB = b === undefined ? undefined : world.hosts.require(b, 'reset the connections of');
    const network = world.network;
    const between = (x: { host: { name: string } }, y: { host: { name: string } }) =>
      x.host.name === hostA.name && (hostB === undefined || y.host.name === hostB.name);
    const count = network.tcp.resetConnections(
      (x, y) => (between(x, y) || between(y, x)) && (port === undefined || x.local.port === port || y.local.port === port),
      afterBytes,
    );
    traceAction(world, 'resetConnections', { a: hostA.name, ...(hostB === undefined ? {} : { b: hostB.name }), ...(port === undefined ? {} : { port }), ...(afterBytes === undefined ? {} : { afterBytes }), count });
    return count;
  }

  /**
   * Adds a rule every packet passes through after the built-in ones (turmoil's extension point):
   * it may drop, delay, duplicate, hold or (TCP) reset what it sees. Returns the function that
   * removes it.
   */
  addRule(rule: Rule): () => void {
    if (rule === null || typeof rule !== 'object' || typeof rule.apply !== 'function') {
      throw new UsageError(`Failed to add a network rule: a rule is an object { name, apply(packet, verdict, random) }, got ${String(rule)}`);
    }
    let remove: (() => void) | undefined;
    let removed = false;
    let world: World | undefined;
    this.onNetwork('add a network rule to', [], (w) => {
      if (removed) return;
      world = w;
      remove = w.network.addRule(rule);
      traceAction(w, 'addRule', { rule: String(rule.name ?? '(unnamed)') });
    });
    return () => {
      if (removed) return;
      removed = true;
      if (remove !== undefined && world !== undefined) traceAction(world, 'removeRule', { rule: String(rule.name ?? '(unnamed)') });
      remove?.();
    };
  }

  /** Changes latency, loss or duplication of the link between a and b. */
  setLink(a: string, b: string, config: LinkConfig, options: FaultOptions = {}): void {
    this.onNetwork('configure the link of', [a, b], (world) => {
      world.network.setLink(a, b, config, options);
      traceAction(world, 'setLink', { ...linkFields(world, a, b, options), ...config });
    });
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
    traceAction(world, 'setClock', { target: host.name, ...(skewMs === undefined ? {} : { skewMs }), ...(driftPpm === undefined ? {} : { driftPpm }) });
  }

  /**
   * Sets the disk faults of a host's simulated disk from now on (before run(): from the start),
   * on top of the run's `diskFaults` rules; `null` removes them. The faults are those of the
   * diskFaults option, with `paths` for the per-operation ones: e.g. a slow disk,
   * `sim.setDiskFaults('db', { latency: { minMs: 50, maxMs: 500 } })`, a full one,
   * `{ full: true }`, or a failing one, `{ fsyncErrorRate: 1, paths: 'data/**' }`; a list of
   * such rules applies in order. Replaces what the last call set.
   */
  setDiskFaults(name: string, faults: Omit<DiskFaultRule, 'hosts'> | Array<Omit<DiskFaultRule, 'hosts'>> | null): void {
    const verb = 'set the disk faults of';
    if (this.resolved.disk !== 'simulated') {
      throw new UsageError(`Failed to ${verb} host "${name}": disk faults need simulated disks: add disk: 'simulated' to the Sim's options (or DST_DISK=simulated)`);
    }
    let layer: ResolvedRule[] | undefined;
    if (faults !== null) {
      if ((Array.isArray(faults) ? faults : [faults]).some((f) => f !== null && typeof f === 'object' && 'hosts' in f)) {
        throw new UsageError(`Failed to ${verb} host "${name}": the faults apply to the host named; remove "hosts"`);
      }
      layer = resolveDiskFaultRules(faults, `Failed to ${verb} host "${name}": faults`, process.cwd());
    }
    if (this.state === 'new') {
      if (!this.pending.some((p) => p.name.toLowerCase() === String(name).toLowerCase())) {
        const known = this.pending.map((p) => p.name).join(', ') || 'none';
        throw new UsageError(`Failed to ${verb} host "${name}": no such host (known: ${known}; add hosts before setting their disk faults)`);
      }
      this.setup.push((world) => world.disks.setFaults(world.hosts.require(name, verb).name, layer));
      return;
    }
    const world = this.running(verb, name);
    world.disks.setFaults(world.hosts.require(name, verb).name, layer);
  }

  /**
   * A certificate authority and per-host certificates made from this simulation's seed, for TLS
   * between its hosts: `{ ca, caKey, cert(name), key(name) }` in PEM (see TlsCertificates).
   * Host code gets the same set from `tlsCertificates()`.
   */
  tls(): TlsCertificates {
    return certificatesOf(this.resolved.seed);
  }

  /** The addresses of a host on the simulated network. */
  addressOf(name: string): { ipv4: string; ipv6: string } {
    if (this.state === 'new') {
      // Addresses follow the order hosts were added in: known before the run starts.
      const index = this.pending.findIndex((p) => p.name.toLowerCase() === String(name).toLowerCase());
      if (index === -1) throw new UsageError(`Failed to find the address of host "${name}": no such host (known: ${this.pending.map((p) => p.name).join(', ') || 'none'})`);
      return { ipv4: ipv4Of(index), ipv6: ipv6Of(index) };
    }
    const world = this.running('find the address of', name);
    return world.network.addressesOf(world.hosts.require(name, 'find the address of'));
  }

  /** Whether a host's current incarnation is running, crashed or exited, and its boot number. */
  status(name: string): { state: 'running' | 'crashed' | 'exited'; incarnation: number; paused: boolean; exitCode: number | undefined } {
    const host = this.running('inspect', name).hosts.require(name, 'inspect');
    return { state: host.state, incarnation: host.incarnation, paused: host.paused, exitCode: getHostProcessHooks()?.exitCode(host) };
  }

  /**
   * Stops the run from outside, now: run() rejects with a SimulationError named 'AbortError'
   * (report.kind 'aborted', with seed, virtual time, event number and replay; `cause` is
   * `reason`). Called outside host code (a test, a runner's hook, a signal's listener) it puts
   * every global back and releases every native handle before it returns; called from host code,
   * as soon as that code returns. Before run(): run() rejects at once. After the run: nothing.
   */
  abort(reason?: unknown): void {
    this.abortWith(abortCause('by sim.abort()', reason));
  }

  private abortWith(cause: AbortCause): void {
    if (this.state === 'new') {
      this.abortBeforeRun ??= cause;
      return;
    }
    const world = this.world;
    if (this.state !== 'running' || world === undefined || world.result !== undefined) return;
    // A run that waits for real work is not busy: say what it waited for.
    const waiting = world.waitingFor;
    world.aborted(cause.error, waiting === undefined ? cause.summary : `${cause.summary} (it was waiting for ${waiting})`);
    // The run's continuation (run()'s finally) comes a microtask later; outside host code nothing
    // of the simulation is on the stack, so restore now: the caller (a runner's afterEach, the
    // runner's timeout through a signal) then goes on with the real globals. From host code the
    // host's own synchronous code must finish first, as after any failure.
    if (world.als.getStore()?.world !== world) this.cleanup?.();
  }

  /**
   * Runs the simulation to its end. Rejects with a SimulationError carrying seed and replay.
   * `options.signal` and `options.wallClockLimitMs` stop it from outside (see SimOptions).
   */
  async run(options: RunOptions = {}): Promise<SimResult> {
    if (this.state !== 'new') throw new UsageError(`Failed to run simulation (seed ${this.seed}): a Sim runs once; create a new one`);
    const stop = resolveRunOptions(options);
    const signals: Array<{ signal: AbortSignal; how: string }> = [];
    for (const signal of [this.resolved.signal, stop.signal]) {
      if (signal !== undefined && !signals.some((s) => s.signal === signal)) signals.push({ signal, how: 'by its signal' });
    }
    // Inside a Vitest or Jest test: the test's end (its timeout) stops the run too, also when the
    // test passed no signal, so the next test does not find this one's simulation still installed.
    const runner = runnerTestSignal();
    if (runner !== undefined && !signals.some((s) => s.signal === runner.signal)) signals.push({ signal: runner.signal, how: `as ${runner.runner} ended the test` });
    const wallClockLimitMs = stop.wallClockLimitMs ?? this.resolved.wallClockLimitMs;
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
      replay: replays.get(this) ?? replayCommand(this.resolved, this.seed, this.testFile),
      strict: this.resolved.strict,
      disk: this.resolved.disk,
      ...(this.resolved.diskFaults === undefined ? {} : { diskFaults: this.resolved.diskFaults }),
      pending: this.resolved.pending,
    }));
    const abortedSignal = signals.find((s) => s.signal.aborted);
    const early = this.abortBeforeRun ?? (abortedSignal === undefined ? undefined : abortCause(`${abortedSignal.how} before it started`, abortedSignal.signal.reason));
    if (early !== undefined) {
      // Nothing installed yet: report at virtual time 0, event 0.
      world.dispose();
      this.state = 'done';
      throw new SimulationError(world.report('aborted', undefined, early.error, early.summary));
    }
    for (const [key, value] of attachments.get(this) ?? []) world.attachments.set(key, value);
    const interposer = getInterposer();
    interposer.install(world);
    const processErrors = takeOverProcessErrors(world);
    runningSim = this;
    const listeners = signals.map(({ signal, how }) => {
      const onAbort = (): void => this.abortWith(abortCause(how, signal.reason));
      signal.addEventListener('abort', onAbort);
      return () => signal.removeEventListener('abort', onAbort);
    });
    // The guard is a real timer (the one captured before any shim): it fires between two of the
    // driver's batches (each batch is one turn of Node's loop, whose timers phase comes next)
    // however busy the hosts keep the simulation, and also while the run waits for real work,
    // when no batch runs. Unref'd: it never keeps the process alive by itself.
    const guard =
      wallClockLimitMs === undefined
        ? undefined
        : originals.setTimeout(runtimeCallback(() => {
            const limit = `${wallClockLimitMs.toLocaleString('en-US')} ms`;
            const waiting = world.waitingFor;
            this.abortWith({
              summary: `run aborted: still running after ${limit} of real time (wallClockLimitMs)`,
              error: runtimeError(
                `run aborted: still running after ${limit} of real time (wallClockLimitMs). ` +
                  (waiting === undefined
                    ? 'A host may keep it busy for ever (an interval nobody clears, a retry loop), or it needs more time: give it a virtual-time budget (durationMs), or raise wallClockLimitMs'
                    : `It was not busy: it was waiting for ${waiting}, which did not end`),
              ),
            });
          }), wallClockLimitMs);
    guard?.unref();
    this.cleanup = () => {
      this.cleanup = undefined;
      if (guard !== undefined) originals.clearTimeout(guard);
      for (const remove of listeners) remove();
      interposer.uninstall(world);
      processErrors.restore();
      world.dispose();
      if (runningSim === this) runningSim = undefined;
      this.state = 'done';
    };
    try {
      for (const rule of this.resolved.diskFaults ?? []) {
        const unknown = (rule.hosts ?? []).filter((h) => !this.pending.some((p) => p.name.toLowerCase() === h));
        if (unknown.length > 0) {
          throw new UsageError(`Failed to configure simulation: diskFaults name host "${unknown[0]}", which the simulation does not have (hosts: ${this.pending.map((p) => p.name).join(', ') || 'none'})`);
        }
      }
      for (const p of this.pending) {
        const host = world.hosts.add(p.name, p.role, p.options.skewMs ?? 0, p.options.onCrash ?? 'fail', p.options.driftPpm ?? 0);
        world.hosts.boot(host, p.main);
      }
      for (const apply of this.setup) apply(world);
      const outcome = await world.start();
      if (outcome.failure !== undefined) {
        // The error that failed the run is often thrown on into the host's code too (always()
        // fails the run, then throws so that its caller stops): in an async function it rejects
        // a promise nobody handles, and Node reports that once the microtasks of the turn the run
        // ended in have run. The run's listener must still be the one it reaches: after the
        // restore it reached the test process, where Node's default made it fatal.
        await new Promise((resolve) => originals.setImmediate(runtimeCallback(resolve)));
        throw new SimulationError(outcome.failure);
      }
      return {
        seed: this.seed,
        fingerprint: world.fingerprint.toString(),
        elapsedNs: world.nowNs,
        events: world.eventsRun,
        stopReason: outcome.reason as SimResult['stopReason'],
        ...(world.pendingPromises === undefined ? {} : { pending: world.pendingPromises() }),
      };
    } finally {
      this.cleanup?.();
    }
  }
}
