// What one client sees of the simulation's clocks and scheduling: every API a test's fake timers
// (@sinonjs/fake-timers: sinon, Jest's modern timers, Vitest's vi.useFakeTimers) replace, read
// or called by host code. The same run with and without fakes installed must see the same things
// and give the same result (test/interposition/fake-timers.test.mjs, and a Jest project in
// test/runners/projects.test.mjs, which copies this file into it). CommonJS, so that a test
// runner's vm context (test/support/sandbox.cjs, Jest) can evaluate it as its own.
'use strict';
const perfHooks = require('node:perf_hooks');
const { PassThrough } = require('node:stream');
const timers = require('node:timers');
const timersPromises = require('node:timers/promises');
const { Sim } = require('dst-runtime');

/** Runs one client on `seed`; resolves with the run's result and what the client saw. */
async function observe(seed = 0x5) {
  const seen = [];
  const sim = new Sim({ seed });
  sim.client('c', async () => {
    const format = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'medium' });
    // Each global is looked up at the call: a function taken before the run would be the fake.
    const clocks = () => [
      Date.now(),
      new Date().toISOString(),
      performance.now(),
      perfHooks.performance.now(),
      String(process.hrtime.bigint()),
      process.hrtime(),
      process.uptime(),
      format.format(),
      format.formatToParts().map((part) => part.value).join(''),
      new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', timeStyle: 'medium' }).format(),
    ];
    seen.push(clocks());
    // One callback of each kind queued in one turn: the order they ran in, once all have.
    const kinds = {
      timeout: (callback) => setTimeout(callback, 0),
      immediate: (callback) => setImmediate(callback),
      microtask: (callback) => queueMicrotask(callback),
      tick: (callback) => process.nextTick(callback),
      'node:timers setTimeout 3 ms': (callback) => timers.setTimeout(callback, 3),
    };
    const order = [];
    await new Promise((resolve) => {
      for (const [kind, queue] of Object.entries(kinds)) {
        queue(() => order.push(kind) === Object.keys(kinds).length && resolve());
      }
    });
    seen.push(order);
    await timersPromises.setTimeout(10);
    await new Promise((resolve) => process.nextTick(resolve));
    await new Promise((resolve) => queueMicrotask(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // Node's streams read process.nextTick at each call: 'end' comes in a tick.
    await new Promise((resolve) => new PassThrough().on('end', resolve).end('x').resume());
    seen.push(clocks());
  });
  const { fingerprint, events, elapsedNs, stopReason } = await sim.run();
  return { fingerprint, events, elapsedNs, stopReason, seen };
}

module.exports = { observe };
