/**
 * Interposition: every way unmodified code can reach timers, clocks and randomness leads to the
 * simulation inside a host (globals, ESM named/default/namespace imports bound before the
 * simulation installed, require, process.getBuiltinModule, util.promisify, timers.promises,
 * AbortSignal.timeout); the identities between those paths are the same as in real Node; and
 * uninstalling puts back exactly what was there, after a good run and after failed ones.
 * Then the same in register mode, plus what register mode does when something escapes or is
 * misconfigured: a late preload (exit 74), a bad DST_SEED (64), a runaway timer (70).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import Module, { createRequire, syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import util from 'node:util';
import { Sim, STARTUP_MS } from 'dst-runtime';
import { current, defaults, namespaces } from './fixtures/esm-imports.mjs';

const require = createRequire(import.meta.url);
const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));
const REGISTER_MJS = path.join(PACKAGE_DIR, 'dist', 'register.mjs');
const REGISTER_CJS = path.join(PACKAGE_DIR, 'dist', 'register.cjs');

const EPOCH_MS = Date.UTC(2025, 0, 1);
const HOUR_MS = 3_600_000;
const TEN_HOURS_MS = 36e6;
const TIMER_NAMES = ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'];

// The real functions, captured when this file loads: no simulation is installed at that point.
const NativeDate = Date;
const REAL = {
  ...Object.fromEntries(TIMER_NAMES.map((n) => [n, globalThis[n]])),
  timersPromisesSetTimeout: require('node:timers/promises').setTimeout,
  randomUUID: require('node:crypto').randomUUID,
  mathRandom: Math.random,
  performanceNow: performance.now,
};
const REAL_BINDINGS = current();

/** The identities between the paths to the timer functions, as observed by the caller. */
function relations() {
  const timers = require('timers');
  const timersPromises = require('timers/promises');
  const crypto = require('crypto');
  return {
    globalIsTimersExport: TIMER_NAMES.map((n) => globalThis[n] === timers[n]),
    timersPromisesIsRequire: timers.promises === timersPromises,
    promisifySetTimeoutIsTimersPromises: util.promisify(setTimeout) === timersPromises.setTimeout,
    promisifySetImmediateIsTimersPromises: util.promisify(setImmediate) === timersPromises.setImmediate,
    getBuiltinModuleIsRequire: ['timers', 'timers/promises', 'crypto', 'perf_hooks'].map(
      (name) => process.getBuiltinModule(`node:${name}`) === require(name),
    ),
    defaultImportIsRequire: defaults.timers === timers && defaults.timersPromises === timersPromises && defaults.crypto === crypto,
    namedImportIsRequire: [
      current().setTimeout === timers.setTimeout,
      current().setInterval === timers.setInterval,
      current().setImmediate === timers.setImmediate,
      current().clearTimeout === timers.clearTimeout,
      current().sleep === timersPromises.setTimeout,
      current().setImmediatePromise === timersPromises.setImmediate,
      current().setIntervalIterator === timersPromises.setInterval,
      current().scheduler === timersPromises.scheduler,
      current().randomUUID === crypto.randomUUID,
      current().randomBytes === crypto.randomBytes,
      current().randomInt === crypto.randomInt,
    ],
    namespaceIsRequire: [
      namespaces.timers.setTimeout === timers.setTimeout,
      namespaces.timersPromises.setTimeout === timersPromises.setTimeout,
      namespaces.crypto.randomUUID === crypto.randomUUID,
    ],
    perfHooksPerformanceIsGlobal: require('perf_hooks').performance === globalThis.performance,
    webcryptoIsGlobalCrypto: crypto.webcrypto === globalThis.crypto,
  };
}
const REAL_RELATIONS = relations();

function describeProps(target, keys = Reflect.ownKeys(target)) {
  return keys.map((key) => [String(key), Object.getOwnPropertyDescriptor(target, key)]);
}

function prototypeChain(target) {
  const chain = [];
  for (let o = Object.getPrototypeOf(target); o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    chain.push(describeProps(o));
  }
  return chain;
}

/**
 * Own property descriptors (in key order) of everything the shims may touch. Functions inside
 * descriptors compare by identity under deepStrictEqual, so a replaced function shows up.
 */
