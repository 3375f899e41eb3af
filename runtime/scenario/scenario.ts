import { SimulationError } from '../failure.js';
import { UsageError } from '../errors.js';
import { DEFAULT_LATENCY, type NetworkOptions, validateNetworkOptions } from '../network/network.js';
import { type DiskMode, envDiskMode, isDiskMode } from '../options.js';
import { type DiskFaultRule, type DiskFaults, validateDiskFaults } from '../disk/faults.js';
import { formatSeed, parseSeed, type SeedInput } from '../random/seed.js';
import { RandomStream } from '../random/stream.js';
import { attachToRun, setReplay, Sim } from '../sim.js';
import { activeWorld, type World } from '../world.js';
import { always, coverageOf, type CoverageEntry } from './assertions.js';

/**
 * What invariants and hosts share in one run. `state` is the scenario's own blackboard: hosts
 * publish what an invariant must see (values held, increments acknowledged) and invariants
 * read it. A fresh context is made for every run.
 */
export interface ScenarioContext {
  sim: Sim;
  state: Record<string, any>;
  /** 'faults' while faults are injected, then 'heal' once they stopped. */
  phase: 'faults' | 'heal';
  /** Hosts the fault driver may crash, pause and partition. */
  targets: string[];
  /** Clients the client-crash faults apply to. */
  clients: string[];
}

/** An invariant answers true (holds), false or a string (violated; the string says why). */
export type Invariant = (ctx: ScenarioContext) => boolean | string;

/** Rates per virtual second; each is drawn on every tick of the fault clock. */
export interface FaultProfile {
  /**
   * Machine crashes (a power loss, a kernel panic): the target sends nothing more, its peers
   * learn of it from their own timeouts; it is restarted after its downtime.
   */
  crashPerSecond?: number;
  /**
   * Process kills (SIGKILL, the OOM killer): the target's kernel closes its sockets at once (FIN,
   * or a reset where data was unread); it is restarted after its downtime.
   */
  killPerSecond?: number;
  /** Resets of the TCP connections between two targets (a middlebox dropping the flows). */
  resetPerSecond?: number;
  /** crash + restart at once. */
  bouncePerSecond?: number;
  /** Graceful SIGTERM; the host is restarted after its downtime. */
  stopPerSecond?: number;
  pausePerSecond?: number;
  /** Two-way partitions between two targets. */
  partitionPerSecond?: number;
  /** One-way partitions between two targets. */
  partitionOnewayPerSecond?: number;
  holdPerSecond?: number;
  /**
   * Latency spikes: the link between two targets gets a latency drawn from `latencySpikeMs`
   * (uniform) for a downtime, then the network's default latency (1-5 ms) again.
   */
  latencySpikePerSecond?: number;
  /** [min, max] latency of a spike, in ms. Default [100, 1000]. */
  latencySpikeMs?: [number, number];
  /**
   * Clock jumps: a target's clock skew is set to a value drawn uniformly (whole ms) in
   * [-skewJumpMsMax, skewJumpMsMax] with `sim.setClock(name, { skewMs })`; it stays until the next jump.
   */
  skewJumpPerSecond?: number;
  /** Default 5000. */
  skewJumpMsMax?: number;
  /**
   * Crashes a client (see ScenarioDefinition.clients) and restarts it after its downtime (its
   * main runs again). With client crashes the run lasts its whole budget.
   */
  clientCrashPerSecond?: number;
  /**
   * Disk faults of the targets' simulated disks (the scenario needs `disk: 'simulated'`),
   * probabilities per operation: EIO on read, on write, on fsync/fdatasync (which drops the
   * file's unsynced data), and a read returning one flipped bit. They stop in the heal phase.
   */
  diskReadErrorRate?: number;
  diskWriteErrorRate?: number;
  diskFsyncErrorRate?: number;
  diskCorruptReadRate?: number;
  /** Path patterns the disk error rates apply to (default every file; see DiskFaultRule.paths). */
  diskPaths?: string[];
  /** [min, max] latency of every disk operation, in ms (uniform): the disk's own speed, kept in the heal phase. */
  diskLatencyMs?: [number, number];
  /** [min, max] latency of fsync/fdatasync, in ms (uniform; default diskLatencyMs): flushing takes longer than writing to the page cache. */
  diskFsyncLatencyMs?: [number, number];
  /** The targets' disks hold at most this many bytes (ENOSPC past it). */
  diskQuotaBytes?: number;
  /** A machine crash leaves the unsynced writes torn: whole, lost or cut at a sector, in any order. */
  diskTornWrites?: boolean;
  /** The sector torn writes tear at: 512 (default) or 4096. */
  diskSectorBytes?: 512 | 4096;
  /** Slow disks: a target's disk takes `diskSlowMs` per operation for a downtime. */
  diskSlowPerSecond?: number;
  /** [min, max] latency of a slow disk's operations, in ms (uniform). Default [50, 500]. */
  diskSlowMs?: [number, number];
  /** Full disks: a target's disk has no room left for a downtime (another process filled it): writes that need a block get ENOSPC. */
  diskFullPerSecond?: number;
  /** How long a crashed/stopped host stays down, a paused one frozen, a partition or hold lasts. */
  downMsMin?: number;
  downMsMax?: number;
  /** At most this many targets down (crashed or stopped) at once. Default 1. */
  downCountMax?: number;
  /** Crashes and stops are injected only while this answers true (e.g. every replica has caught up). */
  crashWhen?: (ctx: ScenarioContext) => boolean;
  /** Tick of the fault clock, in ms. Default 10. */
  tickMs?: number;
}

