/**
 * What Node's own modules take from node:timers when they load, and what becomes of the real
 * Timeouts they make inside a host (shims/builtin-captures.ts, shims/timers/node-timeouts.ts).
 * A Node module is emulated by code compiled with a `node:` file name: its top level called from
 * a function named compileForInternalLoader, as Node's BuiltinModule loads one; the real
 * functions are node:timers' own, taken before any simulation (as a module loaded early holds them).
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import vm from 'node:vm';
import { Sim } from 'dst-runtime';

const require = createRequire(import.meta.url);
const timers = require('node:timers');
const real = { setTimeout: timers.setTimeout, setInterval: timers.setInterval, clearTimeout: timers.clearTimeout, clearInterval: timers.clearInterval };

/** Reads node:timers' setTimeout as a Node module's top level does when it loads. */
const topLevel = vm.compileFunction("return require('timers').setTimeout;", ['require'], { filename: 'node:internal/dst-fake' });
function compileForInternalLoader() {
  return topLevel(require);
}
/** The same code, called by anything else (Node code reading the export per call). */
function laterCall() {
  return topLevel(require);
}
/** Calls `fn(...args)` from a frame in a `node:` file, as Node's modules call what they captured. */
const fromNode = vm.compileFunction('return fn(...args);', ['fn', 'args'], { filename: 'node:internal/dst-fake-caller' });

async function inHost(seed, main) {
  const sim = new Sim({ seed });
  let result;
  sim.client('c', async () => {
    result = await main();
  });
  const run = await sim.run();
  return { result, run };
}

describe('timer functions Node modules capture when they load (seed 0x5e)', function () {
  it('a Node module loading during a run gets node:timers’ own setTimeout; program code and later reads get the simulated one', async () => {
    const { result } = await inHost('0x5e', () => ({
      loading: compileForInternalLoader(),
      later: laterCall(),
      program: timers.setTimeout,
      global: globalThis.setTimeout,
    }));
    assert.equal(result.loading, real.setTimeout);
    assert.notEqual(result.program, real.setTimeout, 'the program sees the simulated setTimeout');
    assert.equal(result.program, result.global);
    assert.equal(result.later, result.global);
    assert.equal(timers.setTimeout, real.setTimeout, 'restored after the run');
  });

  it('a value the program assigns to node:timers.setTimeout is what everyone reads until the run ends', async () => {
    const mine = () => 'mine';
    const { result } = await inHost('0x5e', () => {
      timers.setTimeout = mine;
      return { program: timers.setTimeout, loading: compileForInternalLoader() };
    });
    assert.equal(result.program, mine);
    assert.equal(result.loading, mine);
    assert.equal(timers.setTimeout, real.setTimeout);
  });

  it('a real Timeout a Node module makes inside a host fires on virtual time, with its this and arguments', async () => {
    const { result, run } = await inHost('0x5e', async () => {
      const started = Date.now();
      return new Promise((resolve) => {
        const timer = fromNode(real.setTimeout, [function (a, b) { resolve({ afterMs: Date.now() - started, self: this === timer, args: [a, b] }); }, 500, 'a', 'b']);
      });
    });
    assert.deepEqual(result, { afterMs: 500, self: true, args: ['a', 'b'] });
    assert.ok(run.events >= 2);
  });

  it('Node’s own clearTimeout, refresh(), unref() and setInterval reach the adopted timer', async () => {
    const { result } = await inHost('0x5e', async () => {
      const started = Date.now();
      const fired = [];
      const cleared = fromNode(real.setTimeout, [() => fired.push('cleared one fired'), 100]);
      const refreshed = fromNode(real.setTimeout, [() => fired.push(`refreshed@${Date.now() - started}`), 100]);
      const unrefed = fromNode(real.setTimeout, [() => fired.push('unref’d one fired'), 10_000]);
      unrefed.unref();
      let ticks = 0;
      const interval = fromNode(real.setInterval, [() => {
        fired.push(`tick@${Date.now() - started}`);
        if (++ticks === 3) real.clearInterval(interval);
      }, 30]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      real.clearTimeout(cleared);
      refreshed.refresh();
      await new Promise((resolve) => setTimeout(resolve, 200));
      return { fired, refreshedHasRef: refreshed.hasRef(), unrefedHasRef: unrefed.hasRef() };
    });
    assert.deepEqual(result.fired, ['tick@30', 'tick@60', 'tick@90', 'refreshed@150']);
    assert.equal(result.unrefedHasRef, false);
  });

  it('a real Timeout made by program code is not adopted (strict mode names it)', async () => {
    const sim = new Sim({ seed: '0x5e' });
    sim.client('c', () => new Promise((resolve) => real.setTimeout(resolve, 5)));
    await assert.rejects(sim.run(), /real Timeout \(5 ms\)/);
  });
});