function snapshot() {
  const timers = require('node:timers');
  const timersPromises = require('node:timers/promises');
  const crypto = require('node:crypto');
  const web = globalThis.crypto;
  return {
    globalThis: describeProps(globalThis),
    Math: describeProps(Math),
    Date: describeProps(NativeDate),
    'Date.prototype': describeProps(NativeDate.prototype),
    performance: describeProps(performance),
    'performance prototypes': prototypeChain(performance),
    process: describeProps(process, ['hrtime', 'uptime', 'nextTick', 'emitWarning', 'getBuiltinModule']),
    'process.hrtime': describeProps(process.hrtime),
    AbortSignal: describeProps(AbortSignal),
    'globalThis.crypto': describeProps(web),
    'globalThis.crypto prototypes': prototypeChain(web),
    'node:timers': describeProps(timers),
    'node:timers/promises': describeProps(timersPromises),
    'timers/promises scheduler': describeProps(timersPromises.scheduler),
    'timers/promises scheduler prototypes': prototypeChain(timersPromises.scheduler),
    'node:crypto': describeProps(crypto),
    'real setTimeout own properties (promisify.custom)': describeProps(REAL.setTimeout),
    'ESM namespace node:timers': Object.keys(namespaces.timers).map((k) => [k, namespaces.timers[k]]),
    'ESM namespace node:timers/promises': Object.keys(namespaces.timersPromises).map((k) => [k, namespaces.timersPromises[k]]),
    'ESM namespace node:crypto': Object.keys(namespaces.crypto).map((k) => [k, namespaces.crypto[k]]),
    'ESM named imports': Object.entries(current()),
    'process listeners': ['unhandledRejection', 'uncaughtException', 'uncaughtExceptionMonitor', 'exit', 'warning'].map(
      (event) => [event, process.listeners(event)],
    ),
  };
}

/** Runs one simulation whose client runs `main`; returns the result and what `main` returned. */
async function runClient(seed, main, options = {}) {
  let value;
  const sim = new Sim({ seed, timeLimitMs: 90 * 24 * HOUR_MS, ...options });
  sim.client('client', async () => {
    value = await main();
  });
  const result = await sim.run();
  return { result, value };
}

function clocks() {
  return { perf: performance.now(), date: Date.now(), uptime: process.uptime() };
}

// ---- library mode ---------------------------------------------------------------------------

