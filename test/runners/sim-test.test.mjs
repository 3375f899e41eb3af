// defineSimTest with a stand-in runner that records what it is asked to define and runs it: the
// shape every integration (dst-runtime/vitest, /jest, /node-test, /mocha) relies on. The real
// runners run the same through their integrations in projects.test.mjs.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { defineSimTest, defineScenario, Sim, SimulationError } from 'dst-runtime';

/** A runner that keeps the tests it is asked to define; run(i, test) runs one. */
function standIn() {
  const defined = [];
  const simTest = defineSimTest({
    name: 'stand-in',
    define(name, mode, timeoutMs, run) {
      defined.push({ name, mode, timeoutMs, run });
    },
  });
  return { simTest, defined };
}

async function outcome(promise) {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}

describe('simTest (defineSimTest with a stand-in runner)', function () {
  this.timeout(60_000);

  it('defines one test per seed, "name (seed 0x1)", in the mode and with the timeout asked; DST_SEEDS pins the seeds', () => {
    const { simTest, defined } = standIn();
    assert.deepEqual(simTest('a', () => {}, { seeds: [1, 0x2a] }), ['0x1', '0x2a']);
    simTest.only('b', () => {}, { seeds: [3], timeout: 500 });
    simTest.skip('c', () => {}, { seeds: [4] });
    simTest('d', () => {}, { seeds: [1, 2, 3], env: { DST_SEEDS: '0x9' } });
    assert.deepEqual(
      defined.map(({ name, mode, timeoutMs }) => [name, mode, timeoutMs]),
      [
        ['a (seed 0x1)', 'run', undefined],
        ['a (seed 0x2a)', 'run', undefined],
        ['b (seed 0x3)', 'only', 500],
        ['c (seed 0x4)', 'skip', undefined],
        ['d (seed 0x9)', 'run', undefined],
      ],
    );
  });

  it('gives the body a Sim with the seed and the options, and runs it when the body did not: the same run as a plain Sim', async () => {
    const { simTest, defined } = standIn();
    const seen = [];
    const body = (sim) => {
      sim.client('c', async () => {
        await sleep(1 + Math.floor(Math.random() * 100));
        seen.push(Date.now());
      });
    };
    simTest('runs', ({ sim, seed, signal, context }) => {
      assert.equal(seed, '0x7');
      assert.equal(sim.seed, '0x7');
      assert.equal(signal.aborted, false);
      assert.equal(context, 'ctx');
      body(sim);
    }, { seeds: [7], epochMs: 1_000_000 });
    await defined[0].run({ context: 'ctx' });
    const plain = new Sim({ seed: 7, epochMs: 1_000_000 });
    body(plain);
    await plain.run();
    assert.equal(seen.length, 2);
    assert.equal(seen[0], seen[1]);
    assert.ok(seen[0] > 1_000_000);
  });

  it('a failing body fails its test with the seed, the replay line and the error as cause; the stack keeps the frame it was thrown at', async () => {
    const { simTest, defined } = standIn();
    simTest('fails', async ({ sim }) => {
      sim.client('c', () => sleep(5));
      const result = await sim.run();
      assert.equal(result.elapsedNs, 0, 'took time');
    }, { seeds: [5], replay: (seed) => `rerun ${seed}` });
    const { error } = await outcome(defined[0].run({ context: undefined }));
    assert.equal(error?.name, 'SimTestFailure');
    assert.match(error.message, /^simTest "fails" failed on seed 0x5: AssertionError: took time\n {2}replay: rerun 0x5$/);
    assert.equal(error.seed, '0x5');
    assert.equal(error.replay, 'rerun 0x5');
    assert.equal(error.cause?.name, 'AssertionError');
    assert.match(error.stack, /^SimTestFailure: [^]*\n {4}at .*sim-test\.test\.mjs:\d+:\d+\)?$/);
    assert.equal(Sim.running(), undefined);
  });

  it('the runner\'s signal stops the seed\'s simulation; the globals are Node\'s again when the test\'s promise settles', async () => {
    const { simTest, defined } = standIn();
    simTest('busy', ({ sim }) => {
      sim.host('h', () => setInterval(() => {}, 1));
    }, { seeds: [6] });
    const controller = new AbortController();
    const realDate = Date;
    const running = defined[0].run({ context: undefined, signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    setTimeout(() => controller.abort(new Error('the runner timed the test out')), 20);
    const { error } = await outcome(running);
    assert.ok(error instanceof SimulationError);
    assert.equal(error.name, 'AbortError');
    assert.equal(error.report.kind, 'aborted');
    assert.match(error.message, /stand-in aborted the test's signal \(the test timed out or the run was cancelled\): Error: the runner timed the test out/);
    assert.match(error.message, /replay {3}DST_SEEDS=0x6 /);
    assert.equal(Date, realDate);
    assert.equal(Sim.running(), undefined);
  });

  it('stops a seed a little before the runner\'s timeout, with a TimeoutError that names the seed', async () => {
    const { simTest, defined } = standIn();
    simTest('forever', ({ sim }) => {
      sim.host('h', () => setInterval(() => {}, 1));
    }, { seeds: [8] });
    const { error } = await outcome(defined[0].run({ context: undefined, timeoutMs: 500 }));
    assert.equal(error?.report?.kind, 'aborted');
    assert.match(error.message, /TimeoutError: stand-in's timeout of 500 ms for this test is 50 ms away: dst-runtime stopped the simulation first/);
    assert.match(error.message, /\n {2}seed {5}0x8\n/);
    assert.equal(Sim.running(), undefined);
  });

  it('runs a scenario per seed; a failing seed fails with its report', async () => {
    const { simTest, defined } = standIn();
    const scenario = defineScenario({
      name: 'one client',
      durationMs: 1000,
      hosts(sim) {
        sim.client('c', async () => {
          await sleep(10);
          if (Math.random() < 2) throw new Error('planted');
        });
      },
    });
    simTest('scenario', scenario, { seeds: [1] });
    const { error } = await outcome(defined[0].run({ context: undefined }));
    assert.equal(error?.name, 'ScenarioSeedFailure');
    assert.match(error.message, /failed on seed 0x1: crash: .*planted/);
  });

  it('refuses what it cannot run, at the definition, naming the test', () => {
    const { simTest, defined } = standIn();
    const scenario = defineScenario({ name: 's', durationMs: 1000, hosts() {} });
    assert.throws(() => simTest('', () => {}), /its name must be a non-empty string/);
    assert.throws(() => simTest('x', 'body'), /Failed to define simulation test "x": pass a function \(\{ sim, seed \}\) => \.\.\. or a scenario/);
    assert.throws(() => simTest('x', () => {}, null), /options must be an object/);
    assert.throws(() => simTest('x', () => {}, { timeout: -1 }), /timeout must be a number of milliseconds, got -1/);
    assert.throws(() => simTest('x', scenario, { durationMs: 5 }), /a scenario sets its own simulation options; durationMs cannot be given here/);
    assert.throws(() => simTest('x', () => {}, { swarm: true }), /swarm needs a scenario/);
    assert.throws(() => simTest('x', () => {}, { eventsMax: 'many' }), /eventsMax/);
    assert.throws(() => simTest('x', () => {}, { seeds: ['nope'] }), /nope/);
    assert.equal(defined.length, 0);
  });
});
