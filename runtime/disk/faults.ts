/**
 * Disk faults: what a storage device and the kernel's page cache do to a program besides keeping
 * its data. Each fault models a behaviour of real machines:
 *
 * - EIO on read and write (a bad sector, a failing cable or controller): the call fails, nothing
 *   is read or written.
 * - EIO on fsync/fdatasync (a writeback that failed): the call fails and the file's unsynced
 *   data is gone. Linux marks the dirty pages clean after reporting the error once, so the next
 *   fsync succeeds without writing them (PostgreSQL's "fsyncgate", 2018); the simulation also
 *   drops them from what readers see, the worst case (ext4 keeps them readable until the pages
 *   are evicted, XFS discards them).
 * - ENOSPC past a quota (a full disk, another process filling it): a write that needs more room
 *   writes what fits and returns a short count; the next one fails.
 * - Torn writes at a machine crash: writes not yet synced reach the platter in any order, each
 *   one whole, not at all, or torn at a sector boundary (512 or 4096 bytes), so a log can come
 *   back with a record's head and not its tail, or with a later record and not an earlier one.
 * - Latency from a distribution: asynchronous completions arrive that much later in virtual
 *   time (interleaving with the network's events), and a synchronous call keeps its host busy
 *   for that long (it blocks the process, as read(2) does). A "slow disk" is a latency changed
 *   while the run goes on.
 * - Read corruption: a read returns one flipped bit (bad RAM, a flaky bus, bit rot caught too
 *   late), for testing checksums. The stored data is unchanged.
 *
 * Every draw comes from the disk's own random stream, derived from the seed and the host's name,
 * so a run with faults is a function of its seed like any other.
 */
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { RandomStream } from '../random/stream.js';

/** A latency distribution, in ms, as the network's: uniform in [min, max], or exponential with min as floor and (max - min) as mean. */
export interface DiskLatency {
  minMs: number;
  maxMs: number;
  distribution?: 'uniform' | 'exponential';
}

/** The faults of a host's disk (every field optional; rates are per operation, 0..1). */
export interface DiskFaults {
  /** Probability that a read fails with EIO. */
  readErrorRate?: number;
  /** Probability that a write fails with EIO (nothing is written). */
  writeErrorRate?: number;
  /** Probability that an fsync/fdatasync fails with EIO: the file's unsynced data is dropped, later fsyncs succeed. */
  fsyncErrorRate?: number;
  /** Probability that a read returns its bytes with one bit flipped (the file itself is intact). */
  corruptReadRate?: number;
  /** How long every operation takes. */
  latency?: DiskLatency;
  /** How long fsync/fdatasync take (default: `latency`). */
  fsyncLatency?: DiskLatency;
  /** The host's disk holds at most this many bytes (files counted in 4 KiB blocks): past it, ENOSPC. Whole disk only. */
  quotaBytes?: number;
  /** The disk is full: a write that needs another block fails with ENOSPC (another process filled it). Whole disk only. */
  full?: boolean;
  /** At a machine crash, unsynced writes persist whole, not at all or torn at a sector, in any order. Whole disk only. */
  tornWrites?: boolean;
  /** The sector size torn writes tear at: 512 (default) or 4096. */
  sectorBytes?: 512 | 4096;
}

/** Faults for some hosts (default every host) and some paths (default every file). */
export interface DiskFaultRule extends DiskFaults {
  /** Host names the rule applies to. Default: every host. */
  hosts?: string | string[];
  /**
   * Path patterns the per-operation faults (errors, corruption, latency) apply to: `*` matches
   * within one path component, `**` any number of them, `?` one character. Relative patterns are
   * taken from the working directory, except those starting with a double star and a slash,
   * which match anywhere (a double star, a slash, then `*.wal`: every .wal file).
   * Default: every file. A rule with paths cannot set the
   * whole-disk faults (quotaBytes, full, tornWrites).
   */
  paths?: string | string[];
}

const RATE_KEYS = ['readErrorRate', 'writeErrorRate', 'fsyncErrorRate', 'corruptReadRate'] as const;
const FAULT_KEYS = [...RATE_KEYS, 'latency', 'fsyncLatency', 'quotaBytes', 'full', 'tornWrites', 'sectorBytes'] as const;
const WHOLE_DISK_KEYS = ['quotaBytes', 'full', 'tornWrites', 'sectorBytes'] as const;
const RULE_KEYS = ['hosts', 'paths', ...FAULT_KEYS];

/** A validated rule: hosts and path matchers resolved. */
export interface ResolvedRule {
  hosts: string[] | undefined;
  patterns: RegExp[] | undefined;
  faults: DiskFaults;
}

