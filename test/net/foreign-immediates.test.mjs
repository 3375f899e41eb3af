/**
 * The native-immediate hold (shims/timers/native-immediates.ts) waits for the ref'd immediates
 * Node's C++ queued during an event (TLSWrap, Http2Session). It finds them in Node's count of
 * ref'd immediates, which also counts immediates that code OUTSIDE the hosts queued (a test
 * runner's, a leftover of an earlier test in the same process, a script polling beside the run).
 * Those are not the simulation's: counted as native, a foreign setImmediate loop held the world
 * one check phase at a time for as long as it ran, and a loop that never stopped hung the run.
 * Regression: a TLS + HTTP/2 run (determinism/fixtures/tls-scenario.mjs, seed 0x17) beside a
 * setImmediate loop of the test's own, outside the hosts, capped at LOOP_TURNS_MAX turns; before
 * the fix the run could only finish once the cap stopped the loop.
 */
import assert from 'node:assert/strict';
import { runTlsSeed } from '../determinism/fixtures/tls-scenario.mjs';

/** Far more check phases than the run needs (a few hundred); reached only if the loop holds the run. */
const LOOP_TURNS_MAX = 20_000;

describe('foreign immediates beside a TLS/HTTP/2 run (native-immediate hold)', function () {
  this.timeout(120_000);

  it('seed 0x17 finishes beside a setImmediate loop outside the hosts, with the seed’s events and output', async () => {
    // Arrange: the run alone, then the same seed beside a loop that re-queues itself every check phase.
    const alone = await runTlsSeed('0x17');
    let turns = 0;
    let stop = false;
    const loop = () => {
      turns++;
      if (!stop && turns < LOOP_TURNS_MAX) setImmediate(loop);
    };
    setImmediate(loop);

    // Act
    const beside = await runTlsSeed('0x17');
    const turnsAtEnd = turns;
    stop = true;

    // Assert: the loop really ran beside the run, did not hold it, and changed nothing in it.
    assert.ok(turnsAtEnd > 1, 'the loop ran while the simulation did');
    assert.ok(turnsAtEnd < LOOP_TURNS_MAX, `the run waited for the foreign loop (${turnsAtEnd} turns)`);
    assert.deepEqual(beside, alone);
  });
});