export interface ScenarioDefinition {
  name: string;
  /** Adds the hosts and clients of the topology. */
  hosts: (sim: Sim, ctx: ScenarioContext) => void;
  /** Hosts the faults apply to. Default: every host added by `hosts`. */
  targets?: string[];
  /**
   * Clients the client-crash faults apply to (crashed, then restarted after a downtime).
   * Default: every `sim.client` added by `hosts`.
   */
  clients?: string[];
  faults?: FaultProfile;
  /** The virtual-time budget, heal phase included. */
  durationMs: number;
  /** The heal phase at the end: no faults, every host repaired, resumed and restarted. Default 20% of durationMs. */
  healMs?: number;
  /** How often safety invariants are checked, in virtual ms. Default 10 (and after every fault). */
  safetyEveryMs?: number;
  invariants?: { safety?: Invariant[]; liveness?: Invariant[] };
  /** The hosts' disks: 'simulated' (crashes lose what was not fsync'd) or 'real'. Default: DST_DISK, else 'real'. */
  disk?: DiskMode;
  /**
   * The network's defaults (latency, loopbackLatency, lossRatio, duplicateRatio, tcpTimeoutMs),
   * as Sim's `network` option. Per-link settings go in `hosts()`: sim.setLink, sim.partition and
   * sim.addRule work there, before the run, and apply when it starts.
   */
  network?: NetworkOptions;
}

export type Scenario = Required<Pick<ScenarioDefinition, 'name' | 'hosts' | 'durationMs'>> & ScenarioDefinition & { readonly kind: 'dst-scenario' };

export interface ScenarioFailure {
  kind: 'safety' | 'liveness' | 'crash' | 'limit';
  message: string;
  host: string | undefined;
  timeNs: number;
  event: number;
  replay: string;
}

export interface ScenarioResult {
  seed: string;
  /**
   * Equal fingerprints mean equal executions. A failed run has no run fingerprint, so its
   * fingerprint names where it failed ("fail:<kind>:<timeNs>:<event>"), which a faithful
   * replay reproduces exactly.
   */
  fingerprint: string;
  ok: boolean;
  elapsedNs: number;
  events: number;
  failure?: ScenarioFailure;
  coverage: CoverageEntry[];
  /** Swarm mode: the fault rates this seed drew (every `*PerSecond` rate of the profile). */
  swarm?: Record<string, number>;
  /** With DST_PENDING=1 (a run that did not fail): promises host code left pending, by site (SimResult.pending). */
  pending?: Array<{ site: string; host: string; count: number }>;
}

