import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Runs `body` in a fresh Node process (this mocha process may already have loaded the
 * simulator) and returns what it printed as JSON.
 */
function runFresh(body, inputType) {
  const child = spawnSync(process.execPath, ['--input-type', inputType, '-e', body], { cwd: root, encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

const SNAPSHOT = `
  const globals = () => ({
    setTimeout: globalThis.setTimeout, setInterval: globalThis.setInterval, setImmediate: globalThis.setImmediate,
    clearTimeout: globalThis.clearTimeout, queueMicrotask: globalThis.queueMicrotask, Date: globalThis.Date,
    dateNow: Date.now, random: Math.random, perfNow: performance.now, hrtime: process.hrtime,
    hrtimeBigint: process.hrtime.bigint, uptime: process.uptime, randomUUID: globalThis.crypto.randomUUID,
    getRandomValues: globalThis.crypto.getRandomValues, fetch: globalThis.fetch,
  });
  const same = (a, b) => Object.keys(a).filter((k) => a[k] !== b[k]);
`;

describe('dst-runtime/check installs nothing', () => {
  it('importing it (ESM) leaves timers, clocks, randomness and fetch untouched and loads no shim', () => {
    const out = runFresh(
      `${SNAPSHOT}
      const before = globals();
      const timers = await import('node:timers');
      const timersBefore = timers.setTimeout;
      const check = await import('dst-runtime/check');
      const ok = check.checkLinearizable([]).valid;
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('/dist/')).map((p) => p.slice(p.indexOf('/dist/')));
      console.log(JSON.stringify({ changed: same(before, globals()), timersChanged: timers.setTimeout !== timersBefore, ok, loaded }));`,
      'module',
    );
    assert.deepEqual(out.changed, []);
    assert.equal(out.timersChanged, false);
    assert.equal(out.ok, true);
    assert.ok(out.loaded.includes('/dist/check.cjs'), JSON.stringify(out.loaded));
    assert.deepEqual(
      out.loaded.filter((p) => !p.startsWith('/dist/check.') && !p.startsWith('/dist/chunks/errors-')),
      [],
      'only the checker and the shared error classes are loaded',
    );
  });

  it('requiring it (CJS) leaves the globals untouched too', () => {
    const out = runFresh(
      `${SNAPSHOT}
      const before = globals();
      const check = require('dst-runtime/check');
      console.log(JSON.stringify({ changed: same(before, globals()), names: Object.keys(check).sort() }));`,
      'commonjs',
    );
    assert.deepEqual(out.changed, []);
    assert.deepEqual(out.names, ['UsageError', 'checkLinearizable', 'checkSerializable', 'formatCheckResult', 'registerModel', 'txnsToRegisterOps']);
  });

  it('the control: the same probe sees the simulator modules that importing dst-runtime loads', () => {
    const out = runFresh(
      `const { createRequire } = await import('node:module');
      await import('dst-runtime');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('/dist/')).map((p) => p.slice(p.indexOf('/dist/')));
      console.log(JSON.stringify({ loaded }));`,
      'module',
    );
    assert.ok(out.loaded.includes('/dist/index.cjs'), JSON.stringify(out.loaded));
    assert.ok(out.loaded.filter((p) => !p.startsWith('/dist/check.') && !p.startsWith('/dist/chunks/errors-')).length > 0);
  });
});
