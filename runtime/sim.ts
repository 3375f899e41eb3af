import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { UsageError } from './errors.js';
import { SimulationError } from './failure.js';
import { getInterposer } from './interposer.js';
import { resolveOptions, shellQuote, type ResolvedOptions, type SimOptions } from './options.js';
import { formatSeed } from './random/seed.js';
import { World } from './world.js';

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
  /** Why the run ended: nothing ref'd was left, every client finished, or the budget ran out. */
  stopReason: 'quiescent' | 'clients-done' | 'duration';
}

/** Options of one host. */
export interface HostOptions {
  /** Offset of this host's wall clock (Date) from the simulation's, in ms. */
  skewMs?: number;
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
  if (resolved.seedSource === 'option') return `new Sim({ seed: ${seedText} }) (the seed is pinned in the test)`;
  const argv = process.argv.slice(1).map((arg, i) => (i === 0 ? path.relative(process.cwd(), arg) || arg : arg));
  return `DST_SEED=${seedText} ${[path.basename(process.execPath), ...process.execArgv, ...argv].map(shellQuote).join(' ')}`;
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

  constructor(options: SimOptions = {}) {
    this.resolved = resolveOptions(options, process.env, drawSeed);
    this.seed = formatSeed(this.resolved.seed);
  }

  /** Adds a host: a long-running process (a server). Its failure fails the run. */
  host(name: string, main: () => unknown, options: HostOptions = {}): this {
    return this.add(name, 'host', main, options);
  }

  /** Adds a client: the run ends when every client's main function has settled. */
  client(name: string, main: () => unknown, options: HostOptions = {}): this {
    return this.add(name, 'client', main, options);
  }

  private add(name: string, role: 'host' | 'client', main: () => unknown, options: HostOptions): this {
    if (this.state !== 'new') throw new UsageError(`Failed to add ${role} "${name}": the simulation has already run`);
    if (typeof main !== 'function') {
      throw new UsageError(`Failed to add ${role} "${name}": main must be a function, got ${typeof main}`);
    }
    if (this.pending.some((p) => p.name === name)) {
      throw new UsageError(`Failed to add ${role} "${name}": a host with that name already exists`);
    }
    this.pending.push({ name, role, main, options });
    return this;
  }

  /** Runs the simulation to its end. Rejects with a SimulationError carrying seed and replay. */
  async run(): Promise<SimResult> {
    if (this.state !== 'new') throw new UsageError(`Failed to run simulation (seed ${this.seed}): a Sim runs once; create a new one`);
    this.state = 'running';
    const world = new World({
      seed: this.resolved.seed,
      mode: 'library',
      epochMs: this.resolved.epochMs,
      eventsMax: this.resolved.eventsMax,
      timeLimitNs: this.resolved.timeLimitNs,
      durationNs: this.resolved.durationNs,
      traceFile: this.resolved.traceFile,
      replay: replayCommand(this.resolved, this.seed),
    });
    const interposer = getInterposer();
    const onRejection = (reason: unknown) => world.hostFailed(world.lastHost, reason, 'unhandled-rejection');
    interposer.install(world);
    process.prependListener('unhandledRejection', onRejection);
    try {
      for (const p of this.pending) {
        const host = world.addHost(p.name, p.role, p.options.skewMs ?? 0);
        world.boot(host, p.main);
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
      process.removeListener('unhandledRejection', onRejection);
      interposer.uninstall(world);
      world.dispose();
      this.state = 'done';
    }
  }
}