/** Options of runScenario. */
export interface RunScenarioOptions {
  /** The replay command printed with a failure. */
  replay?: string;
  /** Swarm mode: the seed draws its own fault mix from the profile (see swarmFaults). */
  swarm?: boolean;
  /** Write every event of the run as a JSON line to this file (as DST_TRACE does). */
  trace?: string;
  /**
   * Stops the run when it aborts (a test runner's signal): runScenario then rejects with the
   * run's SimulationError named 'AbortError' instead of returning a result, since an unfinished
   * run says nothing about the seed. See SimOptions.signal.
   */
  signal?: AbortSignal;
  /** Stops the run after this many ms of real time, as `signal` would (SimOptions.wallClockLimitMs). */
  wallClockLimitMs?: number;
}

/** Whether a profile key is a rate swarm mode mixes: `*PerSecond`, and the disk's per-operation `disk*Rate`. */
const mixed = (key: string): boolean => key.endsWith('PerSecond') || (key.startsWith('disk') && key.endsWith('Rate'));

/**
 * Swarm testing: a seed's own fault mix, a pure function of (profile, seed). Each `*PerSecond`
 * rate (and each per-operation `disk*Rate`) r > 0 of the profile is, independently, off (0) with
 * probability 1/2, else uniform in (0, 2r] (a disk rate at most 1); each rate draws from its own
 * stream derived from the seed and the rate's name, so adding a rate to the profile does not
 * change the draws of the others. Rates are rounded to 1e-6 so the mix prints exactly.
 */
export function swarmFaults(faults: FaultProfile, seed: SeedInput): Record<string, number> {
  const root = parseSeed(seed, 'seed');
  const mix: Record<string, number> = {};
  for (const key of Object.keys(faults).filter(mixed).sort()) {
    const rate = (faults as Record<string, number>)[key]!;
    if (!(rate > 0)) {
      mix[key] = 0;
      continue;
    }
    const stream = new RandomStream(root, `swarm/${key}`);
    const on = stream.double() >= 0.5;
    const scaled = on ? Math.max(1e-6, Math.round((1 - stream.double()) * 2 * rate * 1e6) / 1e6) : 0;
    mix[key] = key.endsWith('PerSecond') ? scaled : Math.min(1, scaled);
  }
  return mix;
}

/** A fault mix for printing: "crashPerSecond=1.2 pausePerSecond=0 ...". */
export function formatFaultMix(mix: Record<string, number>): string {
  return Object.entries(mix).map(([k, v]) => `${k}=${v}`).join(' ');
}

const CHAOS = 'chaos';

/** Where a scenario run keeps its context (World.attachments). */
const kScenarioContext = Symbol('dst.scenarioContext');

/**
 * The context of the scenario run this code is part of: its `state` (the blackboard invariants
 * read), its `phase` ('faults', then 'heal'), its targets and clients. For host code of any kind,
 * module hosts included (they share dst-runtime itself with the test). Undefined outside a
 * scenario run.
 *
 *     import { scenarioContext } from 'dst-runtime';
 *     const ctx = scenarioContext();
 *     if (ctx?.phase === 'heal') stopTheWorkload();
 *     if (ctx) ctx.state.acked = (ctx.state.acked ?? 0) + 1;
 */
export function scenarioContext(): ScenarioContext | undefined {
  return activeWorld()?.attachments.get(kScenarioContext) as ScenarioContext | undefined;
}

