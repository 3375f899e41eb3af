/**
 * dst-runtime/services/postgres: Postgres (PGlite) as a simulated host, an unmodified `pg` client
 * in another. PGlite is an optional peer dependency: the tests that need it use the packages of
 * examples/postgres (CI installs them: .ci/run), and skip with the reason when they are missing,
 * unless TEST_REQUIRE_PGLITE=1 (CI) makes that a failure. Each runs one or two seeds: a boot costs
 * seconds of real time.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runScenario, Sim } from 'dst-runtime';
import { postgres, PostgresServiceError } from 'dst-runtime/services/postgres';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = path.join(ROOT, 'examples', 'postgres');
const installed = fs.existsSync(path.join(EXAMPLE, 'node_modules', '@electric-sql', 'pglite-socket'));
const INSTALL_HINT = 'npm --prefix examples/postgres ci';

describe('the Postgres service (dst-runtime/services/postgres)', function () {
  this.timeout(300_000);

  describe('without PGlite installed', function () {
    let empty;
    beforeEach(() => {
      empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-no-pglite-'));
    });
    afterEach(() => fs.rmSync(empty, { recursive: true, force: true }));

    it('postgres() fails in the test, naming both packages and the command that installs them', () => {
      assert.throws(
        () => postgres({ from: empty }),
        (error) => {
          assert.ok(error instanceof PostgresServiceError);
          assert.equal(error.code, 'DST_POSTGRES');
          assert.match(error.message, /dst-runtime\/services\/postgres needs @electric-sql\/pglite and @electric-sql\/pglite-socket, which are not installed/);
          assert.match(error.message, /npm install --save-dev @electric-sql\/pglite@0\.5\.14 @electric-sql\/pglite-socket@0\.2\.17/);
          return true;
        },
      );
    });

    it('run as a module host by its package name, the main fails the host with the same message', async () => {
      const sim = new Sim({ seed: 1 });
      sim.host('db', { main: 'dst-runtime/services/postgres', env: { DST_PGLITE_FROM: empty } });
      await assert.rejects(sim.run(), /host "db" crashed .*PostgresServiceError: dst-runtime\/services\/postgres needs @electric-sql\/pglite/s);
    });

    it('rejects options it does not know, and bad ones, saying what it takes', () => {
      assert.throws(() => postgres({ prot: 5432 }), /unknown option "prot" \(known: port, dataDir, template, maxConnections, log, from, env\)/);
      assert.throws(() => postgres({ port: 0 }), /port must be an integer in 1\.\.65535, got 0/);
      assert.throws(() => postgres({ dataDir: 'data' }), /dataDir must be an absolute path \(on the host's disk\), got "data"/);
    });
  });

  describe('with PGlite (examples/postgres)', function () {
    before(function () {
      if (installed) return;
      if (process.env.TEST_REQUIRE_PGLITE === '1') throw new Error(`PGlite is not installed in examples/postgres: run ${INSTALL_HINT}`);
      console.log(`      (skipped: PGlite is not installed; ${INSTALL_HINT} installs it)`);
      this.skip();
    });

    it('starts inside virtual time, keeps its data directory on the simulated disk through a crash, and replays byte for byte in a fresh process (seed 0x1)', () => {
      const run = () => spawnSync(process.execPath, [path.join(EXAMPLE, 'crash-recovery.mjs'), '0x1'], { cwd: ROOT, encoding: 'utf8' });
      const first = run();
      assert.equal(first.status, 0, first.stderr);
      // Start-up took no virtual time: the first answer comes after the connection's round trips.
      assert.match(first.stdout, /^answer 42 at 2025-01-01T00:00:00\.0\d\dZ \(virtual \d+\.\d{3} ms\)$/m);
      assert.match(first.stdout, /^committed (\d+), after the crash \1 \(all there\)$/m);
      const again = run();
      assert.equal(again.stdout, first.stdout);
    });

    it('the bank demo: dst explore\'s first failing seed finds the lost update; the fixed API passes it (seed 0x2)', async () => {
      const { bankScenario } = await import(path.join(EXAMPLE, 'bank.mjs'));
      const buggy = await runScenario(bankScenario({ bug: true }), 0x2);
      assert.equal(buggy.ok, false);
      assert.equal(buggy.failure.kind, 'safety');
      assert.match(buggy.failure.message, /the bank paid out 120 of 100 in 4 withdrawals, and the balance is 10/);
      const fixed = await runScenario(bankScenario({ bug: false }), 0x2);
      assert.equal(fixed.ok, true, fixed.failure?.message);
    });
  });
});
