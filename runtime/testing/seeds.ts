import type { Environment } from '../options.js';
/**
 * Test-runner helpers: run a scenario over many seeds from mocha or node:test, with failure
 * messages that carry the seed and a command that replays it.
 *
 * Which seeds: the pinned list of the test (CI: the same seeds every run) unless the environment
 * asks for a sweep: DST_SEEDS=random:100 or DST_SWEEP=100 draws 100 fresh random seeds (printed,
 * so a failure can be replayed), DST_SEEDS=0x6,0x9 runs exactly those seeds.
 */
import { nodeCrypto } from '../node-crypto.js';
import { UsageError } from '../errors.js';
import { replayEnvironment, shellQuote } from '../options.js';
import { formatSeed, parseSeed, type SeedInput } from '../random/seed.js';
import { testRealmGlobal } from '../realms.js';
import { rerunCommand, testFileOfCaller, withoutRerunCommand } from './rerun.js';
import { runnerTestOfCall, TestStop } from './runner-test.js';
import { formatFaultMix, runScenario, type Scenario, type ScenarioResult } from '../scenario/scenario.js';

export interface SeedListOptions {
  /** The pinned seeds, used unless DST_SEEDS/DST_SWEEP say otherwise. Default 1..10. */
  seeds?: SeedInput[];
  /** Where to read DST_SEEDS and DST_SWEEP. Default process.env. */
  env?: Environment;
  /** Where the drawn seeds of a sweep are printed. Default: a line on stderr. */
  log?: (line: string) => void;
}

export interface ForEachSeedOptions extends SeedListOptions {
  /** The scenario's module file, for the replay command (`dst run <file> --seed S`). */
  file?: string;
  /** Swarm mode: each seed draws its own fault mix (see swarmFaults). */
  swarm?: boolean;
  /** Builds the replay command of a seed; overrides `file`. */
  replay?: (seed: string) => string;
  /**
   * Stops the running seed's simulation when it aborts (node:test: `t.signal`), and the seeds
   * after it: the call rejects with the run's SimulationError named 'AbortError'. Inside a Vitest
   * or Jest test the test's own end stops it without this (see SimOptions.signal).
   */
  signal?: AbortSignal;
  /** Stops each seed's run after this many ms of real time, as `signal` would (SimOptions.wallClockLimitMs). */
  wallClockLimitMs?: number;
}

/** A scenario failed on one or more seeds: the message names the first one, its failure and replay. */
export class ScenarioSeedFailure extends Error {
  readonly seed: string;
  readonly kind: string;
  readonly replay: string;
  readonly failing: ScenarioResult[];
  constructor(scenario: string, failing: ScenarioResult[], total: number, replay: string) {
    const first = failing[0]!;
    const f = first.failure!;
    const lines = [
      `scenario "${scenario}" failed on seed ${first.seed}: ${f.kind}: ${f.message}`,
      `  at ${(f.timeNs / 1e9).toFixed(9)} s (virtual), event ${f.event}, host ${f.host ?? '-'}`,
      ...(first.swarm === undefined ? [] : [`  swarm: ${formatFaultMix(first.swarm)}`]),
      `  replay: ${replay}`,
    ];
    if (failing.length > 1) lines.push(`  ${failing.length} of ${total} seeds failed: ${failing.map((r) => r.seed).join(', ')}`);
    super(lines.join('\n'));
    this.name = 'ScenarioSeedFailure';
    this.seed = first.seed;
    this.kind = f.kind;
    this.replay = replay;
    this.failing = failing;
  }
}

function drawSeeds(count: number, log: (line: string) => void, source: string): string[] {
  const words = nodeCrypto().getRandomValues(new Uint32Array(count)); // outside any simulation: real randomness
  const seeds = [...words].map((w) => formatSeed(BigInt(w)));
  log(`dst: ${source}: ${count} random seed(s): ${seeds.join(' ')}`);
  return seeds;
}

function sweepCount(text: string, name: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`Failed to parse ${name}: expected a positive number of seeds, got ${JSON.stringify(text)}`);
  return n;
}

/**
 * The seeds to run: DST_SEEDS=random:N or DST_SWEEP=N draws N random seeds (printed);
 * DST_SEEDS=a,b,c is that list; else the pinned `seeds` (default 1..10).
 */
export function seedList(options: SeedListOptions = {}): string[] {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const seedsVar = env.DST_SEEDS?.trim();
  if (seedsVar !== undefined && seedsVar !== '') {
    const random = /^random:(.*)$/.exec(seedsVar);
    if (random) return drawSeeds(sweepCount(random[1]!, 'DST_SEEDS=random:N'), log, `DST_SEEDS=${seedsVar}`);
    return seedsVar.split(/[\s,]+/).filter((s) => s !== '').map((s) => formatSeed(parseSeed(s, 'DST_SEEDS')));
  }
  const sweep = env.DST_SWEEP?.trim();
  if (sweep !== undefined && sweep !== '') return drawSeeds(sweepCount(sweep, 'DST_SWEEP'), log, `DST_SWEEP=${sweep}`);
  const pinned = options.seeds ?? Array.from({ length: 10 }, (_, i) => i + 1);
  return pinned.map((s) => formatSeed(parseSeed(s, 'seeds')));
}

