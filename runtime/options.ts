import fs from 'node:fs';
import path from 'node:path';
import { NS_PER_MS, parseDurationNs, TIME_NS_MAX } from './clock/units.js';
import { envSwitch } from './env-switch.js';
import { UsageError } from './errors.js';
import { onRealDisk } from './disk/real.js';
import { type DiskFaultRule, parseDiskFaultsEnv, type ResolvedRule, resolveDiskFaultRules } from './disk/faults.js';
import { type NetworkOptions, validateNetworkOptions } from './network/network.js';
import { parseSeed, type SeedInput } from './random/seed.js';

/** Defaults for limits: generous enough for real programs, small enough to stop a runaway. */
export const DEFAULTS = {
  /** 2025-01-01T00:00:00.000Z: Date at virtual time zero. */
  epochMs: Date.UTC(2025, 0, 1),
  eventsMax: 50_000_000,
  timeLimitNs: 24 * 3600 * 1_000_000_000,
} as const;

/** Options accepted by `new Sim(options)`. */
export interface SimOptions {
  /** The run's seed. Default: DST_SEED, else a fresh seed (printed with every failure). */
  seed?: SeedInput;
  /** Date.now() at virtual time zero. Default 2025-01-01T00:00:00Z. */
  epochMs?: number;
  /** Fail when the run would execute more events than this. Default 50,000,000 (DST_EVENT_LIMIT). */
  eventsMax?: number;
  /** Fail when ref'd work is still pending at this virtual time (ms). Default 24 h (DST_TIME_LIMIT). */
  timeLimitMs?: number;
  /** Stop cleanly at this virtual time (ms): a budget for systems that never go idle. */
  durationMs?: number;
  /** Write every event as a JSON line to this file. Default: DST_TRACE. */
  trace?: string;
  /** The simulated network: latency (min/max/distribution), lossRatio, duplicateRatio, tcpTimeoutMs. */
  network?: NetworkOptions;
  /**
   * Strict mode: a real (unsimulated) timer that host code creates and that still holds the
   * event loop fails the run, naming where it was created. Default true (DST_STRICT=0: false).
   */
  strict?: boolean;
  /**
   * The hosts' disks. 'simulated': each host gets its own disk laid over the real files (which
   * it can read, never write); writes survive `sim.crash()` only once fsync'd. 'real' (the
   * default for now): hosts read and write the real files. Default: DST_DISK, else 'real'.
   */
  disk?: DiskMode;
  /**
   * Disk faults of the simulated disks (needs `disk: 'simulated'`): EIO on read, write and fsync,
   * corrupted reads, latency, a quota (ENOSPC), torn writes at a crash; per host and path pattern.
   * One rule or a list (later rules override earlier ones where both apply). Default:
   * DST_DISK_FAULTS. Change them while running with `sim.setDiskFaults(name, faults)`.
   */
  diskFaults?: DiskFaultRule | DiskFaultRule[];
  /**
   * Report, at the end of the run, the promises host code created and that never settled,
   * grouped by where they were created (SimResult.pending). Default: DST_PENDING=1.
   */
  pending?: boolean;
  /**
   * Stops the run when this signal aborts: run() rejects with a SimulationError named
   * 'AbortError' (report.kind 'aborted') and every global is put back. A test runner's signal
   * (node:test's `t.signal`, Vitest's `context.signal`) ends the simulation of a test that timed
   * out. The run's own `run({ signal })` may add another.
   */
  signal?: AbortSignal;
  /**
   * Stops the run after this many milliseconds of REAL time, as `signal` would: a guard for a
   * simulation that never ends (a test runner's timeout leaves it running). Measured with the
   * real clock; it does not change the run in any way before it trips.
   */
  wallClockLimitMs?: number;
}

/** What `sim.run(options)` accepts: ways to stop this run from outside (see SimOptions). */
export interface RunOptions {
  /** Stops the run when it aborts (in addition to SimOptions.signal). */
  signal?: AbortSignal;
  /** Stops the run after this many ms of real time (overrides SimOptions.wallClockLimitMs). */
  wallClockLimitMs?: number;
}