function latencyProblem(value: unknown): string | undefined {
  const l = value as DiskLatency;
  if (l === null || typeof l !== 'object') return `must be { minMs, maxMs, distribution? }, got ${JSON.stringify(value)}`;
  const unknown = Object.keys(l).filter((k) => !['minMs', 'maxMs', 'distribution'].includes(k));
  if (unknown.length > 0) return `has unknown key${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} (known: minMs, maxMs, distribution)`;
  if (!(Number.isFinite(l.minMs) && Number.isFinite(l.maxMs) && l.minMs >= 0 && l.minMs <= l.maxMs)) {
    return `needs numbers 0 <= minMs <= maxMs, got ${JSON.stringify(value)}`;
  }
  if (l.distribution !== undefined && l.distribution !== 'uniform' && l.distribution !== 'exponential') {
    return `distribution must be 'uniform' or 'exponential', got ${JSON.stringify(l.distribution)}`;
  }
  return undefined;
}

/** Validates one set of faults; `where` starts every message ("Failed to configure simulation: diskFaults[0]"). */
export function validateDiskFaults(faults: unknown, where: string, allowed: readonly string[] = FAULT_KEYS): DiskFaults {
  if (faults === null || typeof faults !== 'object' || Array.isArray(faults)) {
    throw new UsageError(`${where} must be an object of disk faults, got ${JSON.stringify(faults)}`);
  }
  const f = faults as Record<string, unknown>;
  for (const key of Object.keys(f)) {
    if (!allowed.includes(key)) throw new UsageError(`${where}: unknown key "${key}" (known: ${allowed.join(', ')})`);
  }
  for (const key of RATE_KEYS) {
    const rate = f[key];
    if (rate !== undefined && !(typeof rate === 'number' && rate >= 0 && rate <= 1)) {
      throw new UsageError(`${where}: ${key} must be a probability in [0, 1], got ${JSON.stringify(rate)}`);
    }
  }
  for (const key of ['latency', 'fsyncLatency'] as const) {
    if (f[key] === undefined) continue;
    const problem = latencyProblem(f[key]);
    if (problem !== undefined) throw new UsageError(`${where}: ${key} ${problem}`);
  }
  if (f.quotaBytes !== undefined && !(Number.isSafeInteger(f.quotaBytes) && (f.quotaBytes as number) >= 0)) {
    throw new UsageError(`${where}: quotaBytes must be a whole number of bytes >= 0, got ${JSON.stringify(f.quotaBytes)}`);
  }
  for (const key of ['full', 'tornWrites'] as const) {
    if (f[key] !== undefined && typeof f[key] !== 'boolean') throw new UsageError(`${where}: ${key} must be true or false, got ${JSON.stringify(f[key])}`);
  }
  if (f.sectorBytes !== undefined && f.sectorBytes !== 512 && f.sectorBytes !== 4096) {
    throw new UsageError(`${where}: sectorBytes must be 512 or 4096, got ${JSON.stringify(f.sectorBytes)}`);
  }
  return f as DiskFaults;
}

const list = (value: string | string[] | undefined): string[] | undefined => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);

/**
 * A path pattern as a regular expression over absolute, normalised paths: `**` any number of
 * components (also none), `*` anything within one component, `?` one character of it.
 */