/** Validates a scenario once, with messages that say what to change. */
export function defineScenario(definition: ScenarioDefinition): Scenario {
  const where = `Failed to define scenario "${String(definition?.name)}"`;
  if (typeof definition?.name !== 'string' || definition.name === '') throw new UsageError(`${where}: name must be a non-empty string`);
  if (typeof definition.hosts !== 'function') throw new UsageError(`${where}: hosts must be a function (sim, ctx) => void`);
  if (!(Number.isFinite(definition.durationMs) && definition.durationMs > 0)) throw new UsageError(`${where}: durationMs must be a positive number`);
  const healMs = definition.healMs ?? Math.floor(definition.durationMs / 5);
  if (!(healMs >= 0 && healMs < definition.durationMs)) throw new UsageError(`${where}: healMs must be in [0, durationMs)`);
  const faults = definition.faults ?? {};
  for (const [key, value] of Object.entries(faults)) {
    if (key.endsWith('PerSecond') && !(typeof value === 'number' && value >= 0)) throw new UsageError(`${where}: faults.${key} must be a number >= 0`);
  }
  validateDiskProfile(faults, where, definition.disk);
  const spike = faults.latencySpikeMs;
  if (spike !== undefined && !(Array.isArray(spike) && spike.length === 2 && spike.every((v) => Number.isFinite(v) && v >= 0) && spike[0] <= spike[1])) {
    throw new UsageError(`${where}: faults.latencySpikeMs must be [minMs, maxMs] with 0 <= minMs <= maxMs, got ${JSON.stringify(spike)}`);
  }
  if (faults.skewJumpMsMax !== undefined && !(Number.isSafeInteger(faults.skewJumpMsMax) && faults.skewJumpMsMax > 0)) {
    throw new UsageError(`${where}: faults.skewJumpMsMax must be a positive integer number of ms, got ${String(faults.skewJumpMsMax)}`);
  }
  if ((faults.skewJumpPerSecond ?? 0) > 0 && typeof (Sim.prototype as unknown as Record<string, unknown>).setClock !== 'function') {
    throw new UsageError(`${where}: faults.skewJumpPerSecond needs Sim.setClock(name, { skewMs }), which this build of dst-runtime does not have; remove the rate or upgrade dst-runtime`);
  }
  if (definition.disk !== undefined && !isDiskMode(definition.disk)) {
    throw new UsageError(`${where}: disk must be 'simulated' or 'real', got ${JSON.stringify(definition.disk)}`);
  }
  if (definition.network !== undefined) {
    try {
      validateNetworkOptions(definition.network);
    } catch (error) {
      throw new UsageError(`${where}: network: ${(error as Error).message.replace(/^Failed to configure the network: /, '')}`);
    }
  }
  if (definition.clients !== undefined && !(Array.isArray(definition.clients) && definition.clients.every((c) => typeof c === 'string'))) {
    throw new UsageError(`${where}: clients must be an array of host names`);
  }
  // Counted for the CLI's probe: a file that defines a scenario without exporting it as default
  // is a usage error, not a program that does nothing.
  const counter = Symbol.for('dst-runtime.scenariosDefined');
  const g = globalThis as unknown as Record<symbol, number>;
  g[counter] = (g[counter] ?? 0) + 1;
  return { ...definition, healMs, kind: 'dst-scenario' };
}

const DISK_RATES = ['diskReadErrorRate', 'diskWriteErrorRate', 'diskFsyncErrorRate', 'diskCorruptReadRate'] as const;
const DISK_KEYS = [...DISK_RATES, 'diskPaths', 'diskLatencyMs', 'diskFsyncLatencyMs', 'diskQuotaBytes', 'diskTornWrites', 'diskSectorBytes', 'diskSlowPerSecond', 'diskSlowMs', 'diskFullPerSecond'];

/** Whether a profile asks for disk faults (so the scenario needs simulated disks). */
function usesDisk(faults: FaultProfile): boolean {
  return DISK_KEYS.some((k) => {
    const v = (faults as Record<string, unknown>)[k];
    return v !== undefined && v !== 0 && v !== false;
  });
}