describe('interposition in library mode (seed 0x1d)', function () {
  it('runs on a Node that has process.getBuiltinModule (20.16+, 22.3+)', function () {
    assert.equal(typeof process.getBuiltinModule, 'function', `process.getBuiltinModule is missing on ${process.version}`);
    assert.equal(process.getBuiltinModule('node:timers'), require('timers'));
  });

  /** Each form sleeps ten hours; inside the host, that is exactly ten hours of virtual time. */
  const TEN_HOUR_SLEEPS = [
    ['global setTimeout', () => new Promise((resolve) => setTimeout(resolve, TEN_HOURS_MS))],
    [
      'global setInterval',
      () =>
        new Promise((resolve) => {
          const interval = setInterval(() => {
            clearInterval(interval);
            resolve();
          }, TEN_HOURS_MS);
        }),
    ],
    ["import { setTimeout } from 'node:timers' (bound before install)", () => new Promise((resolve) => current().setTimeout(resolve, TEN_HOURS_MS))],
    [
      "import { setInterval } from 'node:timers' (bound before install)",
      () =>
        new Promise((resolve) => {
          const interval = current().setInterval(() => {
            current().clearInterval(interval);
            resolve();
          }, TEN_HOURS_MS);
        }),
    ],
    ["import { setTimeout as sleep } from 'node:timers/promises' (bound before install)", () => current().sleep(TEN_HOURS_MS)],
    ["import { scheduler } from 'node:timers/promises': scheduler.wait", () => current().scheduler.wait(TEN_HOURS_MS)],
    [
      "import { setInterval } from 'node:timers/promises': first tick of the iterator",
      async () => {
        for await (const _ of current().setIntervalIterator(TEN_HOURS_MS)) break;
      },
    ],
    ["import timers from 'node:timers'", () => new Promise((resolve) => defaults.timers.setTimeout(resolve, TEN_HOURS_MS))],
    ["import timersPromises from 'node:timers/promises'", () => defaults.timersPromises.setTimeout(TEN_HOURS_MS)],
    ["import * as timers from 'node:timers'", () => new Promise((resolve) => namespaces.timers.setTimeout(resolve, TEN_HOURS_MS))],
    ["require('timers').setTimeout", () => new Promise((resolve) => require('timers').setTimeout(resolve, TEN_HOURS_MS))],
    ["require('node:timers/promises').setTimeout", () => require('node:timers/promises').setTimeout(TEN_HOURS_MS)],
    [
      "process.getBuiltinModule('node:timers').setTimeout",
      () => new Promise((resolve) => process.getBuiltinModule('node:timers').setTimeout(resolve, TEN_HOURS_MS)),
    ],
    ["process.getBuiltinModule('node:timers/promises').setTimeout", () => process.getBuiltinModule('node:timers/promises').setTimeout(TEN_HOURS_MS)],
    ['util.promisify(setTimeout)', () => util.promisify(setTimeout)(TEN_HOURS_MS)],
    ["require('timers').promises.setTimeout", () => require('timers').promises.setTimeout(TEN_HOURS_MS)],
    [
      'AbortSignal.timeout (its timer is unref\'d: a ref\'d timer keeps the host alive)',
      async () => {
        const keepAlive = setTimeout(() => {}, 2 * TEN_HOURS_MS);
        const signal = AbortSignal.timeout(TEN_HOURS_MS);
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        clearTimeout(keepAlive);
        assert.equal(signal.reason.name, 'TimeoutError');
      },
    ],
  ];

  for (const [form, sleepTenHours] of TEN_HOUR_SLEEPS) {
    it(`${form}: a 10-hour sleep takes exactly 10 hours of virtual time`, async function () {
      // Arrange
      const realStartMs = REAL.performanceNow.call(performance);
      // Act
      const { result, value } = await runClient('0x1d', async () => {
        const before = clocks();
        await sleepTenHours();
        return { before, after: clocks() };
      });
      // Assert
      // The monotonic clocks count from the process's start, STARTUP_MS before the program runs.
      assert.deepEqual(value.before, { perf: STARTUP_MS, date: EPOCH_MS, uptime: STARTUP_MS / 1000 });
      assert.deepEqual(value.after, { perf: STARTUP_MS + TEN_HOURS_MS, date: EPOCH_MS + TEN_HOURS_MS, uptime: (STARTUP_MS + TEN_HOURS_MS) / 1000 });
      assert.equal(result.elapsedNs, TEN_HOURS_MS * 1e6);
      assert.ok(REAL.performanceNow.call(performance) - realStartMs < 10_000, 'the sleep took real time');
    });
  }

  it('AbortSignal.timeout aborts at exactly its delay: not 1 ms before, and before a later timer due at that time', async function () {
    const { value } = await runClient('0x1d', async () => {
      const signal = AbortSignal.timeout(TEN_HOURS_MS);
      let abortedAtMs;
      signal.addEventListener('abort', () => (abortedAtMs = performance.now()));
      const checks = [];
      const check = () => checks.push([performance.now(), signal.aborted]);
      setTimeout(check, TEN_HOURS_MS - 1);
      // Created after the signal's timer and due at the same time: runs after it, as in Node.
      await new Promise((resolve) => setTimeout(() => resolve(check()), TEN_HOURS_MS));
      return { checks, abortedAtMs, reason: signal.reason?.name };
    });
    assert.deepEqual(value, {
      checks: [
        [STARTUP_MS + TEN_HOURS_MS - 1, false],
        [STARTUP_MS + TEN_HOURS_MS, true],
      ],
      abortedAtMs: STARTUP_MS + TEN_HOURS_MS,
      reason: 'TimeoutError',
    });
  });

  it('keeps the identities between paths that real Node has (global vs node:timers, promisify, timers.promises, ...)', async function () {
    // Arrange: REAL_RELATIONS were taken outside any simulation, on real Node.
    assert.deepEqual(REAL_RELATIONS.globalIsTimersExport, [true, true, true, true, true, true]);
    // Act
    const { value } = await runClient('0x1d', () => ({
      relations: relations(),
      swapped: TIMER_NAMES.filter((n) => globalThis[n] !== REAL[n]),
    }));
    // Assert: the swap happened, and every identity is as in real Node.
    assert.deepEqual(value.swapped, TIMER_NAMES);
    assert.deepEqual(value.relations, REAL_RELATIONS);
  });

  it('reaches the simulated functions through ESM named imports bound before install (live bindings), and the real ones again after', async function () {
    // Arrange: the fixture's imports were linked when this file loaded.
    assert.deepEqual(current(), REAL_BINDINGS, 'bindings changed before any run');
    assert.equal(REAL_BINDINGS.setTimeout, REAL.setTimeout);
    // Act
    const { value: inside } = await runClient('0x1d', () => current());
    // Assert
    const timers = require('timers');
    const timersPromises = require('timers/promises');
    const crypto = require('crypto');
    for (const [name, real, simulated] of [
      ['setTimeout', REAL_BINDINGS.setTimeout, inside.setTimeout],
      ['setInterval', REAL_BINDINGS.setInterval, inside.setInterval],
      ['setImmediate', REAL_BINDINGS.setImmediate, inside.setImmediate],
      ['clearTimeout', REAL_BINDINGS.clearTimeout, inside.clearTimeout],
      ['timers/promises setTimeout', REAL_BINDINGS.sleep, inside.sleep],
      ['timers/promises setImmediate', REAL_BINDINGS.setImmediatePromise, inside.setImmediatePromise],
      ['timers/promises setInterval', REAL_BINDINGS.setIntervalIterator, inside.setIntervalIterator],
      ['crypto randomUUID', REAL_BINDINGS.randomUUID, inside.randomUUID],
      ['crypto randomBytes', REAL_BINDINGS.randomBytes, inside.randomBytes],
      ['crypto randomInt', REAL_BINDINGS.randomInt, inside.randomInt],
    ]) {
      assert.notEqual(simulated, real, `${name}: the live binding still held the real function during the run`);
    }
    assert.deepEqual(current(), REAL_BINDINGS, 'bindings not restored after the run');
    assert.equal(timers.setTimeout, REAL.setTimeout);
    assert.equal(timersPromises.setTimeout, REAL.timersPromisesSetTimeout);
    assert.equal(crypto.randomUUID, REAL.randomUUID);
  });

  /** Every path to one random function must be the same function: the same first draw. */
  const RANDOM_PATHS = {
    randomUUID: [
      ["import { randomUUID } from 'node:crypto'", () => current().randomUUID()],
      ["import crypto from 'node:crypto'", () => defaults.crypto.randomUUID()],
      ["import * as crypto from 'node:crypto'", () => namespaces.crypto.randomUUID()],
      ["require('crypto')", () => require('crypto').randomUUID()],
      ["process.getBuiltinModule('node:crypto')", () => process.getBuiltinModule('node:crypto').randomUUID()],
    ],
    randomBytes: [
      ["import { randomBytes } from 'node:crypto'", () => current().randomBytes(16).toString('hex')],
      ["require('node:crypto')", () => require('node:crypto').randomBytes(16).toString('hex')],
      ["process.getBuiltinModule('crypto')", () => process.getBuiltinModule('crypto').randomBytes(16).toString('hex')],
    ],
    getRandomValues: [
      ['globalThis.crypto.getRandomValues', () => [...globalThis.crypto.getRandomValues(new Uint32Array(4))]],
      ["require('crypto').webcrypto.getRandomValues", () => [...require('crypto').webcrypto.getRandomValues(new Uint32Array(4))]],
      ["import { getRandomValues } from 'node:crypto'", () => [...current().getRandomValues(new Uint32Array(4))]],
      ["require('crypto').getRandomValues", () => [...require('crypto').getRandomValues(new Uint32Array(4))]],
    ],
    'Math.random': [
      ['Math.random', () => [Math.random(), Math.random()]],
      ['globalThis.Math.random', () => [globalThis.Math.random(), globalThis.Math.random()]],
    ],
  };

  for (const [fn, paths] of Object.entries(RANDOM_PATHS)) {
    it(`${fn}: every path gives the same first draw under one seed, another under another seed`, async function () {
      const draws = [];
      for (const [, draw] of paths) draws.push((await runClient('0x1d', draw)).value);
      const other = (await runClient('0x1e', paths[0][1])).value;
      const again = (await runClient('0x1d', paths[0][1])).value;
      for (let i = 1; i < paths.length; i++) assert.deepEqual(draws[i], draws[0], `${paths[i][0]} vs ${paths[0][0]}`);
      assert.deepEqual(again, draws[0], 'the same seed drew a different value');
      assert.notDeepEqual(other, draws[0], 'another seed drew the same value');
    });
  }
});