export function patternToRegExp(pattern: string, cwd: string): RegExp {
  // '**/...' matches at any depth of the whole tree; other relative patterns start at `cwd`.
  const absolute = pattern.startsWith('**/') ? `/${pattern}` : path.posix.resolve(cwd, pattern);
  let source = '';
  for (let i = 0; i < absolute.length; i++) {
    const c = absolute[i]!;
    if (c === '*' && absolute[i + 1] === '*') {
      i++;
      if (absolute[i + 1] === '/') {
        i++;
        source += '(?:.*/)?'; // '**/': any directories, also none
      } else {
        source += '.*';
      }
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Validates the `diskFaults` option (one rule or a list) against the run's host names later, at boot. */
export function resolveDiskFaultRules(value: unknown, where: string, cwd: string): ResolvedRule[] {
  const rules = Array.isArray(value) ? value : [value];
  return rules.map((rule, i) => {
    const at = Array.isArray(value) ? `${where}[${i}]` : where;
    const faults = validateDiskFaults(rule, at, RULE_KEYS);
    const r = rule as DiskFaultRule;
    const hosts = list(r.hosts);
    if (hosts !== undefined && !(hosts.length > 0 && hosts.every((h) => typeof h === 'string' && h !== ''))) {
      throw new UsageError(`${at}: hosts must be a host name or a list of them, got ${JSON.stringify(r.hosts)}`);
    }
    const paths = list(r.paths);
    if (paths !== undefined) {
      if (!(paths.length > 0 && paths.every((p) => typeof p === 'string' && p !== ''))) {
        throw new UsageError(`${at}: paths must be a path pattern or a list of them, got ${JSON.stringify(r.paths)}`);
      }
      const whole = WHOLE_DISK_KEYS.filter((k) => (r as Record<string, unknown>)[k] !== undefined);
      if (whole.length > 0) {
        throw new UsageError(`${at}: ${whole.join(', ')} apply to a host's whole disk, not to some paths: put ${whole.length === 1 ? 'it' : 'them'} in a rule without paths`);
      }
    }
    const { hosts: _h, paths: _p, ...only } = faults as DiskFaultRule;
    return { hosts: hosts?.map((h) => h.toLowerCase()), patterns: paths?.map((p) => patternToRegExp(p, cwd)), faults: only };
  });
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1e3, kb: 1e3, kib: 1024, m: 1e6, mb: 1e6, mib: 1024 ** 2, g: 1e9, gb: 1e9, gib: 1024 ** 3 };

/**
 * DST_DISK_FAULTS: JSON (a rule or a list of rules, as the diskFaults option), or rules
 * separated by ';', each `key=value` pairs separated by ','. Keys: `hosts` and `paths` (several
 * separated by '|'), `read`, `write`, `fsync`, `corrupt` (rates), `latency` and `fsyncLatency`
 * (`1-5ms`, `0.5ms`, `2-20ms:exponential`), `quota` (`64MiB`), `full`, `torn` (`1`, `512`,
 * `4096`). Example: `hosts=db,paths=data/**,fsync=0.05,latency=1-5ms;torn=512,quota=10MiB`.
 */
export function parseDiskFaultsEnv(text: string): unknown {
  const trimmed = text.trim();
  const fail = (why: string): never => {
    throw new UsageError(
      `Failed to parse DST_DISK_FAULTS: ${why} (example: DST_DISK_FAULTS='hosts=db,paths=data/**,fsync=0.05,latency=1-5ms;torn=512,quota=10MiB', or JSON as the diskFaults option)`,
    );
  };
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed);
    } catch (error) {
      return fail(`not valid JSON: ${(error as Error).message}`);
    }
  }
  const rules: DiskFaultRule[] = [];
  for (const ruleText of trimmed.split(';')) {
    if (ruleText.trim() === '') continue;
    const rule: Record<string, unknown> = {};
    for (const pair of ruleText.split(',')) {
      const eq = pair.indexOf('=');
      if (eq === -1) fail(`"${pair.trim()}" is not key=value`);
      const key = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const number = (): number => {
        const n = Number(value);
        if (value === '' || !Number.isFinite(n)) fail(`${key}=${value}: not a number`);
        return n;
      };
      const latency = (): DiskLatency => {
        const m = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?ms(?::(uniform|exponential))?$/.exec(value);
        if (m === null) return fail(`${key}=${value}: a latency is <min>-<max>ms or <ms>ms, optionally :exponential`);
        const minMs = Number(m[1]);
        return { minMs, maxMs: m[2] === undefined ? minMs : Number(m[2]), ...(m[3] === undefined ? {} : { distribution: m[3] as 'uniform' | 'exponential' }) };
      };
      switch (key) {
        case 'hosts':
        case 'paths':
          rule[key] = value.split('|').filter((v) => v !== '');
          break;
        case 'read':
        case 'write':
        case 'fsync':
        case 'corrupt':
          rule[key === 'corrupt' ? 'corruptReadRate' : `${key}ErrorRate`] = number();
          break;
        case 'latency':
        case 'fsyncLatency':
          rule[key] = latency();
          break;
        case 'quota': {
          const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value);
          const unit = m === null ? undefined : SIZE_UNITS[m[2]!.toLowerCase()];
          if (m === null || unit === undefined) fail(`quota=${value}: a size is a number of bytes, optionally with a unit (KiB, MiB, GiB, kB, MB, GB)`);
          rule.quotaBytes = Math.floor(Number(m![1]) * unit!);
          break;
        }
        case 'full':
          rule.full = value === '1' || value === 'true';
          if (!['0', '1', 'true', 'false'].includes(value)) fail(`full=${value}: use full=1`);
          break;
        case 'torn':
          if (value === '0' || value === 'false') break;
          if (value === '1' || value === 'true') rule.tornWrites = true;
          else if (value === '512' || value === '4096') Object.assign(rule, { tornWrites: true, sectorBytes: Number(value) });
          else fail(`torn=${value}: use torn=1, torn=512 or torn=4096`);
          break;
        default:
          fail(`unknown key "${key}" (known: hosts, paths, read, write, fsync, corrupt, latency, fsyncLatency, quota, full, torn)`);
      }
    }
    rules.push(rule as DiskFaultRule);
  }
  if (rules.length === 0) fail('no rule');
  return rules.length === 1 ? rules[0] : rules;
}