/** How hosts' file system calls are served: see SimOptions.disk. */
export type DiskMode = 'real' | 'simulated';
const DISK_MODES: readonly DiskMode[] = ['real', 'simulated'];

/** Whether `value` is a disk mode ('real' or 'simulated'). */
export function isDiskMode(value: unknown): value is DiskMode {
  return (DISK_MODES as readonly unknown[]).includes(value);
}

const KNOWN = ['seed', 'epochMs', 'eventsMax', 'timeLimitMs', 'durationMs', 'trace', 'network', 'strict', 'disk', 'diskFaults', 'pending', 'signal', 'wallClockLimitMs'];
const RUN_KNOWN = ['signal', 'wallClockLimitMs'];

export interface ResolvedOptions {
  seed: bigint;
  seedSource: 'option' | 'env' | 'random';
  epochMs: number;
  eventsMax: number;
  timeLimitNs: number;
  durationNs: number | undefined;
  traceFile: string | undefined;
  network: NetworkOptions | undefined;
  strict: boolean;
  disk: DiskMode;
  diskFaults: ResolvedRule[] | undefined;
  pending: boolean;
  signal: AbortSignal | undefined;
  wallClockLimitMs: number | undefined;
}

/**
 * Whether `value` is an AbortSignal. Duck-typed: a test runner's signal may come from another
 * realm (Jest's vm context) or from a polyfill, and only these members are used.
 */
function isAbortSignal(value: unknown): value is AbortSignal {
  const v = value as AbortSignal | null;
  return v !== null && typeof v === 'object' && typeof v.aborted === 'boolean' && typeof v.addEventListener === 'function' && typeof v.removeEventListener === 'function';
}

/** Validates the ways to stop a run from outside, shared by `new Sim(options)` and `run(options)`. */
function stopOptions(options: { signal?: unknown; wallClockLimitMs?: unknown }, where: string): { signal: AbortSignal | undefined; wallClockLimitMs: number | undefined } {
  const { signal, wallClockLimitMs } = options;
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new UsageError(`${where}: signal must be an AbortSignal (e.g. AbortSignal.timeout(ms), node:test's t.signal), got ${String(signal)}`);
  }
  if (wallClockLimitMs !== undefined && !(typeof wallClockLimitMs === 'number' && Number.isFinite(wallClockLimitMs) && wallClockLimitMs > 0 && wallClockLimitMs <= 2 ** 31 - 1)) {
    throw new UsageError(`${where}: wallClockLimitMs must be a positive number of milliseconds of real time (at most 2^31-1), got ${String(wallClockLimitMs)}`);
  }
  return { signal, wallClockLimitMs };
}

/** Validates the options of `sim.run(options)`. */
export function resolveRunOptions(options: RunOptions): { signal: AbortSignal | undefined; wallClockLimitMs: number | undefined } {
  const where = 'Failed to run simulation';
  if (options === null || typeof options !== 'object') throw new UsageError(`${where}: options must be an object { signal?, wallClockLimitMs? }, got ${String(options)}`);
  for (const key of Object.keys(options)) {
    if (!RUN_KNOWN.includes(key)) throw new UsageError(`${where}: unknown option "${key}" (known: ${RUN_KNOWN.join(', ')}; the others go to new Sim(options))`);
  }
  return stopOptions(options, where);
}

function positiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new UsageError(`Failed to configure simulation: ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

function durationOption(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new UsageError(`Failed to configure simulation: ${name} must be a positive number of milliseconds, got ${String(value)}`);
  }
  const ns = Math.round(value * NS_PER_MS);
  if (ns > TIME_NS_MAX) {
    throw new UsageError(`Failed to configure simulation: ${name} must be at most 90 days (${TIME_NS_MAX / NS_PER_MS} ms), got ${value}`);
  }
  return ns;
}

/** Reads a DST_* environment variable holding a duration ("90s", "2h", or plain ms). */
export function envDurationNs(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const ns = parseDurationNs(text);
  if (ns === undefined || ns <= 0 || ns > TIME_NS_MAX) {
    throw new UsageError(
      `Failed to parse ${name}: ${JSON.stringify(text)} is not a duration up to 90 days ` +
        `(examples: ${name}=5000 for ms, ${name}=90s, ${name}=2h)`,
    );
  }
  return ns;
}

export function envPositiveInteger(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text.replace(/_/g, ''));
  if (!/^[0-9_]+$/.test(text) || !Number.isSafeInteger(value) || value <= 0) {
    throw new UsageError(`Failed to parse ${name}: ${JSON.stringify(text)} is not a positive integer (example: ${name}=1000000)`);
  }
  return value;
}

/**
 * Validates options once, when the simulation is built, with messages that say what to change.
 * `drawSeed` supplies a fresh seed when neither the option nor DST_SEED gives one.
 */
export function resolveOptions(options: SimOptions, env: NodeJS.ProcessEnv, drawSeed: () => bigint): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw new UsageError(`Failed to configure simulation: options must be an object, got ${String(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key)) {
      throw new UsageError(`Failed to configure simulation: unknown option "${key}" (known: ${KNOWN.join(', ')})`);
    }
  }
  let seed: bigint;
  let seedSource: ResolvedOptions['seedSource'];
  if (options.seed !== undefined) {
    seed = parseSeed(options.seed, 'options.seed');
    seedSource = 'option';
  } else if (env.DST_SEED !== undefined && env.DST_SEED !== '') {
    seed = parseSeed(env.DST_SEED, 'DST_SEED');
    seedSource = 'env';
  } else {
    seed = drawSeed();
    seedSource = 'random';
  }
  const epochMs = options.epochMs ?? DEFAULTS.epochMs;
  if (!Number.isSafeInteger(epochMs)) {
    throw new UsageError(`Failed to configure simulation: epochMs must be an integer number of ms, got ${String(epochMs)}`);
  }
  const eventsMax =
    options.eventsMax !== undefined ? positiveInteger(options.eventsMax, 'eventsMax') : (envPositiveInteger(env, 'DST_EVENT_LIMIT') ?? DEFAULTS.eventsMax);
  const timeLimitNs =
    options.timeLimitMs !== undefined ? durationOption(options.timeLimitMs, 'timeLimitMs') : (envDurationNs(env, 'DST_TIME_LIMIT') ?? DEFAULTS.timeLimitNs);
  const durationNs = options.durationMs !== undefined ? durationOption(options.durationMs, 'durationMs') : undefined;
  if (options.trace !== undefined && (typeof options.trace !== 'string' || options.trace === '')) {
    throw new UsageError(`Failed to configure simulation: trace must be a file path, got ${String(options.trace)}`);
  }
  const traceFile = options.trace ?? (env.DST_TRACE !== undefined && env.DST_TRACE !== '' ? env.DST_TRACE : undefined);
  if (options.network !== undefined) validateNetworkOptions(options.network);
  if (options.strict !== undefined && typeof options.strict !== 'boolean') {
    throw new UsageError(`Failed to configure simulation: strict must be true or false, got ${String(options.strict)}`);
  }
  const strict = options.strict ?? envStrict(env);
  if (options.disk !== undefined && !isDiskMode(options.disk)) {
    throw new UsageError(`Failed to configure simulation: disk must be ${DISK_MODES.map((m) => `'${m}'`).join(' or ')}, got ${JSON.stringify(options.disk)}`);
  }
  const disk = options.disk ?? envDiskMode(env);
  const diskFaults =
    options.diskFaults !== undefined
      ? resolveDiskFaultRules(options.diskFaults, 'Failed to configure simulation: diskFaults', process.cwd())
      : envDiskFaults(env);
  if (diskFaults !== undefined && disk !== 'simulated') {
    const from = options.diskFaults !== undefined ? 'the diskFaults option' : 'DST_DISK_FAULTS';
    throw new UsageError(`Failed to configure simulation: ${from} needs simulated disks: add disk: 'simulated' (or DST_DISK=simulated)`);
  }
  if (options.pending !== undefined && typeof options.pending !== 'boolean') {
    throw new UsageError(`Failed to configure simulation: pending must be true or false, got ${String(options.pending)}`);
  }
  const pending = options.pending ?? envPending(env);
  const { signal, wallClockLimitMs } = stopOptions(options, 'Failed to configure simulation');
  return { seed, seedSource, epochMs, eventsMax, timeLimitNs, durationNs, traceFile, network: options.network, strict, disk, diskFaults, pending, signal, wallClockLimitMs };
}

