/**
 * simTest: one test per seed, for any test runner, from a description of how that runner
 * defines a test (dst-runtime/vitest, /jest, /node-test and /mocha are such descriptions).
 *
 *     simTest('the counter survives a crash', async ({ sim }) => {
 *       sim.host('n1', { main: './server.mjs' });
 *       sim.client('c', async () => { ... });
 *     }, { seeds: [1, 2, 3] });
 *
 * The body gets a Sim made with the test's seed (and the options), set up to stop when the test
 * ends first; simTest runs it after the body unless the body did. A failing seed fails its own
 * test with the seed and the command that reruns just that seed.
 */
import { UsageError } from '../errors.js';
import { SimulationError } from '../failure.js';
import type { SimOptions } from '../options.js';
import { readyToRun, setReplay, Sim } from '../sim.js';
import { runScenario, type Scenario } from '../scenario/scenario.js';
import { type ForEachSeedOptions, replayOf, ScenarioSeedFailure, seedList, type SeedListOptions } from './seeds.js';
import { type RunnerTestInfo, TestStop } from './runner-test.js';
import { testFileOfCaller } from './rerun.js';

/** What a simTest body receives. */
export interface SimTestArgs<Context> {
  /** A simulation with this test's seed and simTest's options: add hosts and clients; simTest runs it after the body unless the body did. */
  sim: Sim;
  /** The seed, as 0x-hex. */
  seed: string;
  /** Aborted when the test ends first (its timeout): pass it to what else the body waits for. */
  signal: AbortSignal;
  /** The runner's own test context (node:test's `t`, Vitest's test context, mocha's `this`; Jest: undefined). */
  context: Context;
}

/** A simTest body: sets up `sim` (and may run it and check its result). */
export type SimTestBody<Context> = (args: SimTestArgs<Context>) => unknown;

/** simTest's options: the seeds, the runner's timeout, the replay command, and every SimOptions but `seed`. */
export interface SimTestOptions extends Omit<SimOptions, 'seed'>, SeedListOptions, Pick<ForEachSeedOptions, 'file' | 'replay' | 'swarm'> {
  /**
   * The runner's timeout for each seed's test, in ms (default: the runner's). The simulation is
   * stopped a little before it (a tenth of it, 50 ms to 1 s), so a seed that runs too long fails
   * with its seed and replay line rather than with the runner's bare timeout.
   */
  timeout?: number;
}

/** `simTest(name, body or scenario, options)`: defines one test per seed; returns the seeds. */
export interface SimTest<Context> {
  (name: string, body: SimTestBody<Context> | Scenario, options?: SimTestOptions): string[];
  /** The same, as the runner's `.only` (every seed's test). */
  only(name: string, body: SimTestBody<Context> | Scenario, options?: SimTestOptions): string[];
  /** The same, as the runner's `.skip` (every seed's test is reported skipped). */
  skip(name: string, body: SimTestBody<Context> | Scenario, options?: SimTestOptions): string[];
}

/** How a test runner defines one test, for defineSimTest. */
export interface SimTestRunner<Context> {
  /** The runner's name, for messages ('Vitest', 'Jest', 'node:test', 'mocha'). */
  name: string;
  /**
   * Defines the test `name` (as the runner's `.only` or `.skip` when `mode` says so, with
   * `timeoutMs` when given) whose function calls `run` with what the runner tells it about the
   * test: its context, a signal the runner aborts when the test times out, its timeout.
   */
  define(name: string, mode: 'run' | 'only' | 'skip', timeoutMs: number | undefined, run: (test: SimTestRunnerTest<Context>) => Promise<void>): void;
}

/** What a runner's test function passes on to simTest. */
export interface SimTestRunnerTest<Context> {
  context: Context;
  /** Aborted by the runner when the test times out or is cancelled (node:test, Vitest). */
  signal?: AbortSignal;
  /** The test's timeout in ms, as the runner applies it (0 or Infinity: none). */
  timeoutMs?: number;
}

/** The options of simTest's own; the rest are the Sim's. */
const OWN_OPTIONS = new Set(['seeds', 'env', 'log', 'timeout', 'file', 'replay', 'swarm']);

function isScenario(value: unknown): value is Scenario {
  return value !== null && typeof value === 'object' && (value as Scenario).kind === 'dst-scenario';
}

/**
 * An error the body threw (an assertion on the run's result, ...), wrapped so the failure starts
 * with the seed and its replay line; the error itself is the `cause`, which every runner prints
 * in full below (Jest's "Cause:", Vitest's and mocha's "Caused by:", node:test's [cause]) with
 * its diff and frames. (Appending to the error's own message instead printed the line twice in
 * Jest and not at all for node:assert errors, whose message Jest rebuilds.) A SimulationError
 * or ScenarioSeedFailure already says both and goes as it is.
 */