/** The faults that apply to one file: its rates and latencies (a path's view of the host's rules). */
export interface PathFaults {
  readErrorRate: number;
  writeErrorRate: number;
  fsyncErrorRate: number;
  corruptReadRate: number;
  latency: DiskLatency | undefined;
  fsyncLatency: DiskLatency | undefined;
}

const NO_PATH_FAULTS: PathFaults = { readErrorRate: 0, writeErrorRate: 0, fsyncErrorRate: 0, corruptReadRate: 0, latency: undefined, fsyncLatency: undefined };

/**
 * The faults of one host's disk: the run's rules for that host, with the layer `sim.setDiskFaults`
 * sets on top (whole, until replaced or cleared). What applies to a path is every matching rule's
 * settings in order, later ones overriding earlier ones key by key, the runtime layer last.
 */
export class HostDiskFaults {
  private layer: ResolvedRule[] = [];
  /** Bumped whenever the faults change: a file's cached view is stale when its generation differs. */
  generation = 0;
  private readonly cache = new Map<string, PathFaults>();
  private whole: DiskFaults = {};
  /** Whether any rule sets a latency (else no operation draws one). */
  hasLatency = false;

  constructor(
    private readonly rules: readonly ResolvedRule[],
    readonly random: RandomStream,
  ) {
    this.recompute();
  }

  /** Replaces the runtime layer (sim.setDiskFaults); undefined removes it. */
  setLayer(layer: ResolvedRule[] | undefined): void {
    this.layer = layer ?? [];
    this.recompute();
  }

  private recompute(): void {
    this.generation++;
    this.cache.clear();
    const whole: DiskFaults = {};
    this.hasLatency = this.all().some((r) => r.faults.latency !== undefined || r.faults.fsyncLatency !== undefined);
    for (const rule of this.all()) {
      if (rule.patterns !== undefined) continue;
      for (const key of WHOLE_DISK_KEYS) {
        const value = rule.faults[key];
        if (value !== undefined) (whole as Record<string, unknown>)[key] = value;
      }
    }
    this.whole = whole;
  }

  private all(): ResolvedRule[] {
    return this.layer.length === 0 ? (this.rules as ResolvedRule[]) : [...this.rules, ...this.layer];
  }

  /** The quota in bytes (Infinity: none); a full disk has its current use as quota. */
  get quotaBytes(): number {
    return this.whole.quotaBytes ?? Infinity;
  }

  get full(): boolean {
    return this.whole.full === true;
  }

  /** The sector size torn writes tear at, or 0 when writes do not tear. */
  get tornSectorBytes(): number {
    return this.whole.tornWrites === true ? (this.whole.sectorBytes ?? 512) : 0;
  }

  /** Whether a write may need the disk's use counted (a quota, or a full disk). */
  get limitsSpace(): boolean {
    return this.whole.quotaBytes !== undefined || this.whole.full === true;
  }

  /** What applies to the file at absolute, normalised path `abs`. */
  forPath(abs: string): PathFaults {
    let faults = this.cache.get(abs);
    if (faults !== undefined) return faults;
    let merged: DiskFaults | undefined;
    for (const rule of this.all()) {
      if (rule.patterns !== undefined && !rule.patterns.some((p) => p.test(abs))) continue;
      merged = { ...merged, ...rule.faults };
    }
    faults =
      merged === undefined
        ? NO_PATH_FAULTS
        : {
            readErrorRate: merged.readErrorRate ?? 0,
            writeErrorRate: merged.writeErrorRate ?? 0,
            fsyncErrorRate: merged.fsyncErrorRate ?? 0,
            corruptReadRate: merged.corruptReadRate ?? 0,
            latency: merged.latency,
            fsyncLatency: merged.fsyncLatency ?? merged.latency,
          };
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(abs, faults);
    return faults;
  }

  /** Whether an operation with probability `rate` fails now (no draw for a rate of 0). */
  chance(rate: number): boolean {
    return rate > 0 && this.random.double() < rate;
  }

  /** A latency drawn from `latency`, in whole ns (0 when there is none). */
  latencyNs(latency: DiskLatency | undefined): number {
    if (latency === undefined) return 0;
    const { minMs, maxMs, distribution = 'uniform' } = latency;
    const ms = distribution === 'exponential' ? minMs - Math.log(1 - this.random.double()) * (maxMs - minMs) : minMs + this.random.double() * (maxMs - minMs);
    return Math.round(ms * 1e6);
  }
}

/** The rules of `rules` that apply to host `name`. */
export function rulesForHost(rules: readonly ResolvedRule[], name: string): ResolvedRule[] {
  const lower = name.toLowerCase();
  return rules.filter((r) => r.hosts === undefined || r.hosts.includes(lower));
}