function validateDiskProfile(faults: FaultProfile, where: string, disk: DiskMode | undefined): void {
  const f = faults as Record<string, unknown>;
  for (const key of DISK_RATES) {
    const v = f[key];
    if (v !== undefined && !(typeof v === 'number' && v >= 0 && v <= 1)) throw new UsageError(`${where}: faults.${key} must be a probability in [0, 1], got ${JSON.stringify(v)}`);
  }
  for (const key of ['diskLatencyMs', 'diskFsyncLatencyMs', 'diskSlowMs']) {
    const v = f[key];
    if (v !== undefined && !(Array.isArray(v) && v.length === 2 && v.every((x) => Number.isFinite(x) && x >= 0) && v[0] <= v[1])) {
      throw new UsageError(`${where}: faults.${key} must be [minMs, maxMs] with 0 <= minMs <= maxMs, got ${JSON.stringify(v)}`);
    }
  }
  if (f.diskPaths !== undefined && !(Array.isArray(f.diskPaths) && f.diskPaths.every((p) => typeof p === 'string' && p !== ''))) {
    throw new UsageError(`${where}: faults.diskPaths must be a list of path patterns, got ${JSON.stringify(f.diskPaths)}`);
  }
  // The rest is checked as the disk faults it becomes.
  const whole = diskBase(faults, false).filter((r) => r.paths === undefined);
  for (const rule of whole) validateDiskFaults(rule, `${where}: faults`);
  if (usesDisk(faults) && (disk ?? envDiskMode(process.env)) !== 'simulated') {
    throw new UsageError(`${where}: disk faults (${DISK_KEYS.filter((k) => f[k] !== undefined).join(', ')}) need simulated disks: add disk: 'simulated' to the scenario`);
  }
}

/**
 * The disk faults a profile gives every target, as sim.setDiskFaults rules: the error rates on
 * `diskPaths`, then the disk's own properties (latency, quota, torn writes). In the heal phase
 * (`healing`) only the properties stay.
 */
function diskBase(faults: FaultProfile, healing: boolean): Array<Omit<DiskFaultRule, 'hosts'>> {
  const rules: Array<Omit<DiskFaultRule, 'hosts'>> = [];
  const rates: DiskFaults = {};
  if (!healing) {
    if (faults.diskReadErrorRate) rates.readErrorRate = faults.diskReadErrorRate;
    if (faults.diskWriteErrorRate) rates.writeErrorRate = faults.diskWriteErrorRate;
    if (faults.diskFsyncErrorRate) rates.fsyncErrorRate = faults.diskFsyncErrorRate;
    if (faults.diskCorruptReadRate) rates.corruptReadRate = faults.diskCorruptReadRate;
  }
  if (Object.keys(rates).length > 0) rules.push(faults.diskPaths === undefined ? rates : { ...rates, paths: faults.diskPaths });
  const disk: DiskFaults = {};
  if (faults.diskLatencyMs !== undefined) disk.latency = { minMs: faults.diskLatencyMs[0], maxMs: faults.diskLatencyMs[1] };
  if (faults.diskFsyncLatencyMs !== undefined) disk.fsyncLatency = { minMs: faults.diskFsyncLatencyMs[0], maxMs: faults.diskFsyncLatencyMs[1] };
  if (faults.diskQuotaBytes !== undefined) disk.quotaBytes = faults.diskQuotaBytes;
  if (faults.diskTornWrites) disk.tornWrites = true;
  if (faults.diskSectorBytes !== undefined) disk.sectorBytes = faults.diskSectorBytes;
  if (Object.keys(disk).length > 0) rules.push(disk);
  return rules;
}

function check(invariants: Invariant[], ctx: ScenarioContext): string | undefined {
  for (const invariant of invariants) {
    const verdict = invariant(ctx);
    if (verdict === true) continue;
    return typeof verdict === 'string' ? verdict : `invariant ${invariant.name || '(anonymous)'} returned ${String(verdict)}`;
  }
  return undefined;
}

