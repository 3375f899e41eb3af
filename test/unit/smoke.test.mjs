import assert from 'node:assert/strict';
import { Sim, STARTUP_MS } from 'dst-runtime';

describe('Sim (seed 0x1)', () => {
  it('runs a host on virtual time and returns seed, fingerprint, elapsedNs and events', async () => {
    const seen = [];
    const sim = new Sim({ seed: 1 });
    sim.client('c', async () => {
      await new Promise((resolve) => setTimeout(resolve, 3_600_000));
      seen.push(performance.now());
    });
    const result = await sim.run();
    assert.deepEqual(seen, [STARTUP_MS + 3_600_000]);
    assert.equal(result.seed, '0x1');
    assert.equal(result.elapsedNs, 3_600_000 * 1e6);
    assert.match(result.fingerprint, /^[0-9a-f]{16}$/);
    assert.ok(result.events >= 2);
  });
});
