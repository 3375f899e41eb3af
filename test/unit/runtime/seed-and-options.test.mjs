import assert from 'node:assert/strict';
import { parseSeed, formatSeed, Sim, UsageError } from 'dst-runtime';

describe('seeds', () => {
  it('parses decimal, 0x-hex, numbers and bigints to the same value', () => {
    assert.equal(parseSeed('2671516194'), 0x9f3c1a22n);
    assert.equal(parseSeed('0x9f3c1a22'), 0x9f3c1a22n);
    assert.equal(parseSeed('0X9F3C1A22'), 0x9f3c1a22n);
    assert.equal(parseSeed(0x9f3c1a22), 0x9f3c1a22n);
    assert.equal(parseSeed(0x9f3c1a22n), 0x9f3c1a22n);
    assert.equal(parseSeed('0xffffffffffffffff'), 2n ** 64n - 1n);
  });

  it('formats seeds as lower-case 0x-hex that parses back', () => {
    assert.equal(formatSeed(0x9f3c1a22n), '0x9f3c1a22');
    assert.equal(parseSeed(formatSeed(12345n)), 12345n);
  });

  for (const bad of ['', 'abc', '-1', '1.5', '0x', '0xg1', '1e3', ' 12 34', '0x10000000000000000']) {
    it(`rejects ${JSON.stringify(bad)} with a UsageError naming the source`, () => {
      assert.throws(() => parseSeed(bad, 'DST_SEED'), (error) => {
        assert.ok(error instanceof UsageError);
        assert.equal(error.code, 'DST_USAGE');
        assert.match(error.message, /DST_SEED/);
        return true;
      });
    });
  }

  it('rejects unsafe and negative numbers', () => {
    assert.throws(() => parseSeed(2 ** 60), UsageError);
    assert.throws(() => parseSeed(-3), UsageError);
    assert.throws(() => parseSeed(-1n), UsageError);
  });
});

describe('Sim options', () => {
  it('rejects an unknown option and lists the known ones', () => {
    assert.throws(() => new Sim({ sed: 1 }), /unknown option "sed" \(known: seed,/);
  });

  it('rejects invalid limits with the option name', () => {
    assert.throws(() => new Sim({ seed: 1, eventsMax: 0 }), /eventsMax must be a positive integer/);
    assert.throws(() => new Sim({ seed: 1, timeLimitMs: -5 }), /timeLimitMs must be a positive number/);
    assert.throws(() => new Sim({ seed: 1, durationMs: 'soon' }), /durationMs must be a positive number/);
  });

  it('takes DST_SEED from the environment when no seed option is given', () => {
    const saved = process.env.DST_SEED;
    process.env.DST_SEED = '0x2a';
    try {
      assert.equal(new Sim().seed, '0x2a');
      assert.equal(new Sim({ seed: 7 }).seed, '0x7');
      process.env.DST_SEED = 'nope';
      assert.throws(() => new Sim(), /Failed to parse DST_SEED/);
    } finally {
      if (saved === undefined) delete process.env.DST_SEED;
      else process.env.DST_SEED = saved;
    }
  });

  it('refuses duplicate host names and non-function mains', () => {
    const sim = new Sim({ seed: 1 });
    sim.host('a', () => {});
    assert.throws(() => sim.host('a', () => {}), /a host with that name already exists/);
    assert.throws(() => sim.client('b', 'main.js'), /main must be a function/);
  });

  it('runs once', async () => {
    const sim = new Sim({ seed: 1 });
    sim.client('c', () => {});
    await sim.run();
    await assert.rejects(sim.run(), /a Sim runs once/);
  });

  it('one simulation at a time: a second run while one runs is a usage error that says so; after it, runs go on', async () => {
    const first = new Sim({ seed: 1 });
    first.host('a', () => new Promise((resolve) => setTimeout(resolve, 10)));
    const second = new Sim({ seed: 2 });
    second.host('b', () => {});
    const running = first.run();
    await assert.rejects(second.run(), (error) => {
      assert.ok(error instanceof UsageError);
      assert.equal(error.code, 'DST_USAGE');
      assert.match(error.message, /another simulation \(seed 0x1\) is running in this process; .*await its sim\.run\(\)/);
      return true;
    });
    await running;
    const third = new Sim({ seed: 3 });
    third.client('c', () => {});
    assert.equal((await third.run()).stopReason, 'clients-done');
  });
});