/** DST_STRICT: '0' lets real timers escape the simulation; '1' or unset keeps strict mode. */
export function envStrict(env: NodeJS.ProcessEnv): boolean {
  return envSwitch(env, 'DST_STRICT', true, 'lets real timers escape the simulation; the run is then not reproducible');
}

/** DST_PENDING: '1' reports the promises host code left pending (SimOptions.pending); '0' or unset does not. */
export function envPending(env: NodeJS.ProcessEnv): boolean {
  return envSwitch(env, 'DST_PENDING', false, 'reports the promises host code left pending');
}

/** DST_DISK_FAULTS: the disk faults of every run of this process (see parseDiskFaultsEnv), or undefined. */
export function envDiskFaults(env: NodeJS.ProcessEnv): ResolvedRule[] | undefined {
  const text = env.DST_DISK_FAULTS;
  if (text === undefined || text.trim() === '') return undefined;
  return resolveDiskFaultRules(parseDiskFaultsEnv(text), 'Failed to parse DST_DISK_FAULTS', process.cwd());
}

/** DST_DISK: 'simulated' or 'real' (the default when unset). */
export function envDiskMode(env: NodeJS.ProcessEnv): DiskMode {
  const text = env.DST_DISK;
  if (text === undefined || text === '') return 'real';
  if (!isDiskMode(text)) {
    throw new UsageError(`Failed to parse DST_DISK: ${JSON.stringify(text)} is not a disk mode (use DST_DISK=simulated or DST_DISK=real)`);
  }
  return text;
}

/**
 * An environment (process.env or a copy): declared without @types/node, so the public types
 * compile for a TypeScript user who has not installed it.
 */
export type Environment = Record<string, string | undefined>;

/** Names the zone database gives UTC: a replay needs no TZ then. */
const UTC_ZONES = new Set([
  'UTC',
  'Etc/UTC',
  'UCT',
  'Etc/UCT',
  'Universal',
  'Etc/Universal',
  'Zulu',
  'Etc/Zulu',
  'GMT',
  'Etc/GMT',
  'GMT0',
  'Etc/GMT0',
  'Etc/GMT+0',
  'Etc/GMT-0',
  'Greenwich',
  'Etc/Greenwich',
]);

/** Locale values (before any `.encoding` or `@modifier`) for which Node's ICU uses en-US, its default. */
const DEFAULT_LOCALES = new Set(['C', 'POSIX', 'en_US', 'en-US']);

/**
 * The settings of this machine a replay must carry, as environment variables: what changes what a
 * run prints and the seed does not fix. So a failure found on a laptop in Berlin replays the same
 * in CI. `env` is the environment to read (this process's by default); `nodeEnvThen` is Node's
 * own environment as the run had it, whose TZ ICU's default zone follows (Node's now by default;
 * register mode gives a copy taken at its start: the program may have set TZ since).
 *
 * - `TZ`, when the time zone is not UTC: Date's local-time methods and Intl follow it. TZ as set,
 *   else the zone the system gives Intl.
 * - `LC_ALL`, when the locale is not en-US: `toLocaleString()` and Intl follow it. Node's ICU
 *   takes it from the first of LC_ALL, LC_MESSAGES and LANG that is set (an empty one makes it
 *   "und"); the replay sets that value as LC_ALL, which comes first everywhere.
 * - `NODE_OPTIONS`, when set: its preloads (`--import tsx`) and flags change what runs. A seed
 *   explored under `NODE_OPTIONS=--import tsx` did not replay from its printed line.
 */