function withSeed(error: unknown, name: string, seed: string, replay: string): unknown {
  if (error instanceof SimulationError || error instanceof ScenarioSeedFailure) return error;
  const e = error as { name?: unknown; message?: unknown } | null;
  const head = e !== null && typeof e === 'object' && typeof e.message === 'string' ? `${typeof e.name === 'string' ? `${e.name}: ` : ''}${e.message.split('\n')[0]}` : String(error);
  const failure = new Error(`simTest "${name}" failed on seed ${seed}: ${head}\n  replay: ${replay}`, { cause: error });
  failure.name = 'SimTestFailure';
  // dst-runtime's own frames say nothing: the stack is the message and the frame the cause was
  // thrown at (the whole of it follows as the cause). At least one frame: without one,
  // util.inspect (node:test's reporters) prints the stack in brackets, `[SimTestFailure: ...]`,
  // and the replay line would end in `] {`.
  const frames = (error as { stack?: unknown } | null)?.stack;
  const frame = typeof frames === 'string' ? frames.split('\n').find((line) => /^\s+at /.test(line)) : undefined;
  if (frame !== undefined) failure.stack = `${failure.name}: ${failure.message}\n${frame}`;
  Object.assign(failure, { seed, replay });
  return failure;
}

/**
 * Builds `simTest` for a test runner (`runner` says how it defines a test): dst-runtime/vitest,
 * /jest, /node-test and /mocha export what this returns for theirs.
 */
export function defineSimTest<Context>(runner: SimTestRunner<Context>): SimTest<Context> {
  const define = (mode: 'run' | 'only' | 'skip') =>
    function simTest(name: string, body: SimTestBody<Context> | Scenario, options: SimTestOptions = {}): string[] {
      if (typeof name !== 'string' || name === '') throw new UsageError(`Failed to define a simulation test: its name must be a non-empty string, got ${String(name)}`);
      if (typeof body !== 'function' && !isScenario(body)) {
        throw new UsageError(`Failed to define simulation test "${name}": pass a function ({ sim, seed }) => ... or a scenario from defineScenario(), got ${String(body)}`);
      }
      if (options === null || typeof options !== 'object') throw new UsageError(`Failed to define simulation test "${name}": options must be an object, got ${String(options)}`);
      const simOptions: SimOptions = Object.fromEntries(Object.entries(options).filter(([key]) => !OWN_OPTIONS.has(key)));
      const notForScenario = Object.keys(simOptions).filter((key) => key !== 'signal' && key !== 'wallClockLimitMs');
      if (isScenario(body) && notForScenario.length > 0) {
        throw new UsageError(`Failed to define simulation test "${name}": a scenario sets its own simulation options; ${notForScenario.join(', ')} cannot be given here`);
      }
      if (options.swarm === true && !isScenario(body)) throw new UsageError(`Failed to define simulation test "${name}": swarm needs a scenario (its fault profile)`);
      const { timeout } = options;
      if (timeout !== undefined && !(typeof timeout === 'number' && timeout >= 0)) {
        throw new UsageError(`Failed to define simulation test "${name}": timeout must be a number of milliseconds, got ${String(timeout)}`);
      }
      const seeds = seedList(options);
      const testFile = testFileOfCaller();
      // Check the Sim options now, at the definition, rather than once per seed's test.
      if (!isScenario(body) && seeds.length > 0) new Sim({ ...simOptions, seed: seeds[0]! });
      for (const seed of seeds) {
        runner.define(`${name} (seed ${seed})`, mode, timeout, async (test) => {
          const info: RunnerTestInfo = { runner: runner.name, ...(test.signal === undefined ? {} : { signal: test.signal }) };
          const timeoutMs = test.timeoutMs ?? timeout;
          if (timeoutMs !== undefined) info.timeoutMs = timeoutMs;
          const stop = new TestStop(info, [options.signal]);
          // The rerun line is read from the runner's state of the running test (rerun.ts).
          const replay = replayOf(seed, options, testFile);
          try {
            if (isScenario(body)) {
              const result = await runScenario(body, seed, {
                replay,
                swarm: options.swarm === true,
                signal: stop.signal,
                ...(options.wallClockLimitMs === undefined ? {} : { wallClockLimitMs: options.wallClockLimitMs }),
              });
              if (!result.ok) throw new ScenarioSeedFailure(body.name, [result], 1, replay);
              return;
            }
            const sim = new Sim({ ...simOptions, seed, signal: stop.signal });
            setReplay(sim, replay);
            await body({ sim, seed, signal: stop.signal, context: test.context });
            if (readyToRun(sim)) await sim.run();
          } catch (error) {
            throw withSeed(error, name, seed, replay);
          } finally {
            stop.dispose();
          }
        });
      }
      return seeds;
    };
  return Object.assign(define('run'), { only: define('only'), skip: define('skip') });
}
