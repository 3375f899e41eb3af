import assert from 'node:assert/strict';
import { defineScenario, runScenario, UsageError } from 'dst-runtime';
import fs from 'node:fs';
import { durableLogScenario } from '../../examples/scenarios/durable-log.mjs';
import { counterScenario } from '../../examples/scenarios/replicated-counter.mjs';

describe('runScenario', () => {
  it('the same seed twice gives the same fingerprint (seed 0x2a); another seed another one', async () => {
    const scenario = counterScenario({ bug: false });
    const first = await runScenario(scenario, 0x2a);
    const second = await runScenario(scenario, 0x2a);
    const other = await runScenario(scenario, 0x2b);
    assert.equal(first.ok, true, JSON.stringify(first.failure));
    assert.equal(first.fingerprint, second.fingerprint);
    assert.equal(first.events, second.events);
    assert.notEqual(first.fingerprint, other.fingerprint);
  });

  it('the planted bug fails safety, identically on each replay (seed 0x6)', async () => {
    const scenario = counterScenario({ bug: true });
    const runs = [await runScenario(scenario, 6), await runScenario(scenario, 6), await runScenario(scenario, 6)];
    for (const run of runs) {
      assert.equal(run.ok, false);
      assert.equal(run.failure.kind, 'safety');
      assert.equal(run.fingerprint, runs[0].fingerprint);
    }
    assert.match(runs[0].failure.message, /acknowledged but the replicas hold at most/);
  });

  it('a simulated disk: the durable log survives machine crashes on seeds 1-10; acking before fsync fails (seed 0x2)', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const result = await runScenario(durableLogScenario({ bug: false }), seed);
      assert.equal(result.ok, true, `seed ${seed}: ${JSON.stringify(result.failure)}`);
    }
    const buggy = durableLogScenario({ bug: true });
    const runs = [await runScenario(buggy, 2), await runScenario(buggy, 2)];
    for (const run of runs) {
      assert.equal(run.ok, false);
      assert.equal(run.failure.kind, 'safety');
      assert.equal(run.fingerprint, runs[0].fingerprint);
    }
    assert.match(runs[0].failure.message, /19 records acknowledged but the store recovered 18/);
    // The log lived on the simulated disk only.
    assert.equal(fs.existsSync('data/log'), false);
  });

  it('liveness is judged at the end, after the heal phase (seed 0x1)', async () => {
    const scenario = defineScenario({
      name: 'stuck',
      hosts: (sim) => sim.host('a', () => setInterval(() => {}, 100)),
      durationMs: 500,
      healMs: 100,
      invariants: { liveness: [(ctx) => ctx.phase === 'heal' && 'still stuck'] },
    });
    const result = await runScenario(scenario, 1);
    assert.equal(result.failure?.kind, 'liveness');
    assert.equal(result.failure.timeNs, 499_000_000);
    assert.match(result.failure.message, /still stuck/);
  });

  it('defineScenario rejects what it cannot run, saying what to change', () => {
    assert.throws(() => defineScenario({ name: 'x', hosts: () => {}, durationMs: 0 }), (e) => e instanceof UsageError && /durationMs/.test(e.message));
    assert.throws(() => defineScenario({ name: 'x', hosts: () => {}, durationMs: 100, healMs: 100 }), /healMs/);
    assert.throws(() => defineScenario({ name: 'x', hosts: () => {}, durationMs: 100, faults: { crashPerSecond: -1 } }), /crashPerSecond/);
  });
});
