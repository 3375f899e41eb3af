import assert from 'node:assert/strict';
import { Sim, STARTUP_MS } from 'dst-runtime';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const EPOCH_MS = Date.UTC(2025, 0, 1);

/** Every clock a host can read, at once. */
function clocks() {
  return {
    date: Date.now(),
    perf: performance.now(),
    hrtimeNs: process.hrtime.bigint(),
    uptime: process.uptime(),
    timeOrigin: performance.timeOrigin,
  };
}

describe('Sim.setClock: changing a running host\'s clock (seed 0xc1)', () => {
  it('skewMs jumps the wall clock (forwards and back); the monotonic clocks and timeOrigin do not move', async () => {
    const seen = [];
    const sim = new Sim({ seed: 0xc1 });
    sim.host('n1', () => {
      setInterval(() => seen.push(clocks()), 100);
    }, { skewMs: 250 });
    sim.client('operator', async () => {
      await sleep(150);
      sim.setClock('n1', { skewMs: 60_000 }); // an NTP step forwards
      await sleep(100);
      sim.setClock('n1', { skewMs: -5_000 }); // and a large step backwards
      await sleep(100);
    });
    await sim.run();
    assert.deepEqual(seen.map((c) => c.date - EPOCH_MS), [100 + 250, 200 + 60_000, 300 - 5_000]);
    // The monotonic clocks count from the process's start, STARTUP_MS before its program.
    assert.deepEqual(seen.map((c) => c.perf), [100, 200, 300].map((ms) => STARTUP_MS + ms));
    assert.deepEqual(seen.map((c) => c.uptime), [100, 200, 300].map((ms) => (STARTUP_MS + ms) / 1000));
    assert.deepEqual(seen.map((c) => c.hrtimeNs - seen[0].hrtimeNs), [0n, 100_000_000n, 200_000_000n]);
    assert.deepEqual(seen.map((c) => c.timeOrigin), [1, 2, 3].map(() => EPOCH_MS + 250 - STARTUP_MS));
  });

  it('driftPpm changes how fast every clock of the host runs from now on, without a jump; new timers use it', async () => {
    const seen = {};
    const sim = new Sim({ seed: 0xc1 });
    sim.host('n1', () => {
      setTimeout(() => {
        seen.atChange = clocks();
        sim.setClock('n1', { driftPpm: 100_000 }); // 10% fast from 1 s on
        seen.afterChange = clocks();
        const t0 = process.hrtime.bigint();
        setTimeout(() => {
          seen.timer = { localNs: process.hrtime.bigint() - t0, clocks: clocks() };
        }, 1_100); // 1.1 s on the host's clock: 1 s of virtual time
      }, 1_000);
    });
    sim.client('reference', async () => {
      await sleep(2_500);
      seen.referenceAtEnd = performance.now();
      sim.setClock('n1', { driftPpm: 0 });
    });
    const result = await sim.run();
    assert.deepEqual(seen.afterChange, seen.atChange, 'no clock jumps when the drift changes');
    assert.equal(seen.atChange.perf, STARTUP_MS + 1_000);
    // The timer fired at the first virtual ns where 1.1 s had passed on the host: 1 s virtual.
    assert.equal(seen.timer.localNs, 1_100_000_000n);
    assert.equal(seen.timer.clocks.perf, STARTUP_MS + 2_100);
    assert.equal(seen.timer.clocks.date - EPOCH_MS, 2_100);
    assert.equal(seen.timer.clocks.uptime, (STARTUP_MS + 2_100) / 1000);
    assert.equal(seen.referenceAtEnd, STARTUP_MS + 2_500, 'the other hosts keep virtual time');
    assert.equal(result.elapsedNs, 2_500_000_000);
  });

  it('a timer pending when the drift changes fires when the host\'s clock reaches its deadline', async () => {
    const order = [];
    const sim = new Sim({ seed: 0xc1 });
    sim.host('n1', () => {
      setTimeout(() => order.push(`n1 timeout, local ${performance.now()} ms`), 1_000);
      const interval = setInterval(() => {
        order.push(`n1 tick, local ${performance.now()} ms`);
        if (performance.now() >= 900) clearInterval(interval);
      }, 300);
    });
    sim.client('reference', async () => {
      await sleep(100);
      sim.setClock('n1', { driftPpm: 500_000 }); // 1.5x from 100 ms virtual (= 100 ms local) on
      for (const at of [233, 234, 433, 434, 633, 634, 699, 700, 701]) {
        await sleep(at - (performance.now() - STARTUP_MS));
        order.push(`reference ${at} ms`);
      }
    });
    await sim.run();
    // Local deadlines stay put. The timeout, due at 1000 ms local, is 900 ms local away when
    // the drift changes: 600 ms of virtual time, so it fires at 700 ms virtual. The interval's
    // first tick, due at 300 ms local, comes at the first virtual ns where that much has passed
    // on the host (133,333,334 ns after the change: 300.000001 ms local), and each next one
    // 300 ms local = 200 ms virtual later.
    assert.deepEqual(order, [
      'reference 233 ms',
      `n1 tick, local ${STARTUP_MS + 300.000001} ms`,
      'reference 234 ms',
      'reference 433 ms',
      `n1 tick, local ${STARTUP_MS + 600.000001} ms`,
      'reference 434 ms',
      'reference 633 ms',
      `n1 tick, local ${STARTUP_MS + 900.000001} ms`,
      'reference 634 ms',
      'reference 699 ms',
      `n1 timeout, local ${STARTUP_MS + 1000} ms`,
      'reference 700 ms',
      'reference 701 ms',
    ]);
  });

  it('a host that is down keeps the new clock for its next boot', async () => {
    const boots = [];
    const sim = new Sim({ seed: 0xc1 });
    sim.host('n1', () => {
      boots.push({ date: Date.now() - EPOCH_MS, perf: performance.now() });
    });
    sim.client('operator', async () => {
      await sleep(100);
      sim.crash('n1');
      sim.setClock('n1', { skewMs: 3_600_000 });
      await sleep(100);
      sim.restart('n1');
      await sleep(1);
    });
    await sim.run();
    assert.deepEqual(boots, [{ date: 0, perf: STARTUP_MS }, { date: 200 + 3_600_000, perf: STARTUP_MS }]);
  });

  it('rejects unknown hosts, bad values and calls outside a run with a UsageError naming the problem', async () => {
    const sim = new Sim({ seed: 0xc1 });
    assert.throws(() => sim.setClock('n1', { skewMs: 1 }), { name: 'UsageError', message: /Failed to set the clock of host "n1": the simulation is not running/ });
    sim.host('n1', () => {});
    const errors = [];
    sim.client('c', () => {
      for (const [name, options] of [
        ['nope', { skewMs: 1 }],
        ['n1', { skewMs: 1.5 }],
        ['n1', { skewMs: '5' }],
        ['n1', { driftPpm: Infinity }],
        ['n1', { driftPpm: -1e6 }],
        ['n1', {}],
        ['n1', { skew: 5 }],
        ['n1', null],
      ]) {
        try {
          sim.setClock(name, options);
          errors.push('no error');
        } catch (error) {
          errors.push(`${error.name}: ${error.message}`);
        }
      }
    });
    await sim.run();
    assert.deepEqual(errors, [
      'UsageError: Failed to set the clock of host "nope": no such host (known: n1, c)',
      'UsageError: Failed to set the clock of host "n1": skewMs must be an integer number of ms, got 1.5',
      'UsageError: Failed to set the clock of host "n1": skewMs must be an integer number of ms, got 5',
      'UsageError: Failed to set the clock of host "n1": driftPpm must be a number between -1e6 and 1e6 (parts per million), got Infinity',
      'UsageError: Failed to set the clock of host "n1": driftPpm must be a number between -1e6 and 1e6 (parts per million), got -1000000',
      'UsageError: Failed to set the clock of host "n1": give skewMs, driftPpm or both',
      'UsageError: Failed to set the clock of host "n1": unknown option skew (known: skewMs, driftPpm)',
      'UsageError: Failed to set the clock of host "n1": options must be an object { skewMs?, driftPpm? }, got null',
    ]);
  });

  it('the same seed and the same clock changes replay exactly', async () => {
    const once = async () => {
      const sim = new Sim({ seed: 0xc1 });
      sim.host('n1', () => setInterval(() => Math.random(), 7));
      sim.client('c', async () => {
        await sleep(50);
        sim.setClock('n1', { skewMs: -1_000, driftPpm: -250 });
        await sleep(500);
      });
      return (await sim.run()).fingerprint;
    };
    assert.equal(await once(), await once());
  });
});
