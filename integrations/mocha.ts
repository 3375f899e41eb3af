/**
 * dst-runtime/mocha: simTest for mocha, and a root hook that stops a simulation its test left
 * running.
 *
 *     const { simTest } = require('dst-runtime/mocha');
 *     simTest('survives a crash', async ({ sim }) => { sim.host(...); sim.client(...); }, { seeds: [1, 2, 3] });
 *
 * Each seed is a test of its own, `name (seed 0x1)`, with `timeout` when given, else mocha's.
 * mocha has no signal and never cancels a timed-out test: the simulation is stopped a little
 * before `this.timeout()`, so the failure names the seed. After every test, a root afterEach
 * hook stops any simulation still running (a plain `new Sim()` whose test timed out): it is
 * registered when this module is loaded by a test file, and `--require dst-runtime/mocha` (or
 * `require: dst-runtime/mocha` in .mocharc) registers it as a root hook plugin, which is what
 * `--parallel` needs.
 */
import { Sim, defineSimTest, formatFailure, type SimTest } from 'dst-runtime';

/** What dst-runtime uses of mocha's Context (`this` in a test). */
export interface MochaContext {
  timeout(): number;
  test?: { title: string; fullTitle(): string };
}

/** The slice of mocha's Test that simTest uses. */
interface MochaTest {
  timeout(ms: number): unknown;
}
type MochaIt = ((name: string, fn: (this: MochaContext) => Promise<void>) => MochaTest) & {
  only(name: string, fn: (this: MochaContext) => Promise<void>): MochaTest;
  skip(name: string, fn: (this: MochaContext) => Promise<void>): MochaTest;
};
interface HookContext {
  currentTest?: { title?: string; timedOut?: boolean; state?: string };
}

const globals = globalThis as unknown as { it?: MochaIt; afterEach?: (name: string, fn: (this: HookContext) => void) => void };

/** Stops a simulation the test that just ended left running (a timed-out test's promise is never cancelled). */
function stopLeftover(this: HookContext | undefined): void {
  const sim = Sim.running();
  if (sim === undefined) return;
  const test = this?.currentTest;
  const how = test?.timedOut === true ? 'timed out' : test?.state === 'failed' ? 'failed' : 'ended';
  sim.abort(new Error(`mocha's test "${test?.title ?? '?'}" ${how} while its simulation was still running`));
  // Nobody reads run()'s rejection now (mocha gave up on the test's promise): say where the run
  // stood, so a hang shows whether it was busy or waiting, with its seed and replay line.
  const report = sim.failure;
  if (report !== undefined) process.stderr.write(`${formatFailure(report, { withError: false })}\n`);
}

/** mocha's root hook plugin (`--require dst-runtime/mocha`): after every test, stop what it left running. */
export const mochaHooks = {
  afterEach(this: HookContext): void {
    stopLeftover.call(this);
  },
};

// Loaded by a test file (mocha's globals exist while it loads the files): register the hook on
// the suite being loaded, the root one for a file's top-level import. Once per process: the
// module is cached, and the root suite runs every file's tests.
if (typeof globals.afterEach === 'function' && typeof globals.it === 'function') {
  globals.afterEach('dst-runtime: stop a simulation the test left running', function (this: HookContext) {
    stopLeftover.call(this);
  });
}

export const simTest: SimTest<MochaContext> = defineSimTest<MochaContext>({
  name: 'mocha',
  define(name, mode, timeoutMs, run) {
    const it = globals.it;
    if (typeof it !== 'function') {
      throw new Error('Failed to define a simulation test: no global `it` (dst-runtime/mocha defines tests with mocha\'s; run the file with mocha)');
    }
    const define = mode === 'only' ? it.only : mode === 'skip' ? it.skip : it;
    // A function: mocha calls it on its Context, whose timeout() is the test's.
    const test = define(name, function (this: MochaContext) {
      return run({ context: this, timeoutMs: this.timeout() });
    });
    if (timeoutMs !== undefined) test.timeout(timeoutMs);
  },
});
