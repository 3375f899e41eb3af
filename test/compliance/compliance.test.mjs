/**
 * Compliance: every program in ./programs runs once on plain Node and once under
 * `--import dst-runtime/register`, with the Node binary that runs mocha (process.execPath), and
 * both runs must agree on stdout, the exit code and the warning lines on stderr.
 *
 * CommonJS programs: ANY --import preload (even an empty module) makes Node run a CJS entry
 * through its ESM loader, which changes its top-level order (promise jobs before nextTicks;
 * docs/notes/node-facts.md) and even lets an unref'd immediate run one more loop turn. So a
 * .cjs program is checked against `--require dst-runtime/register`, the CommonJS preload, which
 * keeps Node's plain behaviour (the user guide recommends it for CommonJS entries). Then each
 * program runs under the simulator with two different seeds and twice with the same seed: the
 * stdout must not change, and the same seed must give the same fingerprint.
 *
 * The programs print only facts real Node guarantees (checked by running each plainly many
 * times on Node 20, 22 and 24), so a difference here is a simulator bug, never noise. A program
 * that real Node runs nondeterministically must be changed, not skipped.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));
const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));
const REGISTER_MJS = path.join(PACKAGE_DIR, 'dist', 'register.mjs');
/** How the simulator is loaded: the package's own export, resolved from inside the package. */
const REGISTER_SPECIFIER = 'dst-runtime/register';
const RUN_TIMEOUT_MS = 30_000;
const SEED_MAIN = '0x5eed';
const SEED_OTHER = '0x9f3c1a22';

const PROGRAMS = fs
  .readdirSync(PROGRAMS_DIR)
  .filter((name) => /^\d+-.*\.(mjs|cjs)$/.test(name))
  .sort();

/** The environment of every child: no inherited preloads, no DST_* settings except ours. */
function childEnv(extra) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key === 'NODE_OPTIONS' || key === 'NODE_NO_WARNINGS' || key.startsWith('DST_')) delete env[key];
  }
  return { ...env, ...extra };
}

/**
 * Runs one program. `seed` undefined: plain Node. Otherwise under the simulator with that seed,
 * loaded with `--import` (default) or `--require`; `reportFile` receives the run's JSON report.
 */
function run(program, { seed, reportFile, preload = 'import' } = {}) {
  const args = seed === undefined ? [program] : [preload === 'require' ? '--require' : '--import', REGISTER_SPECIFIER, program];
  const extra = seed === undefined ? {} : { DST_QUIET: '1', DST_SEED: seed };
  if (reportFile !== undefined) extra.DST_REPORT = reportFile;
  const result = spawnSync(process.execPath, args, {
    cwd: PROGRAMS_DIR,
    env: childEnv(extra),
    encoding: 'utf8',
    timeout: RUN_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  const how = seed === undefined ? 'plainly' : `under the simulator (DST_SEED=${seed})`;
  assert.equal(result.error, undefined, `${program} ${how}: failed to run: ${result.error?.message}`);
  assert.equal(result.signal, null, `${program} ${how}: killed by ${result.signal}\nstderr:\n${result.stderr}`);
  return {
    stdout: result.stdout,
    status: result.status,
    stderr: result.stderr,
    warnings: warningLines(result.stderr),
  };
}

/** The warning lines of stderr, with the `(node:PID)` prefix made comparable. */
function warningLines(stderr) {
  return stderr
    .split('\n')
    .filter((line) => line.includes('Warning:'))
    .map((line) => line.replace(/\(node:\d+\)/g, '(node:PID)'));
}

function readReport(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

describe(`compliance: plain Node ${process.version} vs --import ${REGISTER_SPECIFIER}`, function () {
  before(function () {
    assert.ok(fs.existsSync(REGISTER_MJS), `Failed to find ${REGISTER_MJS}: run \`npm run build\` first`);
    assert.ok(PROGRAMS.length >= 45, `expected at least 45 programs in ${PROGRAMS_DIR}, found ${PROGRAMS.length}`);
  });

  function compare(program, plainPreload, simulatedPreload) {
    const plain = run(program, { preload: plainPreload });
    const simulated = run(program, { seed: SEED_MAIN, preload: simulatedPreload });
    const context = `\n--- plain stderr ---\n${plain.stderr}\n--- simulated stderr ---\n${simulated.stderr}`;
    assert.equal(simulated.stdout, plain.stdout, `stdout differs (seed ${SEED_MAIN})${context}`);
    assert.equal(simulated.status, plain.status, `exit code differs (seed ${SEED_MAIN})${context}`);
    assert.deepEqual(simulated.warnings, plain.warnings, `warning lines differ (seed ${SEED_MAIN})${context}`);
  }

  for (const program of PROGRAMS) {
    if (program.endsWith('.cjs')) {
      it(`${program}: same stdout, exit code and warnings (plain vs --require)`, function () {
        compare(program, 'none', 'require');
      });
    } else {
      it(`${program}: same stdout, exit code and warnings`, function () {
        compare(program, 'none', 'import');
      });
    }
  }
});

describe('compliance programs are deterministic under the simulator', function () {
  let tmpDir;
  before(function () {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-compliance-'));
  });
  after(function () {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  });

  for (const program of PROGRAMS) {
    it(`${program}: seeds ${SEED_MAIN} and ${SEED_OTHER} print the same; ${SEED_MAIN} twice replays exactly`, function () {
      const firstReport = path.join(tmpDir, `${program}.1.json`);
      const secondReport = path.join(tmpDir, `${program}.2.json`);
      const first = run(program, { seed: SEED_MAIN, reportFile: firstReport });
      const again = run(program, { seed: SEED_MAIN, reportFile: secondReport });
      const other = run(program, { seed: SEED_OTHER });

      assert.equal(again.stdout, first.stdout, `stdout differs between two runs of seed ${SEED_MAIN}`);
      assert.equal(again.status, first.status, `exit code differs between two runs of seed ${SEED_MAIN}`);
      const a = readReport(firstReport);
      const b = readReport(secondReport);
      assert.equal(a.seed, SEED_MAIN);
      assert.equal(b.fingerprint, a.fingerprint, `fingerprint differs between two runs of seed ${SEED_MAIN}`);
      assert.equal(b.events, a.events, `event count differs between two runs of seed ${SEED_MAIN}`);

      assert.equal(other.stdout, first.stdout, `stdout differs between seeds ${SEED_MAIN} and ${SEED_OTHER}`);
      assert.equal(other.status, first.status, `exit code differs between seeds ${SEED_MAIN} and ${SEED_OTHER}`);
    });
  }
});