/**
 * The command that reruns one seed: `dst run <file> --seed S`, else this test's command with
 * DST_SEEDS=S (rerun.ts: Jest's and Vitest's too), else what to pass to get one.
 */
export function replayOf(seed: string, options: Pick<ForEachSeedOptions, 'file' | 'swarm' | 'replay'>, testFile?: string): string {
  if (options.replay !== undefined) return options.replay(seed);
  const settings = Object.keys(process.env)
    .filter((k) => k.startsWith('DST_') && !['DST_SEED', 'DST_SEEDS', 'DST_SWEEP', 'DST_TRACE'].includes(k) && process.env[k] !== '')
    .sort()
    .map((k) => `${k}=${shellQuote(process.env[k]!)}`);
  settings.unshift(...replayEnvironment());
  if (options.file !== undefined) return [...settings, 'dst', 'run', shellQuote(options.file), '--seed', seed, ...(options.swarm ? ['--swarm'] : [])].join(' ');
  const assignments = [`DST_SEEDS=${seed}`, ...settings];
  return rerunCommand(assignments, process.env, testFile) ?? withoutRerunCommand(assignments, 'pass `file` for `dst run <file> --seed S`, or `replay: (seed) => command`');
}

/**
 * Runs a scenario over the seeds of seedList(options), one after the other, inside one test.
 * Resolves with every result when all pass; rejects with a ScenarioSeedFailure naming the first
 * failing seed (kind, message, virtual time, replay command) and listing the others.
 */
export async function forEachSeed(scenario: Scenario, options: ForEachSeedOptions = {}): Promise<ScenarioResult[]> {
  const seeds = seedList(options);
  const testFile = testFileOfCaller();
  const results: ScenarioResult[] = [];
  for (const seed of seeds) {
    // An aborted seed rejects (runScenario rethrows it): the seeds after it do not start.
    results.push(await runScenario(scenario, seed, { replay: replayOf(seed, options, testFile), swarm: options.swarm === true, ...stopOptionsOf(options) }));
  }
  const failing = results.filter((r) => !r.ok);
  if (failing.length > 0) throw new ScenarioSeedFailure(scenario.name, failing, results.length, replayOf(failing[0]!.seed, options, testFile));
  return results;
}

/** A test-defining function: mocha's or node:test's `it` (or `test`). */
export type DefineTest = (name: string, fn: () => Promise<void>) => unknown;

/**
 * Defines one test per seed (call it inside a `describe` callback): each test runs its seed and
 * fails with the seed, kind, message and replay command. `it` defaults to the global `it`
 * (mocha, Jest); pass node:test's or Vitest's `it` or `test` explicitly. Returns the seeds.
 */
export function scenarioSeeds(scenario: Scenario, options: ForEachSeedOptions & { it?: DefineTest } = {}): string[] {
  // Jest's `it` is a global of the test file's vm context, not of Node's realm, where this runs.
  const define = options.it ?? ((testRealmGlobal()?.it ?? (globalThis as Record<string, unknown>).it) as DefineTest | undefined);
  if (typeof define !== 'function') {
    throw new UsageError('Failed to define seed tests: no global `it`; pass your runner\'s test function as options.it (node:test: import { it } from \'node:test\')');
  }
  const seeds = seedList(options);
  const testFile = testFileOfCaller();
  for (const seed of seeds) {
    // A function (not an arrow) of no declared parameters: mocha calls it on its Context (this.timeout()),
    // node:test and Vitest pass their test context, and mocha and Jest would take a declared
    // parameter for a done callback.
    define(`${scenario.name} seed ${seed}`, async function (this: unknown, ...args: unknown[]) {
      // The runner's signal and timeout stop the seed's simulation when the test ends first.
      const stop = new TestStop(runnerTestOfCall(this, args), [options.signal]);
      try {
        const replay = replayOf(seed, options, testFile);
        const result = await runScenario(scenario, seed, { replay, swarm: options.swarm === true, ...stopOptionsOf(options), signal: stop.signal });
        if (!result.ok) throw new ScenarioSeedFailure(scenario.name, [result], 1, replay);
      } finally {
        stop.dispose();
      }
    });
  }
  return seeds;
}

function stopOptionsOf(options: ForEachSeedOptions): { signal?: AbortSignal; wallClockLimitMs?: number } {
  return {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.wallClockLimitMs === undefined ? {} : { wallClockLimitMs: options.wallClockLimitMs }),
  };
}
