/**
 * dst-runtime/jest: simTest for Jest (CommonJS and ESM test files).
 *
 *     const { simTest } = require('dst-runtime/jest');
 *     simTest('survives a crash', async ({ sim }) => { sim.host(...); sim.client(...); }, { seeds: [1, 2, 3] });
 *
 * Each seed is a test of its own, `name (seed 0x1)`, with the test's timeout (`timeout`, else
 * jest.setTimeout's or testTimeout). Jest has no signal and never cancels a timed-out test:
 * dst-runtime stops the simulation a little before the timeout, so the failure names the seed,
 * and a jest-circus event handler stops whatever a test left running when its function ends
 * (runtime/testing/runner-test.ts). No test environment is needed.
 */
import { test } from '@jest/globals';
import { defineSimTest, type SimTest } from 'dst-runtime';

/** jest-circus's state, kept on the test file's global under an unregistered Symbol('JEST_STATE_SYMBOL'). */
function jestTimeout(): number | undefined {
  const global = globalThis as unknown as Record<symbol, { currentlyRunningTest?: { timeout?: number } | null; testTimeout?: number } | undefined>;
  const symbol = Object.getOwnPropertySymbols(global).find((s) => s.description === 'JEST_STATE_SYMBOL');
  const state = symbol === undefined ? undefined : global[symbol];
  // jest-circus's own rule (_callCircusTest): the test's timeout, else the file's.
  const timeout = state?.currentlyRunningTest?.timeout || state?.testTimeout;
  return typeof timeout === 'number' && timeout > 0 ? timeout : undefined;
}

export const simTest: SimTest<undefined> = defineSimTest<undefined>({
  name: 'Jest',
  define(name, mode, timeoutMs, run) {
    const define = mode === 'only' ? test.only : mode === 'skip' ? test.skip : test;
    // No declared parameter: Jest would take it for a done callback.
    define(name, () => run({ context: undefined, timeoutMs: jestTimeout() ?? timeoutMs }), timeoutMs);
  },
});
