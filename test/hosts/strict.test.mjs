// Strict mode in library mode: a real timer made by host code (through functions captured
// before dst-runtime was installed) fails the run with the place it was made; the test
// runner's own real timers and unref'd real timers are left alone.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// Captures the real timers: loaded before dst-runtime (imported dynamically below).
const captured = require('./fixtures/strict/captured-timers.cjs');
const { Sim, SimulationError, UsageError } = await import('dst-runtime');

describe('strict mode in library mode (seed 0x51)', () => {
  it('a ref\'d real timer made by host code fails the run, naming the host and the line', async () => {
    const sim = new Sim({ seed: 0x51 });
    sim.host('server', () => {
      setInterval(() => {}, 100); // simulated: fine
      captured.later(() => {}, 5_000); // real: escapes
    });
    sim.client('client', () => new Promise((resolve) => setTimeout(resolve, 1_000)));
    const error = await sim.run().then(() => undefined, (e) => e);
    assert.ok(error instanceof SimulationError, String(error));
    assert.equal(error.report.kind, 'escape');
    assert.equal(error.report.host, 'server');
    assert.match(error.report.summary, /strict mode: a real Timeout \(5000 ms\) made by host "server" escaped the simulation/);
    assert.match(String(error.report.error.message), /at test\/hosts\/fixtures\/strict\/captured-timers\.cjs:\d+:\d+\n {4}from test\/hosts\/strict\.test\.mjs:\d+:\d+/);
    assert.match(error.message, /seed {5}0x51/);
  });

  it('unref\'d real timers, real timers of the test runner, and { strict: false } pass', async () => {
    const runnerTimer = setTimeout(() => {}, 60_000); // the test runner's own: not host code
    try {
      const sim = new Sim({ seed: 0x51 });
      sim.host('server', () => {
        captured.every(() => {}, 50).unref(); // does not hold the loop
        const cleared = captured.later(() => {}, 50);
        clearTimeout(cleared);
      });
      sim.client('client', () => new Promise((resolve) => setTimeout(resolve, 1_000)));
      const result = await sim.run();
      assert.equal(result.stopReason, 'clients-done');

      const lax = new Sim({ seed: 0x51, strict: false });
      let real;
      lax.host('server', () => {
        real = captured.later(() => {}, 5_000);
      });
      lax.client('client', () => new Promise((resolve) => setTimeout(resolve, 1_000)));
      assert.equal((await lax.run()).stopReason, 'clients-done');
      clearTimeout(real);
    } finally {
      clearTimeout(runnerTimer);
    }
  });

  it('the trap is gone after the run, and strict must be a boolean', async () => {
    const sim = new Sim({ seed: 0x51 });
    sim.client('c', () => {});
    await sim.run();
    const probe = setTimeout(() => {}, 1);
    clearTimeout(probe);
    assert.equal(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(probe), '_idleTimeout'), undefined);
    assert.throws(() => new Sim({ strict: 'yes' }), (e) => e instanceof UsageError && /strict must be true or false/.test(e.message));
  });
});
