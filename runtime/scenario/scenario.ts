import { SimulationError } from '../failure.js';
import { UsageError } from '../errors.js';
import { DEFAULT_LATENCY, type NetworkOptions, validateNetworkOptions } from '../network/network.js';
import { type DiskMode, envDiskMode, isDiskMode } from '../options.js';
import { type DiskFaultRule, type DiskFaults, validateDiskFaults } from '../disk/faults.js';
import { formatSeed, parseSeed, type SeedInput } from '../random/seed.js';
import { RandomStream } from '../random/stream.js';
import { attachToRun, setReplay, Sim } from '../sim.js';
import { activeWorld, type World } from '../world.js';
import { coverageOf, type CoverageEntry, SafetyViolation } from './assertions.js';
import { failureSite, functionLocation, kFailureSite } from '../trace/site.js';

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
   * Stalls (a GC pause, a descheduled VM): a target runs nothing for a time drawn uniformly from
   * `stallMs`, then everything that came due meanwhile runs late, in the order Node's loop takes
   * it up after a stop: expired timers first, then I/O, then immediates (sim.stall).
   */
  stallPerSecond?: number;
  /** [min, max] duration of a stall, in ms. Default [10, 500]. */
  stallMs?: [number, number];
  /**
   * Event-loop lag bursts: for a downtime, each event of a target takes longer than its own work
   * (up to `lagEventMsMax`), so its timers and immediates fire late, never early (sim.lag).
   */
  lagPerSecond?: number;
  /** The most one event of a lagging target adds, in ms (the mean is a tenth of it). Default 100. */
  lagEventMsMax?: number;
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
  /** How often safety invariants are checked, in virtual ms. Default 10. */
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
  /** The invariant that failed (its function's name, else `safety[i]`/`liveness[i]`), for safety and liveness failures. */
  invariant?: string;
  /** Where the failure was raised: the failing invariant's definition, or the first program frame of the error. */
  site?: string;
  /** A crash: the error's stack. */
  stack?: string;
}

