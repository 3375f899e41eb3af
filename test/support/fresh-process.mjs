/**
 * Runs a test file's suite in a fresh mocha process of its own, not in the worker that ran other
 * files before it. For suites whose runs a foreign earlier test could disturb (the TLS
 * determinism tests, closing note of 2026-12-02: a TLS run in a mocha --parallel worker on
 * Node 22 once took 302 events instead of the seed's 282, same output; the leak is not found).
 * Inside that process every comparison of the suite still holds (two runs in one process, a
 * child process).
 *
 *   freshProcessDescribe(import.meta.url, 'title', function () { ...the suite... });
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const INSIDE = 'TEST_FRESH_PROCESS';

export function freshProcessDescribe(fileUrl, title, suite) {
  const file = fileURLToPath(fileUrl);
  if (process.env[INSIDE] === file) {
    describe(title, suite);
    return;
  }
  describe(`${title} (in a fresh process)`, function () {
    this.timeout(300_000);
    it('every test of this file passes', () => {
      const mocha = fileURLToPath(new URL('../../node_modules/mocha/bin/mocha.js', import.meta.url));
      const pin = fileURLToPath(new URL('./pin-machine.cjs', import.meta.url));
      const run = spawnSync(process.execPath, [mocha, '--no-config', '--require', pin, '--timeout', '120000', '--reporter', 'dot', file], {
        env: { ...process.env, [INSIDE]: file },
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, / passing /);
      assert.doesNotMatch(run.stdout, / failing/);
    });
  });
}
