import assert from 'node:assert/strict';
import { drawFaultMix, PROGRAM_FAULT_KINDS as FAULT_KINDS, FAULT_RATES, formatFaultSpec, parseFaultSpec, UsageError } from 'dst-runtime';

describe('fault plans for plain programs (runtime/faults/plan.ts)', () => {
  it('parses DST_FAULTS: all, a list in any order, swarm, swarm with kinds, and intensities', () => {
    assert.deepEqual(parseFaultSpec('all'), { kinds: [...FAULT_KINDS], swarm: false });
    assert.deepEqual(parseFaultSpec('stall, lag'), { kinds: ['lag', 'stall'], swarm: false });
    assert.deepEqual(parseFaultSpec('swarm'), { kinds: [...FAULT_KINDS], swarm: true });
    assert.deepEqual(parseFaultSpec('swarm:reset,latency'), { kinds: ['latency', 'reset'], swarm: true });
    assert.deepEqual(parseFaultSpec('stall=5,reset'), { kinds: ['reset', 'stall'], swarm: false, rates: { stall: 5 } });
    // `all` beside intensities: every kind, with those rates (the message names `all` as a choice).
    assert.deepEqual(parseFaultSpec('all,lag=0.5'), { kinds: [...FAULT_KINDS], swarm: false, rates: { lag: 0.5 } });
    // formatFaultSpec writes what parseFaultSpec reads, normalized.
    for (const text of ['all', 'lag,stall', 'swarm', 'swarm:latency,reset', 'reset,stall=5']) {
      assert.equal(formatFaultSpec(parseFaultSpec(text)), text);
    }
  });

  it('refuses an unknown kind or a bad intensity, naming the known kinds', () => {
    assert.throws(() => parseFaultSpec('gc'), (e) => e instanceof UsageError && /"gc" is not a fault kind \(known: latency, reorder, reset, loss, lag, stall, skew/.test(e.message));
    assert.throws(() => parseFaultSpec('stall=-1'), (e) => e instanceof UsageError && /stall a number >= 0 \(its stallPerSecond\)/.test(e.message));
    assert.throws(() => parseFaultSpec('lag=x'), UsageError);
    // reset, loss and lag are probabilities (a probe found reset=2 and loss=1.5 accepted).
    for (const word of ['reset=2', 'loss=1.5', 'lag=1.01']) {
      assert.throws(() => parseFaultSpec(word), (e) => e instanceof UsageError && / a probability in \[0, 1\] \(its (reset|loss|lag)Ratio\)/.test(e.message), word);
    }
    assert.deepEqual(parseFaultSpec('loss=1').rates, { loss: 1 });
    assert.deepEqual(parseFaultSpec('stall=5').rates, { stall: 5 }, 'a rate per second may exceed 1');
    assert.throws(() => parseFaultSpec(''), UsageError);
  });

  it('runs every listed kind at its default without swarm, and only the listed kinds', () => {
    assert.deepEqual(drawFaultMix(parseFaultSpec('lag,stall'), 7), { lagRatio: FAULT_RATES.lag.default, stallPerSecond: FAULT_RATES.stall.default });
    assert.deepEqual(drawFaultMix(parseFaultSpec('stall=3'), 7), { stallPerSecond: 3 });
  });

  it('draws a swarm mix from the seed alone: the same twice, each kind off or in (0, 2 x default]', () => {
    const spec = parseFaultSpec('swarm');
    const mixes = [];
    for (let seed = 1; seed <= 64; seed++) {
      const mix = drawFaultMix(spec, seed);
      assert.deepEqual(drawFaultMix(spec, seed), mix, `seed ${seed}`);
      for (const kind of FAULT_KINDS) {
        const { key, default: rate } = FAULT_RATES[kind];
        assert.ok(mix[key] === 0 || (mix[key] > 0 && mix[key] <= 2 * rate), `seed ${seed}: ${key}=${mix[key]}`);
      }
      mixes.push(mix);
    }
    // Both outcomes of "on" are reachable for every kind over 64 seeds.
    for (const kind of FAULT_KINDS) {
      const key = FAULT_RATES[kind].key;
      assert.ok(mixes.some((m) => m[key] === 0) && mixes.some((m) => m[key] > 0), `${key} is sometimes off and sometimes on`);
    }
  });

  it('a swarm draw of a probability stays at most 1', () => {
    for (let seed = 1; seed <= 32; seed++) {
      const mix = drawFaultMix(parseFaultSpec('swarm:reset=0.9,loss=1,lag=0.7'), seed);
      for (const key of ['resetRatio', 'lossRatio', 'lagRatio']) assert.ok(mix[key] >= 0 && mix[key] <= 1, `seed ${seed}: ${key}=${mix[key]}`);
    }
  });

  it("draws each kind from its own stream: narrowing the kinds does not change a kind's draw (seed 0x2a)", () => {
    const all = drawFaultMix(parseFaultSpec('swarm'), 0x2a);
    const some = drawFaultMix(parseFaultSpec('swarm:lag,reset'), 0x2a);
    assert.deepEqual(some, { resetRatio: all.resetRatio, lagRatio: all.lagRatio });
  });
});
