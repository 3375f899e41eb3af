/**
 * dst-runtime/node-test: simTest for node:test.
 *
 *     import { simTest } from 'dst-runtime/node-test';
 *     simTest('survives a crash', async ({ sim }) => { sim.host(...); sim.client(...); }, { seeds: [1, 2, 3] });
 *
 * Each seed is a test of its own, `name (seed 0x1)`, with `timeout` when given (node:test has
 * none by default). node:test aborts `t.signal` when the test times out or the run is
 * cancelled; the simulation stops with it.
 */
import { test, type TestContext } from 'node:test';
import { defineSimTest, type SimTest } from 'dst-runtime';

export const simTest: SimTest<TestContext> = defineSimTest<TestContext>({
  name: 'node:test',
  define(name, mode, timeoutMs, run) {
    const options = {
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
      ...(mode === 'only' ? { only: true } : mode === 'skip' ? { skip: true } : {}),
    };
    void test(name, options, (t: TestContext) => run({ context: t, signal: t.signal, ...(timeoutMs === undefined ? {} : { timeoutMs }) }));
  },
});
