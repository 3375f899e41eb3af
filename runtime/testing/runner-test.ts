/**
 * The test a test runner is running now, as far as dst-runtime can see it from Node's realm: so
 * a simulation whose test timed out (the runner moved on, its promise left pending) is stopped
 * and every global put back before the next test starts.
 *
 * - Vitest aborts the running test's `context.signal` when the test times out or the run is
 *   cancelled; the worker keeps the running test at `__vitest_worker__.current`, on the global of
 *   the test file's realm (Node's in the forks and threads pools, the vm context's in vmThreads and
 *   vmForks).
 * - Jest has no signal, and the promise of a timed-out test is never cancelled. jest-circus
 *   dispatches every event to the handlers in `globalThis[Symbol.for('EVENT_HANDLERS')]` of the
 *   test file's context: `test_fn_failure` when the test's function threw, rejected or timed out,
 *   `test_fn_success` when it resolved. A handler added there stops what the test left running.
 * - node:test and mocha: nothing is reachable from outside the test's own function (node:test's
 *   `t.signal`, mocha's `this.timeout()`); the helpers that define the test function wire those
 *   (scenarioSeeds, simTest), and dst-runtime/mocha adds a root afterEach hook.
 *
 * docs/notes/node-facts.md "Test runners' sandboxes" has the facts; test/runners/lab.sh pins
 * them on the real runners.
 */
import { originals } from '../originals.js';
import { testRealmGlobal } from '../realms.js';
import { runtimeCallback } from '../driver/runtime-resources.js';

type Global = Record<PropertyKey, unknown>;

/** The globals a runner may keep its state on: the test file's vm context's, then Node's. */
function runnerGlobals(): Global[] {
  const realm = testRealmGlobal();
  return realm === undefined ? [globalThis as unknown as Global] : [realm, globalThis as unknown as Global];
}

/** A getter of a runner's that throws (a torn-down context) reads as nothing. */
function read(target: unknown, key: PropertyKey): unknown {
  try {
    return target !== null && (typeof target === 'object' || typeof target === 'function') ? (target as Global)[key] : undefined;
  } catch {
    return undefined;
  }
}

function isSignal(value: unknown): value is AbortSignal {
  return typeof read(value, 'aborted') === 'boolean' && typeof read(value, 'addEventListener') === 'function';
}

// ---- Vitest --------------------------------------------------------------------------------

interface VitestTest {
  type: 'test';
  name: string;
  timeout?: number;
  context?: { signal?: AbortSignal };
}

/** The test Vitest is running in this worker, if any (a hook's or a suite's code: none). */
function vitestTest(): VitestTest | undefined {
  if (originals.process.env.VITEST === undefined) return undefined;
  for (const global of runnerGlobals()) {
    const current = read(read(global, '__vitest_worker__'), 'current');
    if (read(current, 'type') === 'test' && isSignal(read(read(current, 'context'), 'signal'))) return current as VitestTest;
  }
  return undefined;
}

// ---- Jest ----------------------------------------------------------------------------------

const JEST_EVENT_HANDLERS = Symbol.for('EVENT_HANDLERS');

interface JestTest {
  name: string;
  timeout?: number;
}
interface JestEvent {
  name: string;
  test?: JestTest;
  error?: unknown;
}

/** The test file contexts whose jest-circus dispatches to our handler. */
const watchedJestRealms = new WeakSet<object>();
/** The Jest tests whose function is running and started a simulation, with what stops it. */
const jestTests = new WeakMap<object, AbortController>();

/** jest-circus's state, kept on the context's global under a symbol that is not registered (Symbol('JEST_STATE_SYMBOL')). */
function jestState(global: Global): { currentlyRunningTest?: JestTest | null; testTimeout?: number } | undefined {
  for (const symbol of Object.getOwnPropertySymbols(global)) {
    if (symbol.description === 'JEST_STATE_SYMBOL') return read(global, symbol) as { currentlyRunningTest?: JestTest | null; testTimeout?: number };
  }
  return undefined;
}

/** The Jest test file's context and its running test, when this process is a Jest worker running one. */
function jestTest(): { global: Global; test: JestTest; timeoutMs: number | undefined } | undefined {
  const global = testRealmGlobal();
  if (global === undefined || !Array.isArray(read(global, JEST_EVENT_HANDLERS))) return undefined;
  const state = jestState(global);
  const test = state?.currentlyRunningTest;
  if (test === null || test === undefined || typeof test !== 'object') return undefined;
  // jest-circus's own rule (_callCircusTest): the test's timeout, else the file's.
  const timeout = test.timeout || state?.testTimeout;
  return { global, test, timeoutMs: typeof timeout === 'number' && timeout > 0 ? timeout : undefined };
}

/** What a Jest test's end means for a simulation it left running: the abort reason. */
function jestEndReason(event: JestEvent): Error {
  const name = event.test?.name ?? '';
  if (event.name === 'test_fn_success') {
    return new Error(`Jest's test "${name}" returned while its simulation was still running (await sim.run() in the test)`);
  }
  const error = event.error as { message?: unknown } | string | undefined;
  const why = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : String(error);
  return new Error(`Jest ended the test "${name}" while its simulation was still running: ${why.split('\n')[0]}`);
}

/** Adds, once per test file context, a jest-circus event handler that stops what a finished test left running. */
function watchJest(global: Global): void {
  if (watchedJestRealms.has(global)) return;
  const handlers = read(global, JEST_EVENT_HANDLERS) as unknown[];
  watchedJestRealms.add(global);
  handlers.push((event: JestEvent) => {
    if ((event.name !== 'test_fn_failure' && event.name !== 'test_fn_success') || event.test === undefined) return;
    const controller = jestTests.get(event.test);
    if (controller === undefined) return;
    jestTests.delete(event.test);
    controller.abort(jestEndReason(event));
  });
}