/** The fault driver: a host of its own, so its Math.random is a seeded stream of the run. */
function chaos(scenario: Scenario, faults: FaultProfile, ctx: ScenarioContext, onWorld: (world: World) => void): () => Promise<void> {
  const tickMs = faults.tickMs ?? 10;
  const safetyEveryMs = scenario.safetyEveryMs ?? 10;
  const downMsMin = faults.downMsMin ?? 50;
  const downMsMax = faults.downMsMax ?? 500;
  const downCountMax = faults.downCountMax ?? 1;
  const healAtMs = scenario.durationMs - (scenario.healMs ?? 0);
  const sim = ctx.sim;
  const safety = scenario.invariants?.safety ?? [];
  const liveness = scenario.invariants?.liveness ?? [];
  return async () => {
    const world = activeWorld();
    if (world !== undefined) onWorld(world);
    const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)]!;
    const downMs = () => downMsMin + Math.floor(Math.random() * (downMsMax - downMsMin + 1));
    const chance = (perSecond: number | undefined) => perSecond !== undefined && perSecond > 0 && Math.random() < (perSecond * tickMs) / 1000;
    // A fault may meet a host in another state than drawn (restarted meanwhile): skip it then.
    const attempt = (fn: () => void) => {
      try {
        fn();
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
      }
    };
    const later = (ms: number, fn: () => void) => setTimeout(() => { if (ctx.phase === 'faults') attempt(fn); }, ms);
    const running = () => ctx.targets.filter((t) => sim.status(t).state === 'running');
    const down = new Set<string>();
    const checkSafety = () => {
      const violated = check(safety, ctx);
      always(violated === undefined, `safety invariant violated: ${violated}`);
    };
    const takeDown = (how: 'crash' | 'kill' | 'stop') => {
      if (down.size >= downCountMax || (faults.crashWhen !== undefined && !faults.crashWhen(ctx))) return;
      const up = running().filter((t) => !down.has(t));
      if (up.length === 0) return;
      const target = pick(up);
      down.add(target);
      if (how === 'crash') sim.crash(target);
      else if (how === 'kill') sim.kill(target);
      else sim.stop(target);
      later(downMs(), () => {
        down.delete(target);
        if (sim.status(target).state !== 'running') sim.restart(target);
      });
    };
    const linkFault = (apply: (a: string, b: string) => void, undo: (a: string, b: string) => void) => {
      if (ctx.targets.length < 2) return;
      const a = pick(ctx.targets);
      const b = pick(ctx.targets.filter((t) => t !== a));
      apply(a, b);
      later(downMs(), () => undo(a, b));
    };
    // Latency spikes: one at a time per link; undone at their end or at the heal phase.
    const [spikeMin, spikeMax] = faults.latencySpikeMs ?? [100, 1000];
    const spiked = new Set<string>();
    const unspike = (a: string, b: string) => {
      if (spiked.delete(`${a}|${b}`)) sim.setLink(a, b, { latency: { ...(scenario.network?.latency ?? DEFAULT_LATENCY) } });
    };
    const spike = () => {
      if (ctx.targets.length < 2) return;
      const a = pick(ctx.targets);
      const b = pick(ctx.targets.filter((t) => t !== a));
      const key = a < b ? `${a}|${b}` : `${b}|${a}`;
      if (spiked.has(key)) return;
      const ms = spikeMin + Math.random() * (spikeMax - spikeMin);
      spiked.add(key);
      const [x, y] = key.split('|') as [string, string];
      sim.setLink(x, y, { latency: { minMs: ms, maxMs: ms } });
      later(downMs(), () => unspike(x, y));
    };
    const skewJumpMsMax = faults.skewJumpMsMax ?? 5000;
    const skewJump = () => {
      const target = pick(ctx.targets);
      const skewMs = Math.floor(Math.random() * (2 * skewJumpMsMax + 1)) - skewJumpMsMax;
      (sim as unknown as { setClock: (name: string, clock: { skewMs: number }) => void }).setClock(target, { skewMs });
    };
    // Disk faults: every target's base (rates, latency, quota, torn writes), plus a slow or full
    // disk for a downtime each; the layer sim.setDiskFaults holds is rebuilt from these.
    const diskState = new Map<string, { slow?: { minMs: number; maxMs: number }; full?: boolean }>();
    let healing = false;
    const applyDisk = (target: string) => {
      const state = diskState.get(target) ?? {};
      const rules = diskBase(faults, healing);
      if (state.slow !== undefined) rules.push({ latency: state.slow, fsyncLatency: state.slow });
      if (state.full === true) rules.push({ full: true });
      sim.setDiskFaults(target, rules.length === 0 ? null : rules);
    };
    const [slowMin, slowMax] = faults.diskSlowMs ?? [50, 500];
    const diskFault = (kind: 'slow' | 'full') => {
      const target = pick(ctx.targets);
      const state = diskState.get(target) ?? {};
      if (kind === 'slow' ? state.slow !== undefined : state.full === true) return;
      if (kind === 'slow') state.slow = { minMs: slowMin, maxMs: slowMax };
      else state.full = true;
      diskState.set(target, state);
      applyDisk(target);
      later(downMs(), () => {
        if (kind === 'slow') delete state.slow;
        else delete state.full;
        applyDisk(target);
      });
    };
    const clientCrash = () => {
      const up = ctx.clients.filter((c) => sim.status(c).state === 'running');
      if (up.length === 0) return;
      const target = pick(up);
      sim.crash(target);
      later(downMs(), () => {
        if (sim.status(target).state !== 'running') sim.restart(target);
      });
    };

    const interval = setInterval(() => attempt(() => {
      if (ctx.phase !== 'faults') return;
      if (chance(faults.crashPerSecond)) takeDown('crash');
      if (chance(faults.killPerSecond)) takeDown('kill');
      if (chance(faults.resetPerSecond) && ctx.targets.length >= 2) {
        const a = pick(ctx.targets);
        sim.resetConnections(a, pick(ctx.targets.filter((t) => t !== a)));
      }
      if (chance(faults.stopPerSecond)) takeDown('stop');
      if (chance(faults.bouncePerSecond)) {
        const up = running().filter((t) => !down.has(t));
        if (up.length > 0 && (faults.crashWhen === undefined || faults.crashWhen(ctx))) sim.bounce(pick(up));
      }
      if (chance(faults.pausePerSecond)) {
        const target = pick(ctx.targets);
        const status = sim.status(target);
        if (status.state === 'running' && !status.paused) {
          sim.pause(target);
          later(downMs(), () => sim.resume(target));
        }
      }
      if (chance(faults.partitionPerSecond)) linkFault((a, b) => sim.partition(a, b), (a, b) => sim.repair(a, b));
      if (chance(faults.partitionOnewayPerSecond)) linkFault((a, b) => sim.partition(a, b, { oneway: true }), (a, b) => sim.repair(a, b, { oneway: true }));
      if (chance(faults.holdPerSecond)) linkFault((a, b) => sim.hold(a, b), (a, b) => sim.release(a, b));
      if (chance(faults.latencySpikePerSecond)) spike();
      if (chance(faults.skewJumpPerSecond) && ctx.targets.length > 0) skewJump();
      if (chance(faults.clientCrashPerSecond)) clientCrash();
      if (chance(faults.diskSlowPerSecond) && ctx.targets.length > 0) diskFault('slow');
      if (chance(faults.diskFullPerSecond) && ctx.targets.length > 0) diskFault('full');
    }), tickMs);
    const safetyTimer = safety.length > 0 ? setInterval(checkSafety, safetyEveryMs) : undefined;

    await new Promise((resolve) => setTimeout(resolve, healAtMs));
    // Heal phase: faults stop; every link is repaired and released, every host resumed and restarted.
    ctx.phase = 'heal';
    clearInterval(interval);
    for (const a of ctx.targets) {
      for (const b of ctx.targets) {
        if (a === b) continue;
        attempt(() => sim.repair(a, b, { oneway: true }));
        attempt(() => sim.release(a, b, { oneway: true }));
      }
      const status = sim.status(a);
      if (status.paused) attempt(() => sim.resume(a));
      if (status.state !== 'running') attempt(() => sim.restart(a));
    }
    for (const key of [...spiked]) attempt(() => unspike(...(key.split('|') as [string, string])));
    for (const c of ctx.clients) if (sim.status(c).state === 'crashed') attempt(() => sim.restart(c));
    down.clear();
    if (usesDisk(faults)) {
      healing = true;
      diskState.clear();
      for (const target of ctx.targets) applyDisk(target);
    }
    // Liveness is judged 1 ms before the budget ends, so the check still runs inside the simulation.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, scenario.durationMs - healAtMs - 1)));
    if (safetyTimer !== undefined) clearInterval(safetyTimer);
    checkSafety();
    const failed = check(liveness, ctx);
    if (failed !== undefined) {
      const error = new Error(`liveness check failed after ${scenario.healMs} ms of healing: ${failed}`);
      error.name = 'LivenessFailure';
      world?.hosts.failed(world.currentHost(), error, 'liveness');
      throw error;
    }
  };
}

