// simTest and the runners' timeouts, the same under every runner (test/runners/lab.sh runs
// run.mjs, which checks what each run printed and recorded). Each runner's sim.test file passes
// dst-runtime, its integration's simTest, and `test(name, fn, timeoutMs)`, a plain test whose
// `fn` gets `{ signal }` where a plain test must pass the runner's signal on (node:test's
// t.signal). LAB_KIND picks the tests: 'simtest' (default), 'replay' or 'only'.
'use strict';
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const net = require('node:net');
const timersP = require('node:timers/promises');
const { record, ask, makeScenario } = require('./lab.cjs');

// Taken when the test file loads, before any simulation: what "clean" compares with.
const RealDate = Date;
const realSetTimeout = setTimeout;

/** A host that never lets the simulation rest: an immediate loop at one instant, and an interval. */
function busy(sim) {
  sim.host('busy', () => {
    const spin = () => setImmediate(spin);
    spin();
    setInterval(() => {}, 1);
  });
}

/** Two hosts over TCP drawing from every source of randomness and time. */
function counter(sim, answers) {
  sim.host('srv', () => {
    net.createServer((socket) => socket.end(`${Math.random().toFixed(6)} ${Date.now()} ${crypto.randomUUID().slice(0, 8)}`)).listen(7000);
  });
  sim.client('c', async () => {
    for (let i = 0; i < 5; i++) {
      await timersP.setTimeout(1 + Math.floor(Math.random() * 50));
      answers.push(await ask(7000, 'srv'));
    }
  });
}

module.exports = function simTestLab(dst, { simTest, test }) {
  const kind = process.env.LAB_KIND || 'simtest';

  /** After a test that failed or timed out: the globals are the real ones, nothing runs, a new simulation runs. */
  async function cleanCheck(label, extra = {}) {
    await new Promise((resolve) => realSetTimeout(resolve, 50)); // a leftover simulation would have moved on meanwhile
    const realDate = Date === RealDate;
    const running = dst.Sim.running() !== undefined;
    const sim = new dst.Sim({ seed: 9 });
    sim.client('c', () => timersP.setTimeout(1000));
    let next;
    try {
      next = (await sim.run()).elapsedNs;
    } catch (e) {
      next = String(e.message).split('\n')[0];
    }
    record(`clean:${label}`, { realDate, running, next, ...extra });
  }

  if (kind === 'simtest') {
    simTest('counter', async ({ sim, seed }) => {
      const answers = [];
      counter(sim, answers);
      const r = await sim.run();
      record('simTest:counter', { seed, fingerprint: r.fingerprint, events: r.events, answers });
    }, { seeds: [1, 2, 3] });

    simTest('lab-counter scenario', makeScenario(dst), { seeds: [1, 2] });

    simTest.skip('skipped', () => record('skipped ran', true), { seeds: [1] });

    simTest('asserts on its run', async ({ sim }) => {
      sim.client('c', () => timersP.setTimeout(5));
      const r = await sim.run();
      assert.equal(r.stopReason, 'idle', 'the run should have gone idle');
    }, { seeds: [4] });
    test('clean after a failed assertion', () => cleanCheck('assertion'));

    // simTest's guard stops it just before the runner's timeout: the failure names the seed.
    simTest('runs forever', ({ sim }) => busy(sim), { seeds: [5], timeout: 1000 });
    test('clean after the guard', () => cleanCheck('guard'));

    // A plain Sim: the runner's own timeout fails the test; the simulation must stop with it.
    let plainAbort;
    test('a plain Sim cut by the runner\'s timeout', async ({ signal }) => {
      const sim = new dst.Sim({ seed: 6, ...(signal === undefined ? {} : { signal }) });
      busy(sim);
      await sim.run().catch((e) => {
        plainAbort = String(e.message).split('\n')[0];
        throw e;
      });
    }, 1000);
    test('clean after the runner\'s timeout', () => cleanCheck('plain', { aborted: /^dst: run aborted /.test(plainAbort ?? '') }));

    const started = [];
    const endless = dst.defineScenario({
      name: 'endless',
      durationMs: 3_600_000,
      hosts(sim, ctx) {
        started.push(ctx.sim.seed);
        busy(sim);
      },
    });
    test('forEachSeed cut by the runner\'s timeout', ({ signal }) => dst.forEachSeed(endless, { seeds: [1, 2, 3], log() {}, ...(signal === undefined ? {} : { signal }) }), 1000);
    test('clean after forEachSeed, whose later seeds never started', () => cleanCheck('forEachSeed', { started }));
  } else if (kind === 'replay') {
    // Seed 1 passes, seed 2 fails: its replay line must rerun just that seed.
    const bug = makeScenario(dst, { bug: true });
    const recorded = { ...bug, hosts(sim, ctx) {
      record('replay:seed', ctx.sim.seed);
      return bug.hosts(sim, ctx);
    } };
    simTest('planted bug', recorded, { seeds: [1, 2], timeout: 30_000 }); // a loaded machine: not mocha's 2 s
  } else if (kind === 'only') {
    simTest.only('focused', async ({ sim, seed }) => {
      sim.client('c', () => timersP.setTimeout(1));
      await sim.run();
      record('only', `focused ${seed}`);
    }, { seeds: [1, 2] });
    simTest('not focused', () => record('only', 'not focused ran'), { seeds: [1] });
    test('plain', () => record('only', 'plain ran'));
  } else {
    throw new Error(`LAB_KIND=${kind}: expected simtest, replay or only`);
  }
};