describe('uninstall restores globals and builtins exactly', function () {
  before(async function () {
    // Node materializes some lazy state on first use: reading every global's descriptor loads
    // undici on Node 22/24 (which adds Symbol(undici.globalDispatcher.N) globals), and the first
    // run loads lazy internals. Do both once first, so the comparisons below see only what the
    // simulation itself changes.
    snapshot();
    await runClient('0x1', exerciseEverything);
    snapshot();
  });

  async function exerciseEverything() {
    await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setImmediate(resolve));
    const interval = setInterval(() => {}, 3);
    await require('timers/promises').setTimeout(10);
    await require('timers/promises').scheduler.wait(1);
    await require('timers/promises').scheduler.yield();
    await util.promisify(setTimeout)(1);
    clearInterval(interval);
    setInterval(() => {}, 1000).unref();
    AbortSignal.timeout(50);
    return [
      Date.now(),
      new Date().toISOString(),
      performance.now(),
      performance.timeOrigin,
      process.hrtime(),
      process.hrtime.bigint(),
      process.uptime(),
      Math.random(),
      require('crypto').randomUUID(),
      require('crypto').randomBytes(4),
      require('crypto').randomInt(10),
      globalThis.crypto.randomUUID(),
      globalThis.crypto.getRandomValues(new Uint8Array(4)),
    ];
  }

  it('notices a function replaced on node:timers, an ESM binding, Crypto.prototype or performance (the check can fail)', function () {
    const targets = [
      [require('timers'), 'setTimeout'],
      [Object.getPrototypeOf(globalThis.crypto), 'randomUUID'],
      [performance, 'now'],
    ];
    for (const [target, key] of targets) {
      const before = snapshot();
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      // performance.now lives on the prototype: this adds an own property that shadows it.
      Object.defineProperty(target, key, { writable: true, enumerable: false, configurable: true, ...descriptor, value: function replaced() {} });
      syncBuiltinESMExports();
      const changed = snapshot();
      if (descriptor === undefined) delete target[key];
      else Object.defineProperty(target, key, descriptor);
      syncBuiltinESMExports();
      assert.notDeepStrictEqual(changed, before, `a replaced ${key} went unnoticed`);
      assert.deepStrictEqual(snapshot(), before, `${key} was not put back by this test`);
    }
  });

  const RUNS = [
    ['a run that succeeds (every shimmed API used)', (sim) => sim.client('c', exerciseEverything), undefined],
    [
      'a run whose host throws in a timer callback while another host has an interval pending',
      (sim) => {
        sim.host('ticker', () => setInterval(() => {}, 1));
        sim.host('thrower', () => setTimeout(() => { throw new Error('boom in a timer'); }, 5));
      },
      'crash',
    ],
    [
      'a run whose host throws synchronously at boot',
      (sim) => sim.host('thrower', () => { throw new Error('boom at boot'); }),
      'crash',
    ],
    [
      'a run whose client rejects',
      (sim) => sim.client('c', async () => { await exerciseEverything(); throw new Error('boom after awaits'); }),
      'crash',
    ],
    [
      'a run with an unhandled rejection in a host',
      (sim) => sim.host('h', () => { setTimeout(() => { Promise.reject(new Error('nobody handles me')); }, 2); }),
      'unhandled-rejection',
    ],
    [
      'a run stopped by its event limit',
      (sim) => sim.host('h', () => { const tick = () => setImmediate(tick); tick(); }),
      'limit',
    ],
    [
      'a run aborted by its signal while a host keeps it busy and holds sockets (a test runner\'s timeout)',
      (sim) => {
        sim.host('srv', () => require('net').createServer(() => {}).listen(80));
        sim.host('h', () => { require('net').connect(80, 'srv'); exerciseEverything(); const tick = () => setImmediate(tick); tick(); });
      },
      'aborted',
      { eventsMax: 1e9 },
      () => ({ signal: AbortSignal.timeout(100) }),
    ],
    [
      'a run stopped by its wall-clock guard',
      (sim) => sim.host('h', () => { setInterval(() => {}, 1); const tick = () => setImmediate(tick); tick(); }),
      'aborted',
      { eventsMax: 1e9, wallClockLimitMs: 100 },
    ],
  ];

  for (const [title, build, failureKind, options = {}, runOptions = () => ({})] of RUNS) {
    it(`after ${title}`, async function () {
      // Arrange
      const before = snapshot();
      const sim = new Sim({ seed: '0x2', eventsMax: 10_000, ...options });
      build(sim);
      // Act
      let error;
      try {
        await sim.run(runOptions());
      } catch (e) {
        error = e;
      }
      const after = snapshot();
      // Assert
      if (failureKind === undefined) {
        assert.equal(error, undefined, `the run failed: ${error?.message}`);
      } else {
        assert.ok(error, 'the run did not fail');
        assert.equal(error.name, failureKind === 'aborted' ? 'AbortError' : 'SimulationError', error.stack);
        assert.equal(error.report.kind, failureKind);
      }
      assert.deepStrictEqual(after, before);
    });
  }

  it('runs no simulated callback after a failed run has settled', async function () {
    let ticks = 0;
    const sim = new Sim({ seed: '0x3' });
    sim.host('ticker', () => setInterval(() => ticks++, 1));
    sim.host('thrower', () => setTimeout(() => { throw new Error('boom'); }, 5));
    await assert.rejects(sim.run(), { name: 'SimulationError' });
    const ticksAtFailure = ticks;
    assert.ok(ticksAtFailure >= 4, `the ticker ran ${ticksAtFailure} times before the failure`);
    await new Promise((resolve) => setTimeout(resolve, 30)); // real time: we are outside the run
    assert.equal(ticks, ticksAtFailure);
  });
});

