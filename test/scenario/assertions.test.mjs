import assert from 'node:assert/strict';
import { always, coverage, reachable, SafetyViolation, Sim, SimulationError, sometimes, unreachable } from 'dst-runtime';

describe('scenario assertions', () => {
  it('outside a simulation: always/unreachable throw, sometimes/reachable do nothing', () => {
    always(true, 'holds');
    assert.throws(() => always(false, 'must hold', { x: 1 }), (e) => e instanceof SafetyViolation && /must hold.*"x":1/.test(e.message));
    assert.throws(() => unreachable('never here'), SafetyViolation);
    sometimes(false, 'outside');
    reachable('outside');
  });

  it('a failed always in host code fails the run as a safety violation with the seed (seed 0x5a)', async () => {
    const sim = new Sim({ seed: 0x5a });
    sim.host('a', () => setTimeout(() => always(1 + 1 === 3, 'arithmetic holds'), 30));
    const error = await sim.run().then(() => undefined, (e) => e);
    assert.ok(error instanceof SimulationError);
    assert.equal(error.report.kind, 'safety');
    assert.equal(error.report.seed, '0x5a');
    assert.equal(error.report.host, 'a');
    assert.equal(error.report.timeNs, 30_000_000);
    assert.match(error.report.summary, /always: arithmetic holds/);
  });

  it('unreachable in host code fails the run as a safety violation (seed 0x5b)', async () => {
    const sim = new Sim({ seed: 0x5b });
    sim.host('a', () => unreachable('the impossible branch'));
    const error = await sim.run().then(() => undefined, (e) => e);
    assert.equal(error?.report?.kind, 'safety');
  });

  it('coverage counts sometimes/reachable hits per message and restarts for each run (seed 0x5c)', async () => {
    const once = async (rounds) => {
      const sim = new Sim({ seed: 0x5c });
      sim.client('a', async () => {
        for (let i = 0; i < rounds; i++) {
          reachable('looped');
          sometimes(i % 2 === 0, 'even round');
          sometimes(false, 'never true');
          await new Promise((r) => setTimeout(r, 1));
        }
      });
      await sim.run();
      return coverage();
    };
    assert.deepEqual(await once(4), [
      { message: 'looped', kind: 'reachable', hits: 4 },
      { message: 'even round', kind: 'sometimes', hits: 2 },
      { message: 'never true', kind: 'sometimes', hits: 0 },
    ]);
    assert.deepEqual((await once(1)).map((e) => e.hits), [1, 1, 0]);
  });
});
