/**
 * Running a compliance program as a child process, plainly or under the simulator: shared by
 * the compliance harnesses (test/compliance, test/compliance-net), and the harness the network
 * corpora share.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));
export const REGISTER_MJS = path.join(PACKAGE_DIR, 'dist', 'register.mjs');
export const REGISTER_CJS = path.join(PACKAGE_DIR, 'dist', 'register.cjs');
const RUN_TIMEOUT_MS = 30_000;

/** The environment of every child: no inherited preloads, no DST_* settings except ours. */
export function childEnv(extra) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key === 'NODE_OPTIONS' || key === 'NODE_NO_WARNINGS' || key.startsWith('DST_')) delete env[key];
  }
  return { ...env, ...extra };
}

/**
 * Runs `program` (a file name in `dir`) with the Node that runs mocha. `seed` undefined: plain
 * Node. Otherwise under the simulator with that seed, preloaded with `--import register`
 * (default) or `--require register` (`preload: 'require'`), where `register` defaults to the
 * built dist/register.mjs (.cjs for --require); `reportFile` receives the run's JSON report.
 */
export function runProgram(dir, program, { seed, reportFile, preload = 'import', register, env = {} } = {}) {
  let args = [program];
  if (seed !== undefined) {
    const flag = preload === 'require' ? '--require' : '--import';
    args = [flag, register ?? (preload === 'require' ? REGISTER_CJS : REGISTER_MJS), program];
  }
  const extra = seed === undefined ? { ...env } : { ...env, DST_QUIET: '1', DST_SEED: seed };
  if (reportFile !== undefined) extra.DST_REPORT = reportFile;
  const result = spawnSync(process.execPath, args, {
    cwd: dir,
    env: childEnv(extra),
    encoding: 'utf8',
    timeout: RUN_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  const how = seed === undefined ? 'plainly' : `under the simulator (DST_SEED=${seed})`;
  assert.equal(result.error, undefined, `${program} ${how}: failed to run: ${result.error?.message}`);
  assert.equal(result.signal, null, `${program} ${how}: killed by ${result.signal}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return { stdout: result.stdout, status: result.status, stderr: result.stderr, warnings: warningLines(result.stderr) };
}

/** The warning lines of stderr, with the `(node:PID)` prefix made comparable. */
export function warningLines(stderr) {
  return stderr
    .split('\n')
    .filter((line) => line.includes('Warning:'))
    .map((line) => line.replace(/\(node:\d+\)/g, '(node:PID)'));
}

export function readReport(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** The programs of `dir` whose names match `pattern`, sorted. */
export function listPrograms(dir, pattern) {
  return fs.readdirSync(dir).filter((name) => pattern.test(name)).sort();
}

/**
 * The two halves of a network compliance harness (test/compliance-net): each program prints the
 * same stdout and exits with the same code plainly and under the simulator (`seedMain`); and
 * under the simulator `seedMain` twice replays exactly (stdout, fingerprint, event count) while
 * `seedOther` prints the same. `plainFinished(stdout)` says whether a plain run got far enough
 * for the comparison to mean something; `simulatedEnv` is added to the simulated runs'
 * environment (DST_DISK=simulated for the disk corpus).
 */
export function describeNetCompliance({ name, dir, programs, minPrograms, seedMain, seedOther, plainFinished, simulatedEnv = {} }) {
  const run = (program, options = {}) => runProgram(dir, program, options);

  describe(`${name} compliance: plain Node ${process.version} vs the simulator (--import dist/register.mjs)`, function () {
    before(function () {
      assert.ok(fs.existsSync(REGISTER_MJS), `Failed to find ${REGISTER_MJS}: run \`npm run build\` first`);
      assert.ok(programs.length >= minPrograms, `expected at least ${minPrograms} ${name} programs in ${dir}, found ${programs.length}`);
    });

    for (const program of programs) {
      it(`${program}: same stdout and exit code`, function () {
        const plain = run(program);
        const simulated = run(program, { seed: seedMain, env: simulatedEnv });
        const context = `\n--- plain stderr ---\n${plain.stderr}\n--- simulated stderr ---\n${simulated.stderr}`;
        assert.ok(plainFinished(plain.stdout), `${program} did not finish cleanly on plain Node:\n${plain.stdout}${context}`);
        assert.equal(simulated.stdout, plain.stdout, `stdout differs (DST_SEED=${seedMain})${context}`);
        assert.equal(simulated.status, plain.status, `exit code differs (DST_SEED=${seedMain})${context}`);
      });
    }
  });

  describeReplays({ title: `${name} compliance programs are deterministic under the simulator`, dir, programs, seedMain, seedOther, env: simulatedEnv });
}

/**
 * Under the simulator each program replays exactly with `seedMain` (stdout, exit code,
 * fingerprint and event count of two runs) and prints the same with `seedOther`. `register`:
 * what the simulator is preloaded as (see runProgram).
 */
export function describeReplays({ title, dir, programs, seedMain, seedOther, register, env = {} }) {
  const run = (program, options = {}) => runProgram(dir, program, { register, env, ...options });
  describe(title, function () {
    let tmpDir;
    before(function () {
      tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-compliance-net-'));
    });
    after(function () {
      fs.rmSync(tmpDir, { recursive: true, force: true });
    });

    for (const program of programs) {
      it(`${program}: seed ${seedMain} twice replays exactly; seed ${seedOther} prints the same`, function () {
        const firstReport = path.join(tmpDir, `${program}.1.json`);
        const secondReport = path.join(tmpDir, `${program}.2.json`);
        const first = run(program, { seed: seedMain, reportFile: firstReport });
        const again = run(program, { seed: seedMain, reportFile: secondReport });
        const other = run(program, { seed: seedOther });

        assert.equal(again.stdout, first.stdout, `stdout differs between two runs of seed ${seedMain}`);
        assert.equal(again.status, first.status, `exit code differs between two runs of seed ${seedMain}`);
        const a = readReport(firstReport);
        const b = readReport(secondReport);
        assert.equal(a.seed, seedMain);
        assert.equal(b.fingerprint, a.fingerprint, `fingerprint differs between two runs of seed ${seedMain}`);
        assert.equal(b.events, a.events, `event count differs between two runs of seed ${seedMain}`);

        assert.equal(other.stdout, first.stdout, `stdout differs between seeds ${seedMain} and ${seedOther}`);
        assert.equal(other.status, first.status, `exit code differs between seeds ${seedMain} and ${seedOther}`);
      });
    }
  });
}