/** The faults the fault driver can inject (the `*PerSecond` rates without the suffix). */
export const FAULT_KINDS = [
  'crash', 'kill', 'reset', 'stop', 'bounce', 'pause', 'partition', 'partitionOneway', 'hold', 'latencySpike', 'skewJump', 'clientCrash',
  'diskSlow', 'diskFull', 'stall', 'lag',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * One fault the driver injected, or is to inject: at tick `atMs` of the fault clock, of `fault`
 * kind, on `target` (host faults) or the link `a`-`b`, lasting `downMs` (faults that end),
 * with the spike's latency or the clock jump it drew. A run's list of them is its schedule:
 * `runScenario(s, seed, { schedule })` injects exactly those faults instead of drawing them.
 */
export interface ScheduledFault {
  atMs: number;
  fault: FaultKind;
  target?: string;
  a?: string;
  b?: string;
  downMs?: number;
  latencyMs?: number;
  skewMs?: number;
}

export interface ScenarioResult {
  seed: string;
  /**
   * Equal fingerprints mean equal schedules: the same events, in the same order, at the same
   * virtual times, on the same hosts and sockets (not the data the events carry; `dst check`
   * compares the output too). A failed run's fingerprint names where it failed
   * and hashes the run up to there ("fail:<kind>:<timeNs>:<event>:<hash>"): two runs that fail
   * at the same instant by different paths differ, and a faithful replay reproduces it exactly.
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
  /**
   * The faults the driver injected, in order (up to the failure, for a failed run): its
   * schedule, which `{ schedule }` replays exactly (the same fingerprint).
   */
  schedule: ScheduledFault[];
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
  /**
   * Inject exactly these faults (a `schedule` a run returned, or an edited one) instead of
   * drawing them from the seed. Each is still subject to the profile's guards (`crashWhen`,
   * `downCountMax`, its target being up), as a drawn one is; one that cannot apply is skipped.
   * The rest of the run (the hosts' randomness) still comes from the seed.
   */
  schedule?: readonly ScheduledFault[];
  /**
   * End the run at this virtual time, as passing if it has not failed by then. The scenario's
   * phases keep their times (healing starts at durationMs - healMs): every event before it is
   * the full run's. For searches such as `dst shrink`.
   */
  stopAtMs?: number;
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
  // A defined scenario spread into a new definition (`{ ...scenario, invariants }`) carries its kind.
  const { kind, ...given } = definition as ScenarioDefinition & { kind?: unknown };
  knownKeys(kind === undefined || kind === 'dst-scenario' ? given : (definition as unknown as Record<string, unknown>), DEFINITION_KEYS, where, '');
  if (definition.faults !== undefined && (definition.faults === null || typeof definition.faults !== 'object')) throw new UsageError(`${where}: faults must be an object of fault rates`);
  const faults = definition.faults ?? {};
  knownKeys(faults as Record<string, unknown>, FAULT_KEYS, where, 'faults.');
  for (const [key, value] of Object.entries(faults)) {
    if (key.endsWith('PerSecond') && !(typeof value === 'number' && value >= 0)) throw new UsageError(`${where}: faults.${key} must be a number >= 0`);
  }
  const whole = (key: 'downMsMin' | 'downMsMax' | 'downCountMax' | 'tickMs', min: number): number | undefined => {
    const value = faults[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= min)) throw new UsageError(`${where}: faults.${key} must be an integer >= ${min}, got ${JSON.stringify(value)}`);
    return value;
  };
  const downMin = whole('downMsMin', 0) ?? 50;
  const downMax = whole('downMsMax', 0) ?? 500;
  if (downMin > downMax) throw new UsageError(`${where}: faults.downMsMin (${downMin}) must not exceed faults.downMsMax (${downMax})`);
  whole('downCountMax', 1);
  whole('tickMs', 1);
  if (faults.crashWhen !== undefined && typeof faults.crashWhen !== 'function') throw new UsageError(`${where}: faults.crashWhen must be a function (ctx) => boolean`);
  if (definition.safetyEveryMs !== undefined && !(Number.isFinite(definition.safetyEveryMs) && definition.safetyEveryMs > 0)) {
    throw new UsageError(`${where}: safetyEveryMs must be a positive number of ms, got ${JSON.stringify(definition.safetyEveryMs)}`);
  }
  const invariants = definition.invariants;
  if (invariants !== undefined) {
    if (invariants === null || typeof invariants !== 'object') throw new UsageError(`${where}: invariants must be { safety?: [...], liveness?: [...] }`);
    knownKeys(invariants as Record<string, unknown>, ['safety', 'liveness'], where, 'invariants.');
    for (const list of ['safety', 'liveness'] as const) {
      const given = invariants[list];
      if (given !== undefined && !(Array.isArray(given) && given.every((fn) => typeof fn === 'function'))) {
        throw new UsageError(`${where}: invariants.${list} must be a list of functions (ctx) => boolean | string`);
      }
    }
  }
  if (definition.targets !== undefined && !(Array.isArray(definition.targets) && definition.targets.every((t) => typeof t === 'string'))) {
    throw new UsageError(`${where}: targets must be an array of host names`);
  }
  validateDiskProfile(faults, where, definition.disk);
  const spike = faults.latencySpikeMs;
  if (spike !== undefined && !(Array.isArray(spike) && spike.length === 2 && spike.every((v) => Number.isFinite(v) && v >= 0) && spike[0] <= spike[1])) {
    throw new UsageError(`${where}: faults.latencySpikeMs must be [minMs, maxMs] with 0 <= minMs <= maxMs, got ${JSON.stringify(spike)}`);
  }
  const stallMs = faults.stallMs;
  if (stallMs !== undefined && !(Array.isArray(stallMs) && stallMs.length === 2 && stallMs.every((v) => Number.isFinite(v) && v > 0) && stallMs[0] <= stallMs[1])) {
    throw new UsageError(`${where}: faults.stallMs must be [minMs, maxMs] with 0 < minMs <= maxMs, got ${JSON.stringify(stallMs)}`);
  }
  if (faults.lagEventMsMax !== undefined && !(typeof faults.lagEventMsMax === 'number' && Number.isFinite(faults.lagEventMsMax) && faults.lagEventMsMax > 0)) {
    throw new UsageError(`${where}: faults.lagEventMsMax must be a positive number of ms, got ${String(faults.lagEventMsMax)}`);
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

/** What a scenario definition may hold (a misspelt key would be ignored: a run with no checks, or no faults). */
const DEFINITION_KEYS = ['name', 'hosts', 'targets', 'clients', 'faults', 'durationMs', 'healMs', 'safetyEveryMs', 'invariants', 'disk', 'network'];

/** Fails on a key of `object` that `known` does not list, naming the closest known one. */
function knownKeys(object: Record<string, unknown>, known: readonly string[], where: string, prefix: string): void {
  for (const key of Object.keys(object)) {
    if (known.includes(key)) continue;
    const closest = [...known].sort((a, b) => editDistance(key, a) - editDistance(key, b))[0]!;
    const near = editDistance(key, closest) <= Math.max(2, Math.floor(key.length / 4));
    throw new UsageError(`${where}: unknown key ${prefix}${key}; ${near ? `did you mean ${prefix}${closest}?` : `the keys are ${known.map((k) => prefix + k).join(', ')}`}`);
  }
}

/** Levenshtein distance, for "did you mean". */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

const DISK_RATES = ['diskReadErrorRate', 'diskWriteErrorRate', 'diskFsyncErrorRate', 'diskCorruptReadRate'] as const;
const DISK_KEYS = [...DISK_RATES, 'diskPaths', 'diskLatencyMs', 'diskFsyncLatencyMs', 'diskQuotaBytes', 'diskTornWrites', 'diskSectorBytes', 'diskSlowPerSecond', 'diskSlowMs', 'diskFullPerSecond'];
/** What a fault profile may hold (FaultProfile): the rates and their settings, the disk's, and the driver's own. */
const FAULT_KEYS = [
  ...['crash', 'kill', 'reset', 'bounce', 'stop', 'pause', 'partition', 'partitionOneway', 'hold', 'latencySpike', 'skewJump', 'stall', 'lag', 'clientCrash'].map((k) => `${k}PerSecond`),
  'latencySpikeMs', 'skewJumpMsMax', 'stallMs', 'lagEventMsMax',
  ...DISK_KEYS,
  'downMsMin', 'downMsMax', 'downCountMax', 'crashWhen', 'tickMs',
];

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

/** The first invariant that does not hold: what it said, its name and where it is defined. */
function check(invariants: Invariant[], ctx: ScenarioContext, list: string): { message: string; invariant: string; fn: Invariant } | undefined {
  for (const [i, invariant] of invariants.entries()) {
    const verdict = invariant(ctx);
    if (verdict === true) continue;
    const message = typeof verdict === 'string' ? verdict : `invariant ${invariant.name || '(anonymous)'} returned ${String(verdict)}`;
    return { message, invariant: invariant.name || `${list}[${i}]`, fn: invariant };
  }
  return undefined;
}

/** Where a failed invariant's error says it came from: the invariant's name and definition. */
const kInvariant = Symbol.for('dst-runtime.invariant');
function markInvariant(error: Error, failed: { invariant: string; fn: Invariant }): Error {
  Object.defineProperty(error, kInvariant, { value: failed.invariant });
  const site = functionLocation(failed.fn);
  if (site !== undefined) Object.defineProperty(error, kFailureSite, { value: site });
  return error;
}

/** The fault driver: a host of its own, so its Math.random is a seeded stream of the run. */
function chaos(
  scenario: Scenario,
  faults: FaultProfile,
  ctx: ScenarioContext,
  onWorld: (world: World) => void,
  applied: ScheduledFault[],
  schedule: readonly ScheduledFault[] | undefined,
): () => Promise<void> {
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
    /** Targets a stop fault signalled, with the incarnation it signalled. */
    const stopping = new Map<string, number>();
    /** Whether `target` is still the incarnation a stop signalled, running its shutdown. */
    const shuttingDown = (target: string): boolean => {
      const status = sim.status(target);
      return stopping.has(target) && status.state === 'running' && status.incarnation === stopping.get(target);
    };
    const checkSafety = () => {
      const violated = check(safety, ctx, 'safety');
      if (violated === undefined) return;
      // As always() fails: the host whose code checks (the driver) crashes, and the run fails.
      const error = markInvariant(new SafetyViolation(`always: safety invariant violated: ${violated.message}`), violated);
      world?.hosts.failed(world.currentHost(), error, 'safety');
      throw error;
    };
    // The fault clock's tick now (ms since the run started): when a fault is injected.
    let tickNo = 0;
    const now = () => tickNo * tickMs;
    // Every fault goes through one of these, drawn (scheduled undefined) or replayed (scheduled:
    // what to inject). Draws keep their order of old (a seed's faults do not change), and a
    // fault is recorded once it took effect: the recorded schedule replays the same run.
    const takeDown = (how: 'crash' | 'kill' | 'stop', scheduled?: ScheduledFault) => {
      if (down.size >= downCountMax || (faults.crashWhen !== undefined && !faults.crashWhen(ctx))) return;
      const up = running().filter((t) => !down.has(t));
      if (up.length === 0 || (scheduled !== undefined && !up.includes(scheduled.target!))) return;
      const target = scheduled?.target ?? pick(up);
      down.add(target);
      if (how === 'stop') stopping.set(target, sim.status(target).incarnation);
      if (how === 'crash') sim.crash(target);
      else if (how === 'kill') sim.kill(target);
      else sim.stop(target);
      const fault: ScheduledFault = { atMs: now(), fault: how, target };
      applied.push(fault);
      fault.downMs = scheduled?.downMs ?? downMs();
      later(fault.downMs, () => restartWhenDown(target));
    };
    /**
     * A target whose downtime is over is restarted, as a supervisor restarts a service: one that
     * a stop left shutting down (its SIGTERM handler still draining) once it has exited, and it
     * counts as down until then (downCountMax). Before, it was never restarted after its exit,
     * and no longer counted as down.
     */
    const restartWhenDown = (target: string, after = later): void => {
      if (shuttingDown(target)) {
        after(tickMs, () => restartWhenDown(target, after));
        return;
      }
      stopping.delete(target);
      down.delete(target);
      if (sim.status(target).state !== 'running') sim.restart(target);
    };
    const linkFault = (
      kind: 'partition' | 'partitionOneway' | 'hold',
      apply: (a: string, b: string) => void,
      undo: (a: string, b: string) => void,
      scheduled?: ScheduledFault,
    ) => {
      if (ctx.targets.length < 2) return;
      const a = scheduled?.a ?? pick(ctx.targets);
      const b = scheduled?.b ?? pick(ctx.targets.filter((t) => t !== a));
      apply(a, b);
      const fault: ScheduledFault = { atMs: now(), fault: kind, a, b };
      applied.push(fault);
      fault.downMs = scheduled?.downMs ?? downMs();
      later(fault.downMs, () => undo(a, b));
    };
    const partition = (scheduled?: ScheduledFault) => linkFault('partition', (a, b) => sim.partition(a, b), (a, b) => sim.repair(a, b), scheduled);
    const partitionOneway = (scheduled?: ScheduledFault) =>
      linkFault('partitionOneway', (a, b) => sim.partition(a, b, { oneway: true }), (a, b) => sim.repair(a, b, { oneway: true }), scheduled);
    const hold = (scheduled?: ScheduledFault) => linkFault('hold', (a, b) => sim.hold(a, b), (a, b) => sim.release(a, b), scheduled);
    // Latency spikes: one at a time per link; undone at their end or at the heal phase.
    const [spikeMin, spikeMax] = faults.latencySpikeMs ?? [100, 1000];
    const spiked = new Set<string>();
    const unspike = (a: string, b: string) => {
      if (spiked.delete(`${a}|${b}`)) sim.setLink(a, b, { latency: { ...(scenario.network?.latency ?? DEFAULT_LATENCY) } });
    };
    const spike = (scheduled?: ScheduledFault) => {
      if (ctx.targets.length < 2) return;
      const a = scheduled?.a ?? pick(ctx.targets);
      const b = scheduled?.b ?? pick(ctx.targets.filter((t) => t !== a));
      const key = a < b ? `${a}|${b}` : `${b}|${a}`;
      if (spiked.has(key)) return;
      const ms = scheduled?.latencyMs ?? spikeMin + Math.random() * (spikeMax - spikeMin);
      spiked.add(key);
      const [x, y] = key.split('|') as [string, string];
      sim.setLink(x, y, { latency: { minMs: ms, maxMs: ms } });
      const fault: ScheduledFault = { atMs: now(), fault: 'latencySpike', a: x, b: y, latencyMs: ms };
      applied.push(fault);
      fault.downMs = scheduled?.downMs ?? downMs();
      later(fault.downMs, () => unspike(x, y));
    };
    const skewJumpMsMax = faults.skewJumpMsMax ?? 5000;
    const skewJump = (scheduled?: ScheduledFault) => {
      if (ctx.targets.length === 0) return;
      const target = scheduled?.target ?? pick(ctx.targets);
      const skewMs = scheduled?.skewMs ?? Math.floor(Math.random() * (2 * skewJumpMsMax + 1)) - skewJumpMsMax;
      (sim as unknown as { setClock: (name: string, clock: { skewMs: number }) => void }).setClock(target, { skewMs });
      applied.push({ atMs: now(), fault: 'skewJump', target, skewMs });
    };
    const [stallMsMin, stallMsMax] = faults.stallMs ?? [10, 500];
    const stall = (scheduled?: ScheduledFault) => {
      const up = running();
      if (up.length === 0 || (scheduled !== undefined && !up.includes(scheduled.target!))) return;
      const target = scheduled?.target ?? pick(up);
      const ms = scheduled?.downMs ?? stallMsMin + Math.random() * (stallMsMax - stallMsMin);
      sim.stall(target, ms);
      applied.push({ atMs: now(), fault: 'stall', target, downMs: ms });
    };
    const lag = (scheduled?: ScheduledFault) => {
      const up = running();
      if (up.length === 0 || (scheduled !== undefined && !up.includes(scheduled.target!))) return;
      const target = scheduled?.target ?? pick(up);
      const ms = scheduled?.downMs ?? downMs();
      sim.lag(target, ms, { eventMsMax: faults.lagEventMsMax ?? 100 });
      applied.push({ atMs: now(), fault: 'lag', target, downMs: ms });
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
    const diskFault = (kind: 'slow' | 'full', scheduled?: ScheduledFault) => {
      if (ctx.targets.length === 0) return;
      const target = scheduled?.target ?? pick(ctx.targets);
      const state = diskState.get(target) ?? {};
      if (kind === 'slow' ? state.slow !== undefined : state.full === true) return;
      if (kind === 'slow') state.slow = { minMs: slowMin, maxMs: slowMax };
      else state.full = true;
      diskState.set(target, state);
      applyDisk(target);
      const fault: ScheduledFault = { atMs: now(), fault: kind === 'slow' ? 'diskSlow' : 'diskFull', target };
      applied.push(fault);
      fault.downMs = scheduled?.downMs ?? downMs();
      later(fault.downMs, () => {
        if (kind === 'slow') delete state.slow;
        else delete state.full;
        applyDisk(target);
      });
    };
    const clientCrash = (scheduled?: ScheduledFault) => {
      const up = ctx.clients.filter((c) => sim.status(c).state === 'running');
      if (up.length === 0 || (scheduled !== undefined && !up.includes(scheduled.target!))) return;
      const target = scheduled?.target ?? pick(up);
      sim.crash(target);
      const fault: ScheduledFault = { atMs: now(), fault: 'clientCrash', target };
      applied.push(fault);
      fault.downMs = scheduled?.downMs ?? downMs();
      later(fault.downMs, () => {
        if (sim.status(target).state !== 'running') sim.restart(target);
      });
    };
    const reset = (scheduled?: ScheduledFault) => {
      if (ctx.targets.length < 2) return;
      const a = scheduled?.a ?? pick(ctx.targets);
      const b = scheduled?.b ?? pick(ctx.targets.filter((t) => t !== a));
      sim.resetConnections(a, b);
      applied.push({ atMs: now(), fault: 'reset', a, b });
    };
    const bounce = (scheduled?: ScheduledFault) => {
      const up = running().filter((t) => !down.has(t));
      if (up.length === 0 || (faults.crashWhen !== undefined && !faults.crashWhen(ctx))) return;
      if (scheduled !== undefined && !up.includes(scheduled.target!)) return;
      const target = scheduled?.target ?? pick(up);
      sim.bounce(target);
      applied.push({ atMs: now(), fault: 'bounce', target });
    };
    const pause = (scheduled?: ScheduledFault) => {
      const target = scheduled?.target ?? pick(ctx.targets);
      const status = sim.status(target);
      if (status.state !== 'running' || status.paused) return;
      sim.pause(target);
      const fault: ScheduledFault = { atMs: now(), fault: 'pause', target };
      applied.push(fault);
      fault.downMs = scheduled?.downMs ?? downMs();
      later(fault.downMs, () => sim.resume(target));
    };
    const inject: Record<FaultKind, (scheduled?: ScheduledFault) => void> = {
      crash: (f) => takeDown('crash', f),
      kill: (f) => takeDown('kill', f),
      stop: (f) => takeDown('stop', f),
      reset,
      bounce,
      pause,
      partition,
      partitionOneway,
      hold,
      latencySpike: spike,
      skewJump,
      clientCrash,
      diskSlow: (f) => diskFault('slow', f),
      diskFull: (f) => diskFault('full', f),
      stall,
      lag,
    };

    // Replaying a schedule: the faults of each tick, in the schedule's order.
    const byTick = new Map<number, ScheduledFault[]>();
    for (const fault of schedule ?? []) {
      const list = byTick.get(fault.atMs) ?? [];
      list.push(fault);
      byTick.set(fault.atMs, list);
    }
    const interval = setInterval(() => {
      tickNo++;
      if (schedule !== undefined) {
        if (ctx.phase !== 'faults') return;
        for (const fault of byTick.get(now()) ?? []) attempt(() => inject[fault.fault](fault));
        return;
      }
      attempt(() => {
        if (ctx.phase !== 'faults') return;
        if (chance(faults.crashPerSecond)) takeDown('crash');
        if (chance(faults.killPerSecond)) takeDown('kill');
        if (chance(faults.resetPerSecond) && ctx.targets.length >= 2) reset();
        if (chance(faults.stopPerSecond)) takeDown('stop');
        if (chance(faults.bouncePerSecond)) bounce();
        if (chance(faults.pausePerSecond)) pause();
        if (chance(faults.partitionPerSecond)) partition();
        if (chance(faults.partitionOnewayPerSecond)) partitionOneway();
        if (chance(faults.holdPerSecond)) hold();
        if (chance(faults.latencySpikePerSecond)) spike();
        if (chance(faults.skewJumpPerSecond) && ctx.targets.length > 0) skewJump();
        if (chance(faults.clientCrashPerSecond)) clientCrash();
        if (chance(faults.diskSlowPerSecond)) diskFault('slow');
        if (chance(faults.diskFullPerSecond)) diskFault('full');
        if (chance(faults.stallPerSecond)) stall();
        if (chance(faults.lagPerSecond)) lag();
      });
    }, tickMs);
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
      // One still shutting down after a stop is restarted once it has exited, in the heal phase too.
      if (status.state !== 'running') attempt(() => sim.restart(a));
      else if (shuttingDown(a)) restartWhenDown(a, (ms, fn) => setTimeout(() => attempt(fn), ms));
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
    const failed = check(liveness, ctx, 'liveness');
    if (failed !== undefined) {
      const error = markInvariant(new Error(`liveness check failed after ${scenario.healMs} ms of healing: ${failed.message}`), failed);
      error.name = 'LivenessFailure';
      world?.hosts.failed(world.currentHost(), error, 'liveness');
      throw error;
    }
  };
}

/** Checks a schedule against the scenario's hosts; a copy sorted by tick (stable: same-tick faults keep their order). */
function validateSchedule(schedule: readonly ScheduledFault[], ctx: ScenarioContext, tickMs: number): ScheduledFault[] {
  const where = 'Failed to run scenario with a fault schedule';
  if (!Array.isArray(schedule)) throw new UsageError(`${where}: the schedule must be an array of faults, got ${typeof schedule}`);
  const names = new Set([...ctx.targets, ...ctx.clients]);
  for (const [i, f] of schedule.entries()) {
    const at = `fault ${i + 1} (${JSON.stringify(f)})`;
    if (f === null || typeof f !== 'object') throw new UsageError(`${where}: ${at} is not an object`);
    if (!(FAULT_KINDS as readonly string[]).includes(f.fault)) throw new UsageError(`${where}: ${at}: fault must be one of ${FAULT_KINDS.join(', ')}`);
    if (!(Number.isSafeInteger(f.atMs) && f.atMs > 0 && f.atMs % tickMs === 0)) {
      throw new UsageError(`${where}: ${at}: atMs must be a tick of the fault clock: a positive multiple of ${tickMs} ms`);
    }
    for (const key of ['target', 'a', 'b'] as const) {
      if (f[key] !== undefined && !names.has(f[key]!)) throw new UsageError(`${where}: ${at}: ${key} "${f[key]}" is not a target or client of the scenario (known: ${[...names].join(', ')})`);
    }
    const needs = ['partition', 'partitionOneway', 'hold', 'latencySpike', 'reset'].includes(f.fault) ? ['a', 'b'] : ['target'];
    for (const key of needs) if ((f as unknown as Record<string, unknown>)[key] === undefined) throw new UsageError(`${where}: ${at}: a ${f.fault} fault needs ${needs.join(' and ')}`);
    if (f.downMs !== undefined && !(Number.isFinite(f.downMs) && f.downMs >= 0)) throw new UsageError(`${where}: ${at}: downMs must be a number of ms >= 0`);
  }
  return [...schedule].sort((x, y) => x.atMs - y.atMs);
}

/** Runs one seed of a scenario. Never rejects for a failure of the system under test: it is in `failure`. */
export async function runScenario(scenario: Scenario, seed: SeedInput, options: RunScenarioOptions = {}): Promise<ScenarioResult> {
  if (scenario?.kind !== 'dst-scenario') throw new UsageError('Failed to run scenario: pass the value defineScenario() returned');
  const seedText = formatSeed(parseSeed(seed, 'seed'));
  const swarm = options.swarm === true ? swarmFaults(scenario.faults ?? {}, seedText) : undefined;
  const faults: FaultProfile = { ...scenario.faults, ...swarm };
  if (options.stopAtMs !== undefined && !(Number.isFinite(options.stopAtMs) && options.stopAtMs > 0)) {
    throw new UsageError(`Failed to run scenario "${scenario.name}": stopAtMs must be a positive number of ms, got ${String(options.stopAtMs)}`);
  }
  const sim = new Sim({
    seed: seedText,
    durationMs: Math.min(scenario.durationMs, options.stopAtMs ?? Infinity),
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
  for (const [list, given, added] of [['targets', ctx.targets, names], ['clients', ctx.clients, names]] as const) {
    const unknown = given.filter((name) => !added.includes(name));
    if (unknown.length > 0) {
      throw new UsageError(`Failed to run scenario "${scenario.name}": ${list} names ${unknown.map((n) => `"${n}"`).join(', ')}, which hosts() did not add (it added ${added.map((n) => `"${n}"`).join(', ') || 'none'})`);
    }
  }
  // The targets' disks have the profile's faults from the start (the driver changes them later).
  const diskRules = diskBase(faults, false);
  if (diskRules.length > 0) for (const target of ctx.targets) sim.setDiskFaults(target, diskRules);
  let world: World | undefined;
  // A crashed client counts as settled, and the run ends once every client has: with client
  // crashes the fault driver is a client itself, so the run lasts its whole budget.
  const applied: ScheduledFault[] = [];
  const schedule = options.schedule === undefined ? undefined : validateSchedule(options.schedule, ctx, faults.tickMs ?? 10);
  const driver = chaos(scenario, faults, ctx, (w) => (world = w), applied, schedule);
  if ((scenario.faults?.clientCrashPerSecond ?? 0) > 0) sim.client(CHAOS, driver);
  else sim.host(CHAOS, driver);
  const replay = options.replay ?? `runScenario(${scenario.name}, ${seedText})`;
  const extra = swarm === undefined ? {} : { swarm };
  try {
    const result = await sim.run();
    const pending = result.pending === undefined ? {} : { pending: result.pending };
    return {
      seed: seedText,
      fingerprint: result.fingerprint,
      ok: true,
      elapsedNs: result.elapsedNs,
      events: result.events,
      coverage: coverageOf(world),
      ...extra,
      ...pending,
      schedule: applied,
    };
  } catch (error) {
    if (!(error instanceof SimulationError) || error.report.kind === 'aborted') throw error;
    const report = error.report;
    const kind = report.kind === 'safety' || report.kind === 'liveness' || report.kind === 'limit' ? report.kind : 'crash';
    const cause = report.error instanceof Error ? `${report.error.name}: ${report.error.message}` : report.summary;
    const invariant = (report.error as Record<symbol, unknown> | undefined)?.[kInvariant];
    const site = report.site ?? failureSite(report.error);
    return {
      seed: seedText,
      // Kind, time and event stay readable; the hash of the run up to the failure tells apart
      // two runs that failed at the same instant.
      fingerprint: `fail:${kind}:${report.timeNs}:${report.event}:${report.fingerprint ?? 'unknown'}`,
      ok: false,
      elapsedNs: report.timeNs,
      events: report.event,
      failure: {
        kind,
        message: cause,
        host: report.host,
        timeNs: report.timeNs,
        event: report.event,
        replay,
        ...(typeof invariant === 'string' ? { invariant } : {}),
        ...(site === undefined ? {} : { site }),
        ...(kind === 'crash' && report.error instanceof Error && typeof report.error.stack === 'string' ? { stack: report.error.stack } : {}),
      },
      coverage: coverageOf(world),
      ...extra,
      schedule: applied,
    };
  }
}