/** Runs one seed of a scenario. Never rejects for a failure of the system under test: it is in `failure`. */
export async function runScenario(scenario: Scenario, seed: SeedInput, options: RunScenarioOptions = {}): Promise<ScenarioResult> {
  if (scenario?.kind !== 'dst-scenario') throw new UsageError('Failed to run scenario: pass the value defineScenario() returned');
  const seedText = formatSeed(parseSeed(seed, 'seed'));
  const swarm = options.swarm === true ? swarmFaults(scenario.faults ?? {}, seedText) : undefined;
  const faults: FaultProfile = { ...scenario.faults, ...swarm };
  const sim = new Sim({
    seed: seedText,
    durationMs: scenario.durationMs,
    ...(options.trace === undefined ? {} : { trace: options.trace }),
    ...(scenario.disk === undefined ? {} : { disk: scenario.disk }),
    ...(scenario.network === undefined ? {} : { network: scenario.network }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.wallClockLimitMs === undefined ? {} : { wallClockLimitMs: options.wallClockLimitMs }),
  });
  if (options.replay !== undefined) setReplay(sim, options.replay);
  const ctx: ScenarioContext = { sim, state: {}, phase: 'faults', targets: [], clients: [] };
  attachToRun(sim, kScenarioContext, ctx);
  const names: string[] = [];
  const clientNames: string[] = [];
  const host = sim.host.bind(sim);
  const client = sim.client.bind(sim);
  // Record the names the topology adds, to default the fault targets to them.
  const recording = Object.create(sim) as Sim;
  recording.host = (name, main, opts) => (names.push(name), host(name, main, opts), recording);
  recording.client = (name, main, opts) => (names.push(name), clientNames.push(name), client(name, main, opts), recording);
  scenario.hosts(recording, ctx);
  ctx.targets = scenario.targets ?? names;
  ctx.clients = scenario.clients ?? clientNames;
  // The targets' disks have the profile's faults from the start (the driver changes them later).
  const diskRules = diskBase(faults, false);
  if (diskRules.length > 0) for (const target of ctx.targets) sim.setDiskFaults(target, diskRules);
  let world: World | undefined;
  // A crashed client counts as settled, and the run ends once every client has: with client
  // crashes the fault driver is a client itself, so the run lasts its whole budget.
  const driver = chaos(scenario, faults, ctx, (w) => (world = w));
  if ((scenario.faults?.clientCrashPerSecond ?? 0) > 0) sim.client(CHAOS, driver);
  else sim.host(CHAOS, driver);
  const replay = options.replay ?? `runScenario(${scenario.name}, ${seedText})`;
  const extra = swarm === undefined ? {} : { swarm };
  try {
    const result = await sim.run();
    const pending = result.pending === undefined ? {} : { pending: result.pending };
    return { seed: seedText, fingerprint: result.fingerprint, ok: true, elapsedNs: result.elapsedNs, events: result.events, coverage: coverageOf(world), ...extra, ...pending };
  } catch (error) {
    if (!(error instanceof SimulationError) || error.report.kind === 'aborted') throw error;
    const report = error.report;
    const kind = report.kind === 'safety' || report.kind === 'liveness' || report.kind === 'limit' ? report.kind : 'crash';
    const cause = report.error instanceof Error ? `${report.error.name}: ${report.error.message}` : report.summary;
    return {
      seed: seedText,
      fingerprint: `fail:${kind}:${report.timeNs}:${report.event}`,
      ok: false,
      elapsedNs: report.timeNs,
      events: report.event,
      failure: { kind, message: cause, host: report.host, timeNs: report.timeNs, event: report.event, replay },
      coverage: coverageOf(world),
      ...extra,
    };
  }
}