// ---- register mode --------------------------------------------------------------------------

/** Runs `node [...nodeArgs] fixture` with DST_* variables cleared, then `env` added. */
function runNode(nodeArgs, fixture, { env = {}, cwd = PACKAGE_DIR, timeout = 30_000 } = {}) {
  const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
  const child = spawnSync(process.execPath, [...nodeArgs, path.join(FIXTURES, fixture)], {
    cwd,
    env: { ...cleanEnv, ...env },
    encoding: 'utf8',
    timeout,
  });
  return { status: child.status, signal: child.signal, stdout: child.stdout, stderr: child.stderr };
}

function show(child) {
  return `status ${child.status} signal ${child.signal}\n--- stdout\n${child.stdout}--- stderr\n${child.stderr}`;
}

/** The 1-based line of `fixture` holding `marker`. */
function lineOf(fixture, marker) {
  const lines = fs.readFileSync(path.join(FIXTURES, fixture), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(marker));
  assert.ok(index >= 0, `${marker} not found in ${fixture}`);
  return index + 1;
}

describe('interposition in register mode', function () {
  this.timeout(60_000);

  const PRELOADS = [
    ['--import <absolute dist/register.mjs>', ['--import', REGISTER_MJS]],
    ['--import dst-runtime/register (package self-reference, cwd = the package)', ['--import', 'dst-runtime/register']],
    ['--require <absolute dist/register.cjs>', ['--require', REGISTER_CJS]],
    ['--require dst-runtime/register (cwd = the package)', ['--require', 'dst-runtime/register']],
  ];
  const expectedMarks = [
    ['global setTimeout', 10],
    ["import { setTimeout } from 'node:timers'", 11],
    ["import { setTimeout } from 'node:timers/promises'", 13],
    ["import timers from 'node:timers'", 16],
    ["require('timers')", 20],
    ["require('node:timers/promises')", 25],
    ["process.getBuiltinModule('node:timers')", 31],
    ["process.getBuiltinModule('timers/promises')", 38],
    ['util.promisify(setTimeout)', 46],
    ['timers.promises.setTimeout', 55],
    ['scheduler.wait', 66],
    ["import { setInterval } from 'node:timers' (2 ticks)", 78],
    ['setImmediate', 78],
    ['AbortSignal.timeout', 90],
  ].map(([form, hours]) => [form, hours * HOUR_MS]);
  const outputs = [];

  for (const [title, preload] of PRELOADS) {
    it(`${title}: every import form of the program sees virtual time`, function () {
      // Act
      const child = runNode(preload, 'reg-imports.mjs', { env: { DST_SEED: '0x7', DST_TIME_LIMIT: '10d', DST_QUIET: '1' } });
      // Assert
      assert.equal(child.status, 0, show(child));
      assert.equal(child.stderr, '');
      const out = JSON.parse(child.stdout);
      assert.deepEqual(out.start, { perf: STARTUP_MS, date: EPOCH_MS, uptime: STARTUP_MS / 1000 });
      assert.deepEqual(out.marks, expectedMarks.map(([form, ms]) => [form, STARTUP_MS + ms]));
      assert.deepEqual(out.reason, { name: 'TimeoutError', message: 'The operation was aborted due to timeout' });
      assert.deepEqual(out.end, {
        perf: STARTUP_MS + 90 * HOUR_MS,
        date: EPOCH_MS + 90 * HOUR_MS,
        uptime: (STARTUP_MS + 90 * HOUR_MS) / 1000,
        hrtimeElapsedNs: String(90 * HOUR_MS * 1e6),
      });
      assert.deepEqual(out.relations, {
        globalIsTimersExport: REAL_RELATIONS.globalIsTimersExport,
        promisesIsTimersPromises: REAL_RELATIONS.timersPromisesIsRequire,
        promisifyIsTimersPromises: REAL_RELATIONS.promisifySetTimeoutIsTimersPromises,
        getBuiltinModuleIsRequire: true,
        namedIsGlobal: true,
      });
      for (const uuid of out.uuids) assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      outputs.push(child.stdout);
      // The same seed under every preload form gives the same program output (random values too).
      assert.equal(child.stdout, outputs[0]);
    });
  }

  it('every stand-in has the name and length of the function it replaces, as plain Node shows them', function () {
    // queueMicrotask was "queueMicrotask$1" (the bundler's rename), process.on's length 0, ...
    const plain = runNode(['--no-deprecation'], 'signatures.mjs');
    const simulated = runNode(['--no-deprecation', '--import', 'dst-runtime/register'], 'signatures.mjs', { env: { DST_QUIET: '1' } });
    assert.equal(plain.status, 0, show(plain));
    assert.equal(simulated.status, 0, show(simulated));
    assert.ok(plain.stdout.split('\n').length > 500, `too few functions listed: ${plain.stdout.slice(0, 200)}`);
    assert.equal(simulated.stdout, plain.stdout);
  });

  it("a tool's loader hooks, preloaded before or after dst-runtime, run outside the program: the run is the one without them", function () {
    // tsx on Node 22/24: on a cache miss its hooks queued an immediate and wrote files inside host
    // "main" (the same seed ran differently the first time), and its esbuild worker was refused.
    if (typeof Module.registerHooks !== 'function') this.skip(); // hooks on a loader thread: Node 20
    const env = { DST_SEED: '0x2c' };
    const without = runNode(['--import', 'dst-runtime/register'], 'hooked-app.mjs', { env });
    assert.equal(without.status, 0, show(without));
    const hooks = path.join(FIXTURES, 'tool-hooks.mjs');
    for (const preloads of [['--import', hooks, '--import', 'dst-runtime/register'], ['--import', 'dst-runtime/register', '--import', hooks]]) {
      const hooked = runNode(preloads, 'hooked-app.mjs', { env });
      assert.equal(hooked.status, 0, `${preloads.join(' ')}\n${show(hooked)}`);
      // The same output and the same run: its last line names seed, fingerprint and events.
      assert.equal(hooked.stdout, without.stdout, preloads.join(' '));
      assert.equal(hooked.stderr.trim().split('\n').at(-1), without.stderr.trim().split('\n').at(-1), preloads.join(' '));
    }
  });

  describe('a preload that captured the real setTimeout before dst-runtime (strict mode)', function () {
    const late = ['--import', path.join(FIXTURES, 'capture-early.mjs'), '--import', REGISTER_MJS];

    it('exits 74 and says the timer escaped the simulation, with the seed and how to fix it', function () {
      const child = runNode(late, 'late-app.mjs', { env: { DST_SEED: '0x74' } });
      assert.equal(child.status, 74, show(child));
      assert.match(child.stdout, /^early is current: false$/m);
      assert.match(child.stderr, /escaped the simulation/);
      assert.match(child.stderr, /FIRST preload/);
      assert.match(child.stderr, /DST_STRICT=0/);
      assert.match(child.stderr, /^ {2}seed {5}0x74$/m);
      assert.doesNotMatch(child.stdout, /early timer fired/, 'the escaped real timer ran before strict mode stopped the run');
    });

    it('exits 74 also when the escaped real timer is the only timer of the program', function () {
      const child = runNode(late, 'late-app.mjs', { env: { DST_SEED: '0x74', LATE_APP_ONLY_EARLY: '1' } });
      assert.equal(child.status, 74, show(child));
      assert.match(child.stderr, /escaped the simulation/);
    });

    it('with DST_STRICT=0 lets the real timer run and exits 0', function () {
      const child = runNode(late, 'late-app.mjs', { env: { DST_SEED: '0x74', DST_STRICT: '0' } });
      assert.equal(child.status, 0, show(child));
      assert.match(child.stdout, /^early timer fired$/m);
      assert.match(child.stdout, new RegExp(`^simulated timer fired at ${STARTUP_MS + 5000}$`, 'm'));
      assert.doesNotMatch(child.stderr, /escaped/);
    });

    it('does not trip when dst-runtime/register is the first preload (the preload then captures the simulated setTimeout)', function () {
      const first = ['--import', REGISTER_MJS, '--import', path.join(FIXTURES, 'capture-early.mjs')];
      const child = runNode(first, 'late-app.mjs', { env: { DST_SEED: '0x74' } });
      assert.equal(child.status, 0, show(child));
      assert.match(child.stdout, /^early is current: true$/m);
      assert.match(child.stdout, /^early timer fired$/m);
      assert.match(child.stdout, new RegExp(`^simulated timer fired at ${STARTUP_MS + 5000}$`, 'm'));
    });
  });

  describe('an invalid DST_SEED', function () {
    for (const seed of ['banana', '-5', '0x', '0xfeedfacecafebeef1']) {
      it(`DST_SEED=${JSON.stringify(seed)}: exits 64 before the program runs, naming DST_SEED and the value`, function () {
        const child = runNode(['--import', REGISTER_MJS], 'hello.mjs', { env: { DST_SEED: seed } });
        assert.equal(child.status, 64, show(child));
        assert.equal(child.stdout, '', 'the program ran');
        assert.match(child.stderr, /^dst: Failed to parse DST_SEED: /);
        assert.ok(child.stderr.includes(seed), `the message does not quote ${seed}:\n${child.stderr}`);
        assert.doesNotMatch(child.stderr, /fingerprint/);
      });
    }

    it('accepts the same seed as decimal, lower-case hex, upper-case hex and with spaces around it', function () {
      for (const seed of ['2671516194', '0x9f3c1a22', '0X9F3C1A22', ' 2671516194 ']) {
        const child = runNode(['--import', REGISTER_MJS], 'hello.mjs', { env: { DST_SEED: seed } });
        assert.equal(child.status, 0, show(child));
        assert.equal(child.stdout, `hello ran at ${STARTUP_MS + 1000}\n`);
        assert.match(child.stderr, /^dst: seed 0x9f3c1a22 /m, `DST_SEED=${JSON.stringify(seed)}`);
      }
    });

    it('an invalid DST_TIME_LIMIT exits 64 naming DST_TIME_LIMIT', function () {
      const child = runNode(['--import', REGISTER_MJS], 'hello.mjs', { env: { DST_TIME_LIMIT: 'ten seconds' } });
      assert.equal(child.status, 64, show(child));
      assert.equal(child.stdout, '');
      assert.match(child.stderr, /DST_TIME_LIMIT/);
    });
  });

  describe('a runaway timer under DST_TIME_LIMIT=10s', function () {
    /** Parses the failure block: seed, replay command, the culprit text. */
    function parseFailure(stderr) {
      const seed = /^ {2}seed {5}(0x[0-9a-f]+)$/m.exec(stderr)?.[1];
      const replay = /^ {2}replay {3}(.*)$/m.exec(stderr)?.[1];
      return { seed, replay };
    }

    it('exits 70 naming the file:line that scheduled the runaway setTimeout, the seed and a replay command', function () {
      const child = runNode(['--import', REGISTER_MJS], 'runaway.mjs', { env: { DST_TIME_LIMIT: '10s' } });
      assert.equal(child.status, 70, show(child));
      const line = lineOf('runaway.mjs', 'RUNAWAY-TIMEOUT');
      assert.match(child.stderr, new RegExp(`timeout scheduled at test/interposition/fixtures/runaway\\.mjs:${line}:\\d+`), child.stderr);
      assert.match(child.stderr, /virtual time limit of 10\.000000000 s/);
      const { seed, replay } = parseFailure(child.stderr);
      assert.ok(seed, `no seed line:\n${child.stderr}`);
      assert.ok(replay?.startsWith(`DST_SEED=${seed} `), `replay command: ${replay}`);
      assert.ok(replay.includes('runaway.mjs'), replay);
      assert.match(child.stderr, new RegExp(`^dst: seed ${seed} .* exit 70$`, 'm'));
    });

    it('names the line that created a runaway setInterval', function () {
      const child = runNode(['--import', REGISTER_MJS], 'runaway.mjs', { env: { DST_TIME_LIMIT: '10s', RUNAWAY_KIND: 'interval' } });
      assert.equal(child.status, 70, show(child));
      const line = lineOf('runaway.mjs', 'RUNAWAY-INTERVAL');
      assert.match(child.stderr, new RegExp(`interval scheduled at test/interposition/fixtures/runaway\\.mjs:${line}:\\d+`), child.stderr);
    });

    it('replays: the printed command, pasted into a shell without any DST_ variable, fails identically', function () {
      const first = runNode(['--import', REGISTER_MJS], 'runaway.mjs', { env: { DST_TIME_LIMIT: '10s' } });
      assert.equal(first.status, 70, show(first));
      const { replay } = parseFailure(first.stderr);
      // The command says `node`: make that the Node running this suite.
      const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
      const env = { ...cleanEnv, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` };
      const again = spawnSync('/bin/sh', ['-c', replay], { cwd: PACKAGE_DIR, env, encoding: 'utf8', timeout: 30_000 });
      assert.equal(again.status, 70, show(again));
      assert.equal(again.stderr, first.stderr);
    });

    it('prints a replay command that carries the limit that stopped the run', function () {
      // Pasted into a shell without DST_TIME_LIMIT, a replay command lacking it would run to the
      // default 24 h limit: a different failure, millions of events later.
      const child = runNode(['--import', REGISTER_MJS], 'runaway.mjs', { env: { DST_TIME_LIMIT: '10s' } });
      assert.equal(child.status, 70, show(child));
      const { replay } = parseFailure(child.stderr);
      assert.match(replay, /(^|\s)DST_TIME_LIMIT=10s\s/, `replay command: ${replay}`);
    });

    it('exits 70 at DST_EVENT_LIMIT too, naming the same line', function () {
      const child = runNode(['--import', REGISTER_MJS], 'runaway.mjs', { env: { DST_EVENT_LIMIT: '2000', DST_SEED: '5' } });
      assert.equal(child.status, 70, show(child));
      assert.match(child.stderr, /event limit of 2,000 events/);
      const line = lineOf('runaway.mjs', 'RUNAWAY-TIMEOUT');
      assert.match(child.stderr, new RegExp(`runaway\\.mjs:${line}:\\d+`));
      assert.match(child.stderr, /^ {2}replay {3}DST_SEED=0x5 /m);
    });
  });
});
