import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Sim } from 'dst-runtime';

const REAL_RANDOM = Math.random;
const REAL_DESCRIPTOR = Object.getOwnPropertyDescriptor(Math, 'random');

/** Runs `main` in each named client of a fresh simulation; returns what each returned. */
async function simulate(seed, main, names = ['c']) {
  const out = {};
  const sim = new Sim({ seed });
  for (const name of names) {
    sim.client(name, async () => {
      out[name] = await main(name);
    });
  }
  const result = await sim.run();
  return { out, result };
}

const draw = (n) => () => Array.from({ length: n }, () => Math.random());

describe('shims/math/random', () => {
  it('gives the same Math.random sequence for the same seed, across awaits and timers (seed 7, twice)', async () => {
    const main = async () => {
      const values = [Math.random()];
      await new Promise((resolve) => setTimeout(resolve, 10));
      values.push(Math.random());
      await Promise.resolve();
      values.push(Math.random());
      return values;
    };
    const first = await simulate(7, main);
    const second = await simulate(7, main);
    assert.deepEqual(second.out.c, first.out.c);
    assert.equal(new Set(first.out.c).size, 3);
  });

  it('gives different sequences for different seeds (seeds 7 and 8)', async () => {
    const a = await simulate(7, draw(5));
    const b = await simulate(8, draw(5));
    assert.notDeepEqual(a.out.c, b.out.c);
  });

  it('draws from [0, 1) with a plausible mean (10,000 draws, seed 3)', async () => {
    const { out } = await simulate(3, draw(10_000));
    assert.ok(out.c.every((x) => typeof x === 'number' && x >= 0 && x < 1));
    const mean = out.c.reduce((sum, x) => sum + x, 0) / out.c.length;
    // Standard deviation of the mean is about 0.003.
    assert.ok(Math.abs(mean - 0.5) < 0.02, `mean ${mean}`);
    assert.ok(new Set(out.c).size > 9_990);
  });

  it('gives each host its own stream, unaffected by other hosts and by crypto draws (seed 9)', async () => {
    const alone = await simulate(9, draw(4), ['a']);
    const busy = await simulate(9, (name) => {
      // b boots first and draws a lot; a draws crypto bytes before Math.random.
      if (name === 'b') draw(1000)();
      else crypto.randomBytes(64);
      return draw(4)();
    }, ['b', 'a']);
    assert.deepEqual(busy.out.a, alone.out.a);
    assert.notDeepEqual(busy.out.b, busy.out.a);
  });

  it('keeps the real Math.random outside hosts during a run, without touching host streams (seed 11)', async () => {
    const quiet = await simulate(11, draw(3));
    let hostValues;
    const sim = new Sim({ seed: 11 });
    sim.client('c', () => {
      hostValues = draw(3)();
    });
    const running = sim.run();
    // Installed now, and this code is outside every host.
    assert.notEqual(Math.random, REAL_RANDOM);
    const outside = draw(3)();
    await running;
    assert.deepEqual(hostValues, quiet.out.c);
    assert.ok(outside.every((x) => x >= 0 && x < 1));
    // Two runs of the same seed cannot both reproduce real randomness: these differ from the host's.
    assert.notDeepEqual(outside, hostValues);
  });

  it('keeps name and length, and restores the exact property after a run (seed 13)', async () => {
    let during;
    const { out } = await simulate(13, () => {
      during = Object.getOwnPropertyDescriptor(Math, 'random');
      return [Math.random.name, Math.random.length];
    });
    assert.deepEqual(out.c, [REAL_RANDOM.name, REAL_RANDOM.length]);
    assert.notEqual(during.value, REAL_RANDOM);
    assert.deepEqual(
      { ...during, value: undefined },
      { ...REAL_DESCRIPTOR, value: undefined },
      'the simulated property has the same attributes',
    );
    const after = Object.getOwnPropertyDescriptor(Math, 'random');
    assert.equal(after.value, REAL_RANDOM);
    assert.deepEqual(after, REAL_DESCRIPTOR);
  });
});
