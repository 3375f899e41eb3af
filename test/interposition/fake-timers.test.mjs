/**
 * A test's fake timers around a simulation. @sinonjs/fake-timers (sinon's install(), Jest's
 * jest.useFakeTimers(), Vitest's vi.useFakeTimers()) replaces the timer functions, Date,
 * performance, process.nextTick and hrtime, queueMicrotask and Intl of the global it is given;
 * during sim.run() host code must see the simulation's clock and scheduling whatever the test
 * faked, the run must be the run without fakes, and afterwards the test's fakes must be exactly
 * as they were and keep working. In Node's realm (sinon, Vitest's forks and threads pools), in a
 * Jest-like vm context (test/support/sandbox.cjs; Jest installs the fakes on the test file's
 * context and its copy of process, as here), and with the fakes installed before dst-runtime
 * is loaded at all (a child process).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import FakeTimers from '@sinonjs/fake-timers';
import { Sim } from 'dst-runtime';

const require = createRequire(import.meta.url);
// Taken before any fake or simulation: the test's own real clock and timer.
const realSetTimeout = globalThis.setTimeout;
const realNow = Date.now;
const OBSERVE = fileURLToPath(new URL('../support/fake-timers-observe.cjs', import.meta.url));
const FAKES_FIRST = fileURLToPath(new URL('./fixtures/fake-timers-first.mjs', import.meta.url));
const { observe } = require(OBSERVE);
const { createSandbox } = require('../support/sandbox.cjs');

/** What each runner fakes by default, as @sinonjs/fake-timers' install() options. */
const CONFIGS = {
  // sinon's install() and Jest's jest.useFakeTimers(): every API, Intl included.
  'every API (sinon, jest.useFakeTimers())': undefined,
  // jest.useFakeTimers({ doNotFake: ['Intl'] })
  "every API but Intl (Jest's doNotFake: ['Intl'])": {
    toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'Date', 'hrtime', 'nextTick', 'performance', 'queueMicrotask'],
  },
  // vi.useFakeTimers(): every API but nextTick and queueMicrotask.
  "every API but nextTick and queueMicrotask (Vitest's default)": {
    toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'Date', 'hrtime', 'performance', 'Intl'],
  },
};

const TIMER_NAMES = ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval'];

function describeProps(target, keys) {
  return keys.map((key) => [key, Object.getOwnPropertyDescriptor(target, key)]);
}

/** The APIs `config` fakes, of those withGlobal(global) can fake. */
function faked(config, global) {
  return config?.toFake ?? Object.keys(FakeTimers.withGlobal(global).timers);
}

/**
 * Own property descriptors of every slot the fakes replace in a realm (functions compare by
 * identity under deepStrictEqual): what must be exactly as the test left it after a run.
 */
function fakedSlots(global, proc) {
  const slots = {
    global: describeProps(global, [...TIMER_NAMES, 'Date', 'performance', 'queueMicrotask', 'Intl']),
    process: describeProps(proc, ['nextTick', 'hrtime']),
    Intl: describeProps(global.Intl, ['DateTimeFormat']),
    'Date (the fake)': describeProps(global.Date, ['now']),
  };
  if (global === globalThis) {
    slots['node:timers'] = describeProps(require('node:timers'), TIMER_NAMES);
    slots['node:timers/promises'] = describeProps(require('node:timers/promises'), ['setTimeout', 'setImmediate', 'setInterval']);
    slots['perf_hooks.performance'] = describeProps(require('node:perf_hooks').performance, ['now']);
  }
  return slots;
}

/**
 * The fake clock still works after the run: a fake timer and a fake tick the test queued before
 * the run fire on clock.tick(), not before, and Date, performance.now() and Intl read the fake
 * clock. `global` and `proc` are the realm's global and process the fakes were installed on.
 */
function assertFakesWork(clock, global, proc, queued, fakes) {
  assert.deepEqual(queued, [], 'a fake timer of the test fired during the run');
  const startMs = clock.now;
  clock.tick(100);
  assert.deepEqual(queued, fakes.includes('nextTick') ? ['tick', 'timeout'] : ['timeout']);
  assert.equal(global.Date.now(), startMs + 100);
  assert.equal(global.performance.now(), 100);
  if (fakes.includes('Intl')) {
    assert.equal(new global.Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'medium' }).format(), 'Jan 1, 1970');
  }
  if (fakes.includes('nextTick')) assert.equal(proc.nextTick.clock, clock);
}

