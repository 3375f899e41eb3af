/**
 * The bench's simulated workloads (bench/cases.mjs, at their quick sizes) keep the fingerprints
 * they had before the event path was optimised: work on the scheduler, the driver or the timers
 * must not change the order of events, their sequence numbers or the words fed to the
 * fingerprint. The values are the same on Node 20, 22 and 24 (docs/benchmarks.md lists those
 * of the full sizes). A change of the run's semantics that is meant (a new event, another
 * order) updates them here and says why in its commit.
 */
import assert from 'node:assert/strict';
import { CASES } from '../../bench/cases.mjs';
import { SIZES } from '../../bench/workloads.mjs';

const PINNED = {
  'sim-timers': { events: 2002, fingerprint: 'd788a56067948e22' },
  'sim-interval': { events: 3005, fingerprint: 'c1f5f83e341abed4' },
  'sim-tcp-sequential': { events: 407, fingerprint: '4f72bfc3da7d4fda' },
  'sim-tcp-concurrent': { events: 436, fingerprint: '3b00ffe76aa04f29' },
  'sim-gossip': { events: 3020, fingerprint: '799adf486885f9e6' },
};

describe('bench workloads keep their pinned fingerprints (seed 0xbe7c4, quick sizes)', function () {
  this.timeout(60_000);
  for (const [name, expected] of Object.entries(PINNED)) {
    it(`${name}: ${expected.events} events, fingerprint ${expected.fingerprint}`, async () => {
      const result = await CASES[name](SIZES.quick);
      assert.deepEqual({ events: result.events, fingerprint: result.fingerprint }, expected);
    });
  }
});
