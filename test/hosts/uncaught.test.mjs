import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { always, Sim, SimulationError, STARTUP_MS } from 'dst-runtime';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Exceptions thrown by host code that runs between events (a process.nextTick callback, a
 * queueMicrotask callback) escape the event that scheduled them and reach Node's
 * 'uncaughtException' machinery, not the event's try/catch. Sim.run takes them over for the
 * run: they crash the host whose context threw, never the test runner.
 */
describe('library mode: exceptions thrown from host nextTick and microtask code (seed 0x4a)', () => {
  const snapshot = () => ({
    uncaught: process.rawListeners('uncaughtException'),
    monitor: process.rawListeners('uncaughtExceptionMonitor'),
    rejection: process.rawListeners('unhandledRejection'),
  });

  for (const [how, schedule] of [
    ['process.nextTick', (fn) => process.nextTick(fn)],
    ['queueMicrotask', (fn) => queueMicrotask(fn)],
  ]) {
    it(`a throw in ${how} fails the run with the seed, time, event, host and replay`, async () => {
      const before = snapshot();
      const sim = new Sim({ seed: 0x4a });
      sim.host('quiet', () => setInterval(() => {}, 100));
      sim.host('kv-2', () => {
        setTimeout(() => schedule(() => {
          throw new Error(`lease observed from the future (${how})`);
        }), 250);
      });
      sim.client('c', () => sleep(1_000));
      const error = await sim.run().then(() => undefined, (e) => e);
      assert.ok(error instanceof SimulationError, `expected a SimulationError, got ${error}`);
      const { report } = error;
      assert.equal(report.kind, 'crash');
      assert.equal(report.host, 'kv-2');
      assert.equal(report.incarnation, 1);
      assert.equal(report.seed, '0x4a');
      assert.equal(report.timeNs, 250_000_000);
      assert.ok(report.event > 0);
      assert.match(report.replay, /seed: 0x4a/);
      assert.match(report.summary, new RegExp(`host "kv-2" crashed with an uncaught exception: Error: lease observed from the future \\(${how.replace('.', '\\.')}\\)`));
      assert.match(error.message, /seed {5}0x4a/);
      assert.deepEqual(snapshot(), before, 'process listeners are restored exactly');
    });
  }

  it('the host\'s onCrash policy applies: keep-down leaves it down, restart boots it again', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x4a });
    sim.host('down', () => {
      setTimeout(() => process.nextTick(() => { throw new Error('tick'); }), 10);
      setInterval(() => log.push(`down tick ${performance.now()}`), 20);
    }, { onCrash: 'keep-down' });
    let boots = 0;
    sim.host('phoenix', () => {
      boots++;
      if (boots < 3) setTimeout(() => queueMicrotask(() => { throw new Error('microtask'); }), 5);
    }, { onCrash: 'restart' });
    sim.client('observer', async () => {
      await sleep(100);
      log.push(`down ${sim.status('down').state}, phoenix boot ${sim.status('phoenix').incarnation}`);
    });
    const result = await sim.run();
    assert.equal(result.stopReason, 'clients-done');
    assert.deepEqual(log, ['down crashed, phoenix boot 3']);
    assert.equal(boots, 3);
  });

  it('a host\'s own process.on("uncaughtException") handles a nextTick throw, like Node', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x4a });
    sim.host('resilient', () => {
      process.on('uncaughtException', (error, origin) => log.push(`caught ${error.message} (${origin})`));
      setTimeout(() => process.nextTick(() => { throw new Error('tick'); }), 10);
      setTimeout(() => log.push(`still running at ${performance.now()}`), 20);
    });
    await sim.run();
    assert.deepEqual(log, ['caught tick (uncaughtException)', `still running at ${STARTUP_MS + 20}`]);
  });

  it('a host\'s \'uncaughtException\' listener runs as the host: its clock and timers are simulated', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x4a });
    sim.host('resilient', () => {
      process.on('uncaughtException', (error) => {
        log.push(`caught ${error.message} at ${performance.now()}`);
        setTimeout(() => log.push(`retried at ${performance.now()}`), 5);
      });
      setTimeout(() => { throw new Error('timer'); }, 10);
    });
    const result = await sim.run();
    // Before, the listener ran outside the host (the event's scope had ended): the real clock,
    // and a real timer that outlived the run.
    assert.deepEqual(log, [`caught timer at ${STARTUP_MS + 10}`, `retried at ${STARTUP_MS + 15}`]);
    assert.equal(result.elapsedNs, 15_000_000);
  });

  it('an exception outside every host still reaches the process listeners it reached before', async () => {
    const before = snapshot();
    const seen = [];
    const spy = (error, origin) => seen.push(`${error.message} (${origin})`);
    // Stand in for the test runner: its own listener is the only one during this test.
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', spy);
    try {
      const sim = new Sim({ seed: 0x4a });
      sim.client('c', () => sleep(50));
      const running = sim.run();
      process.nextTick(() => { throw new Error('runner code'); }); // the runner's context, not a host
      await running;
    } finally {
      process.removeListener('uncaughtException', spy);
      for (const listener of before.uncaught) process.on('uncaughtException', listener);
    }
    assert.deepEqual(seen, ['runner code (uncaughtException)']);
    assert.deepEqual(snapshot(), before);
  });

  // Test runners listen for 'unhandledRejection' themselves, each its own way: node:test fails
  // the running test, mocha removes its listener and emits the rejection again. A rejection a
  // host handles with its own listener must reach it once and reach no runner.
  for (const [runner, listener] of [
    ['node:test (records it)', (seen) => (reason) => seen.push(`runner saw ${reason.message}`)],
    [
      'mocha (emits it again)',
      (seen) =>
        function again(reason, promise) {
          seen.push(`runner saw ${reason.message}`);
          process.removeListener('unhandledRejection', again);
          try {
            process.emit('unhandledRejection', reason, promise);
          } finally {
            process.on('unhandledRejection', again);
          }
        },
    ],
  ]) {
    it(`an unhandled rejection reaches the host's own listener once, and not the runner's: ${runner}`, async () => {
      const before = snapshot();
      const seen = [];
      const runnerListener = listener(seen);
      process.removeAllListeners('unhandledRejection');
      process.on('unhandledRejection', runnerListener);
      let result;
      try {
        const sim = new Sim({ seed: 0x4a });
        sim.client('c', async () => {
          process.on('unhandledRejection', (reason) => seen.push(`host saw ${reason.message}`));
          Promise.reject(new Error('rejected'));
          await sleep(10);
        });
        result = await sim.run();
      } finally {
        process.removeAllListeners('unhandledRejection');
        for (const l of before.rejection) process.on('unhandledRejection', l);
      }
      assert.deepEqual(seen, ['host saw rejected']);
      assert.equal(result.stopReason, 'clients-done');
      assert.deepEqual(snapshot(), before);
    });
  }

  it('always() failing in a host\'s async function: the run fails with it, and its rejection reaches no runner (seed 0x4a)', async () => {
    // Found by a probe (2026-12-06): always() fails the run, then throws so that its caller
    // stops; in an async function nobody awaits, that rejects a promise Node reports only after
    // the microtasks of the turn the run ended in, by which time run() had put the runner's
    // listeners back. Node's default made it fatal: the test process exited 1 after the run had
    // reported the failure, and `dst run` of such a scenario exited 1, not 71.
    const before = snapshot();
    const seen = [];
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', (reason) => seen.push(`runner saw ${reason.message}`));
    let error;
    try {
      const sim = new Sim({ seed: 0x4a });
      sim.host('h', () => {
        async function check() {
          await sleep(5);
          always(false, 'planted in an async function');
        }
        check();
      });
      error = await sim.run().then(() => undefined, (e) => e);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.removeAllListeners('unhandledRejection');
      for (const l of before.rejection) process.on('unhandledRejection', l);
    }
    assert.ok(error instanceof SimulationError, `expected a SimulationError, got ${error}`);
    assert.equal(error.report.kind, 'safety');
    assert.equal(error.report.timeNs, 5_000_000);
    assert.deepEqual(seen, []);
    assert.deepEqual(snapshot(), before);
  });

  for (const [what, addHost] of [
    ["a crash policy of restart", (sim, main) => sim.host('h', main, { onCrash: 'restart' })],
    ["a crash policy of keep-down", (sim, main) => sim.host('h', main, { onCrash: 'keep-down' })],
    [
      "the host's own 'uncaughtException' listener (log and go on)",
      (sim, main) => sim.host('h', () => {
        process.on('uncaughtException', () => {});
        main();
      }),
    ],
  ]) {
    it(`a broken always() fails the run whatever the host does with exceptions: ${what}`, async () => {
      // Found 2026-12-06: failed() gave a SafetyViolation to the host's listener and crash policy
      // as any exception, so the violation restarted the host, or was logged, and the run passed.
      const sim = new Sim({ seed: 0x4a });
      addHost(sim, () => setTimeout(() => always(false, 'planted'), 5));
      sim.client('c', () => sleep(50));
      const error = await sim.run().then(() => undefined, (e) => e);
      assert.ok(error instanceof SimulationError, `expected a SimulationError, got ${error}`);
      assert.equal(error.report.kind, 'safety');
      assert.equal(error.report.summary, 'host "h" broke a safety property: SafetyViolation: always: planted');
      assert.equal(error.report.timeNs, 5_000_000);
    });
  }

  it('the same in a process with no listener of its own: the run fails and the process goes on', () => {
    const script = [
      "import { Sim, always } from 'dst-runtime';",
      'const sim = new Sim({ seed: 0x4a });',
      "sim.host('h', () => { (async () => { await new Promise((r) => setTimeout(r, 5)); always(false, 'planted'); })(); });",
      "await sim.run().then(() => console.log('passed'), (e) => console.log(`failed: ${e.report.kind}`));",
      'await new Promise((r) => setTimeout(r, 20));',
      "console.log('went on');",
    ].join('\n');
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: new URL('.', import.meta.url) });
    assert.equal(out, 'failed: safety\nwent on\n');
  });

  it('Node fact: on 20 and 22 a queueMicrotask throw reaches "uncaughtException" without its async context (24 keeps it)', () => {
    const program = `
      const { AsyncLocalStorage } = require('node:async_hooks');
      const als = new AsyncLocalStorage();
      const seen = [];
      process.on('uncaughtException', (e) => seen.push(e.message + ':' + als.getStore()));
      process.on('exit', () => console.log(seen.join(' ')));
      als.run('H', () => {
        setTimeout(() => queueMicrotask(() => { throw new Error('microtask'); }), 1);
        setTimeout(() => process.nextTick(() => { throw new Error('tick'); }), 2);
      });`;
    const out = execFileSync(process.execPath, ['-e', program]).toString().trim();
    const major = Number(process.versions.node.split('.')[0]);
    assert.equal(out, major >= 24 ? 'microtask:H tick:H' : 'microtask:undefined tick:H');
  });
});
