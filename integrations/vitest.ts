/**
 * dst-runtime/vitest: simTest for Vitest (an ES module: Vitest cannot be required).
 *
 *     import { simTest } from 'dst-runtime/vitest';
 *     simTest('survives a crash', async ({ sim }) => { sim.host(...); sim.client(...); }, { seeds: [1, 2, 3] });
 *
 * Each seed is a test of its own, `name (seed 0x1)`, with the test's timeout (`timeout`, else
 * Vitest's testTimeout). Vitest aborts the test context's `signal` when the test times out; the
 * simulation stops with it, and a little before, so the failure names the seed.
 */
import { test, type TestContext } from 'vitest';
import { defineSimTest, type SimTest } from 'dst-runtime';

export const simTest: SimTest<TestContext> = defineSimTest<TestContext>({
  name: 'Vitest',
  define(name, mode, timeoutMs, run) {
    const define = mode === 'only' ? test.only : mode === 'skip' ? test.skip : test;
    // The context is taken whole: Vitest reads fixtures from a destructured first parameter.
    define(name, (context: TestContext) => run({ context, signal: context.signal, timeoutMs: context.task.timeout }), timeoutMs);
  },
});