describe("a test's fake timers (@sinonjs/fake-timers) around a simulation", function () {
  this.timeout(60_000);
  let baseline;
  before(async () => {
    baseline = await observe();
    assert.equal(baseline.stopReason, 'clients-done');
    assert.equal(baseline.seen.length, 3);
  });

  describe("in Node's realm (sinon's install(), Vitest's forks and threads pools)", () => {
    for (const [name, config] of Object.entries(CONFIGS)) {
      it(`${name}: host code sees the simulation's clock and scheduling, the run is the run without fakes, and the fakes are as they were after it`, async () => {
        const fakes = faked(config, globalThis);
        const clock = FakeTimers.install(config);
        const queued = [];
        let got;
        let before;
        let after;
        try {
          setTimeout(() => queued.push('timeout'), 100);
          if (fakes.includes('nextTick')) process.nextTick(() => queued.push('tick'));
          before = fakedSlots(globalThis, process);
          got = await observe();
          after = fakedSlots(globalThis, process);
          assertFakesWork(clock, globalThis, process, queued, fakes);
        } finally {
          clock.uninstall();
        }
        assert.deepEqual(got, baseline);
        assert.deepEqual(after, before);
      });
    }
  });

  it("a fake clock that moves itself (shouldAdvanceTime, Jest's advanceTimers: true) stands still during the run: none of its timers run then, or become real ones", async () => {
    // Found by a probe (2026-12-05): its real interval ticked the fake clock during the run, the
    // fake callbacks ran outside every host, and the timers they armed were real: they ran on
    // after the test's uninstall() (Jest never exited).
    const clock = FakeTimers.install({ shouldAdvanceTime: true, advanceTimeDelta: 5 });
    const fakeSetTimeout = globalThis.setTimeout;
    const seen = { fake: 0, other: 0 };
    const chain = () => {
      if (globalThis.setTimeout === fakeSetTimeout) seen.fake++;
      else seen.other++;
      setTimeout(chain, 1);
    };
    let duringRun;
    let afterUninstall;
    try {
      setTimeout(chain, 1);
      const sim = new Sim({ seed: 0xfa4e });
      // A run that takes real time: the clock's interval fires many times meanwhile.
      sim.client('busy', async () => {
        // Many events: the driver lets Node's loop (and the clock's interval) run between batches.
        const until = realNow() + 100;
        while (realNow() < until) await new Promise((resolve) => setImmediate(resolve));
      });
      await sim.run();
      duringRun = { ...seen };
    } finally {
      clock.uninstall();
    }
    const count = seen.fake + seen.other;
    await new Promise((resolve) => realSetTimeout(resolve, 50));
    afterUninstall = seen.fake + seen.other - count;
    assert.deepEqual({ duringRun, afterUninstall }, { duringRun: { fake: 0, other: 0 }, afterUninstall: 0 });
  });

  it('after runs over fakes, host code still sees the names and lengths of Node\'s Date, timers and queueMicrotask', async () => {
    // One stand-in serves every realm: it once took the name of the fake it replaced (sinon's
    // Date is the class ClockDate), for the rest of the process.
    const signature = () => [Date, setTimeout, setImmediate, queueMicrotask, process.nextTick].map((f) => `${f.name}/${f.length}`);
    const plain = signature();
    const clock = FakeTimers.install();
    try {
      await observe();
    } finally {
      clock.uninstall();
    }
    let seen;
    const sim = new Sim({ seed: 0x5e });
    sim.client('c', () => {
      seen = signature();
    });
    await sim.run();
    assert.deepEqual(seen, plain);
    assert.deepEqual(signature(), plain);
  });

  describe('in a Jest-like vm context (the fakes on its global and its copy of process)', () => {
    for (const [name, config] of Object.entries(CONFIGS)) {
      // jest.useFakeTimers() in a test, after the test file loaded dst-runtime; and Jest's
      // fakeTimers: { enableGlobally: true }, which fakes the context before the file loads.
      for (const when of ['after the test file loaded dst-runtime', 'before (enableGlobally)']) {
        it(`${name}, installed ${when}: the run without fakes, and the fakes as they were after it`, async () => {
          const box = createSandbox({ processCopy: true });
          const fakes = faked(config, box.global);
          const install = () => FakeTimers.withGlobal(box.global).install(config);
          let clock = when.startsWith('before') ? install() : undefined;
          const { observe: observeInBox } = box.require(OBSERVE);
          clock ??= install();
          const queued = [];
          let got;
          let before;
          let after;
          try {
            box.global.setTimeout(() => queued.push('timeout'), 100);
            if (fakes.includes('nextTick')) box.process.nextTick(() => queued.push('tick'));
            before = fakedSlots(box.global, box.process);
            got = await observeInBox();
            after = fakedSlots(box.global, box.process);
            assertFakesWork(clock, box.global, box.process, queued, fakes);
          } finally {
            clock.uninstall();
          }
          // JSON: the context's arrays and objects are of its own realm.
          assert.deepEqual(JSON.parse(JSON.stringify(got)), baseline);
          assert.deepEqual(after, before);
        });
      }
    }
  });

  describe('in a Jest-like vm context, a stand-in with no built-in behind it', () => {
    it('Date: sim.run() fails with a UsageError naming it and what to do, and leaves every global as it was', async () => {
      const box = createSandbox({ processCopy: true });
      const { observe: observeInBox } = box.require(OBSERVE);
      const RealDate = box.global.Date;
      box.global.Date = function Date() {};
      const before = [fakedSlots(box.global, box.process), fakedSlots(globalThis, process)];
      await assert.rejects(observeInBox(), (error) => {
        assert.equal(error.name, 'UsageError');
        assert.equal(error.code, 'DST_USAGE');
        assert.match(error.message, /^Failed to simulate Date in the test file's vm context: its Date is a stand-in that is neither Date nor a class extending it/);
        assert.match(error.message, /put the built-in back before sim\.run\(\) \(for fake timers: call jest\.useRealTimers\(\), vi\.useRealTimers\(\) or clock\.uninstall\(\)\)/);
        return true;
      });
      assert.deepEqual([fakedSlots(box.global, box.process), fakedSlots(globalThis, process)], before);
      box.global.Date = RealDate;
      assert.deepEqual(JSON.parse(JSON.stringify(await observeInBox())), baseline);
    });

    it("Intl.DateTimeFormat (a spy, say): host code gets Node's, simulated, and the stand-in is back after the run", async () => {
      const box = createSandbox({ processCopy: true });
      const { observe: observeInBox } = box.require(OBSERVE);
      const RealDateTimeFormat = box.global.Intl.DateTimeFormat;
      const spy = function DateTimeFormat() {};
      box.global.Intl.DateTimeFormat = spy;
      try {
        assert.deepEqual(JSON.parse(JSON.stringify(await observeInBox())), baseline);
        assert.equal(box.global.Intl.DateTimeFormat, spy);
      } finally {
        box.global.Intl.DateTimeFormat = RealDateTimeFormat;
      }
    });
  });

  describe('installed before dst-runtime is loaded (a fresh process)', () => {
    for (const [name, config] of Object.entries(CONFIGS)) {
      it(`${name}: dst-runtime loads, its run is the run without fakes, and a builtin first loaded in a host holds Node's timers`, () => {
        const { status, stdout, stderr } = spawnSync(process.execPath, [FAKES_FIRST, JSON.stringify(config ?? null)], { encoding: 'utf8', timeout: 60_000 });
        assert.equal(status, 0, stderr);
        const { got, fakesWork, escapeMs } = JSON.parse(stdout);
        assert.deepEqual(got, baseline);
        assert.equal(fakesWork, true);
        // readline's ESC timeout, 500 ms of virtual time, as without fakes (test/net/builtins-load-order.test.mjs).
        assert.equal(escapeMs, 500);
      });
    }
  });
});