// ---- every runner --------------------------------------------------------------------------

/**
 * A signal the test runner's running test aborts when it ends before its simulation has: Vitest's
 * `context.signal` (a timeout, a cancelled run), or, under Jest, one aborted when the test's
 * function has settled or timed out. Undefined outside a Vitest or Jest test. Sim.run() adds it
 * to the run's own signals, so even a plain `new Sim()` stops with its test.
 */
export function runnerTestSignal(): { signal: AbortSignal; runner: string } | undefined {
  const vitest = vitestTest();
  if (vitest !== undefined) return { signal: vitest.context!.signal!, runner: 'Vitest' };
  const jest = jestTest();
  if (jest === undefined) return undefined;
  watchJest(jest.global);
  let controller = jestTests.get(jest.test);
  if (controller === undefined) jestTests.set(jest.test, (controller = new AbortController()));
  return { signal: controller.signal, runner: 'Jest' };
}

/** What a runner says about the test that called a test function of dst-runtime's (scenarioSeeds, simTest). */
export interface RunnerTestInfo {
  /** The runner, for messages: 'mocha', 'node:test', 'Jest', 'Vitest'. */
  runner: string;
  /** Aborted by the runner when the test times out or is cancelled. */
  signal?: AbortSignal;
  /** The test's timeout in ms, when the runner has one (0 or Infinity: none). */
  timeoutMs?: number;
}

/**
 * What the runner told the test function dst-runtime defined through a runner's own `it`
 * (scenarioSeeds): node:test passes its TestContext (`t.signal`), Vitest its test context
 * (`context.signal`, `context.task.timeout`), mocha calls it on its Context (`this.timeout()`);
 * Jest passes nothing, its state has the test's timeout.
 */
export function runnerTestOfCall(thisArg: unknown, args: unknown[]): RunnerTestInfo | undefined {
  const first = args[0];
  const signal = read(first, 'signal');
  if (isSignal(signal)) {
    const task = read(first, 'task');
    if (task !== undefined) {
      const timeout = read(task, 'timeout');
      return { runner: 'Vitest', signal, ...(typeof timeout === 'number' ? { timeoutMs: timeout } : {}) };
    }
    return { runner: 'node:test', signal };
  }
  const timeout = read(thisArg, 'timeout');
  if (typeof timeout === 'function' && read(thisArg, 'test') !== undefined) {
    const ms = (timeout as () => unknown).call(thisArg);
    return { runner: 'mocha', ...(typeof ms === 'number' ? { timeoutMs: ms } : {}) };
  }
  const jest = jestTest();
  if (jest !== undefined) return { runner: 'Jest', ...(jest.timeoutMs === undefined ? {} : { timeoutMs: jest.timeoutMs }) };
  return undefined;
}

/** How long before a runner's timeout the guard stops the simulation: a tenth, 50 ms to 1 s. */
export function guardMarginMs(timeoutMs: number): number {
  return Math.min(1000, Math.max(50, Math.round(timeoutMs / 10)));
}

/**
 * Stops the simulations of one test: when one of the runner's signals aborts, when the test's
 * timeout is near (a guard, a margin before it, so the failure is dst-runtime's, naming the seed
 * and the replay line, rather than the runner's bare timeout), or on stop(). Everything the
 * test runs gets `signal`; dispose() when the test's function ends.
 */
export class TestStop {
  private readonly controller = new AbortController();
  readonly signal: AbortSignal = this.controller.signal;
  private readonly undo: Array<() => void> = [];

  constructor(info: RunnerTestInfo | undefined, extra: Array<AbortSignal | undefined> = []) {
    const runner = info?.runner ?? 'the test runner';
    for (const signal of [info?.signal, ...extra]) {
      if (signal === undefined) continue;
      const own = signal === info?.signal;
      const onAbort = (): void => {
        // node:test aborts t.signal with a bare AbortError: say what it means.
        this.stop(own ? new Error(`${runner} aborted the test's signal (the test timed out or the run was cancelled): ${describe(signal.reason)}`) : signal.reason);
      };
      if (signal.aborted) {
        onAbort();
        continue;
      }
      signal.addEventListener('abort', onAbort);
      this.undo.push(() => signal.removeEventListener('abort', onAbort));
    }
    const timeoutMs = info?.timeoutMs;
    if (timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs) && timeoutMs < 2 ** 31) {
      const margin = guardMarginMs(timeoutMs);
      const timer = originals.setTimeout(
        runtimeCallback(() => {
          const error = new Error(
            `${runner}'s timeout of ${timeoutMs.toLocaleString('en-US')} ms for this test is ${margin.toLocaleString('en-US')} ms away: ` +
              `dst-runtime stopped the simulation first, so this failure names its seed. Raise the test's timeout, or give ` +
              `the simulation a virtual-time budget (durationMs)`,
          );
          error.name = 'TimeoutError';
          error.stack = `TimeoutError: ${error.message}`; // dst-runtime's own timer: its frames say nothing
          this.stop(error);
        }),
        Math.max(timeoutMs - margin, timeoutMs / 2),
      );
      timer.unref();
      this.undo.push(() => originals.clearTimeout(timer));
    }
  }

  /** Aborts `signal` (and so the simulation running with it) with `reason`. */
  stop(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** Removes the listeners and the guard: the test's function has ended. */
  dispose(): void {
    for (const undo of this.undo.splice(0)) undo();
  }
}

function describe(reason: unknown): string {
  const message = read(reason, 'message');
  if (typeof message === 'string') {
    const name = read(reason, 'name');
    return `${typeof name === 'string' ? `${name}: ` : ''}${message.split('\n')[0]}`;
  }
  return String(reason);
}