export function machineSettings(env: Environment = process.env, nodeEnvThen: Environment = nodeEnv): Record<string, string> {
  const settings: Record<string, string> = {};
  const zone = env.TZ !== undefined && env.TZ !== '' ? env.TZ : defaultTimeZone(nodeEnvThen.TZ);
  if (zone !== undefined && !UTC_ZONES.has(zone)) settings.TZ = zone;
  // The first of these that is set decides, even when empty (ICU's locale is then "und").
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((value) => value !== undefined);
  if (locale !== undefined && !DEFAULT_LOCALES.has(locale.split(/[.@]/)[0]!)) settings.LC_ALL = locale;
  if (env.NODE_OPTIONS !== undefined && env.NODE_OPTIONS.trim() !== '') settings.NODE_OPTIONS = env.NODE_OPTIONS;
  return settings;
}

/**
 * Node's own environment, taken when the runtime loads (before a shim gives module hosts
 * environments of their own): ICU's default time zone follows the TZ of this one only.
 */
const nodeEnv: Environment = process.env;
/** The default time zone last resolved, and Node's TZ when it was. */
let resolvedZone: { tz: string | undefined; zone: string | undefined } | undefined;

/**
 * The time zone Intl uses when none is given, resolved once per value of Node's TZ: making a
 * DateTimeFormat to ask costs 60-80 µs of CPU hot and several times that cold, and Sim.run(),
 * every explore worker's seed and every replay command ask. It cannot change while Node's TZ
 * does not: Node tells V8 and ICU to drop their zone only when process.env.TZ is written or
 * deleted (test/hosts/machine-settings.test.mjs sets TZ in-process and asks again). What this
 * misses: the machine's zone file (/etc/localtime) replaced while the process runs, which ICU
 * would re-read after a write of TZ set it back to the value it was resolved under.
 */
function defaultTimeZone(tz: string | undefined): string | undefined {
  if (resolvedZone !== undefined && resolvedZone.tz === tz) return resolvedZone.zone;
  // Asked of an environment copied before the program set TZ (register mode's replay command):
  // ICU follows Node's TZ only, so it is put back as it was for the question, then set again.
  const now = nodeEnv.TZ;
  if (now !== tz) setNodeTz(tz);
  try {
    resolvedZone = { tz, zone: new Intl.DateTimeFormat().resolvedOptions().timeZone };
    return resolvedZone.zone;
  } finally {
    if (now !== tz) setNodeTz(now);
  }
}

function setNodeTz(tz: string | undefined): void {
  if (tz === undefined) delete nodeEnv.TZ;
  else nodeEnv.TZ = tz;
}

/** machineSettings() as shell assignments, for the front of a replay command. */
export function replayEnvironment(env: Environment = process.env, nodeEnvThen: Environment = nodeEnv): string[] {
  return Object.entries(machineSettings(env, nodeEnvThen)).map(([name, value]) => `${name}=${shellQuote(value)}`);
}

/** The replay's Node, found once (replayNode). */
let replayNodeFound: string | undefined;

/**
 * How a replay command names the Node that ran this process: `node` when the first `node` on
 * the PATH is this very binary, else this binary's path. Event orders differ between Node
 * versions, so a run started as `/opt/node24/bin/node ...` on a machine whose PATH finds Node 20
 * would not replay as `node ...`. Read from the real disk whatever host is current.
 */
export function replayNode(env: Environment = process.env): string {
  return (replayNodeFound ??= onRealDisk(() => {
    const self = realPathOr(process.execPath);
    for (const dir of (env.PATH ?? '').split(path.delimiter)) {
      if (dir === '') continue;
      const candidate = path.join(dir, 'node');
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
      } catch {
        continue;
      }
      return realPathOr(candidate) === self ? 'node' : process.execPath;
    }
    return process.execPath;
  }));
}

function realPathOr(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

/** Quotes one shell word for a pasteable replay command. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
