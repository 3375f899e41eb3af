/**
 * Running a compliance program as a child process, plainly or under the simulator: shared by
 * the compliance harnesses (test/compliance, test/compliance-net), and the harness the network
 * corpora share.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
  const result = spawnNode(dir, args, childEnv(extra), seed === undefined);
  const how = seed === undefined ? 'plainly' : `under the simulator (DST_SEED=${seed})`;
  assert.equal(result.error, undefined, `${program} ${how}: failed to run: ${result.error?.message}`);
  assert.equal(result.signal, null, `${program} ${how}: killed by ${result.signal}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return { stdout: result.stdout, status: result.status, stderr: result.stderr, warnings: warningLines(result.stderr) };
}

/**
 * Plain-Node reference runs, cached by content hash: what a program prints on plain Node is a
 * function of the Node binary, the program's directory (the program and the helpers it
 * imports), its arguments and the environment variables Node itself reads, so a run repeated
 * with all of those unchanged (the next `npm test` or `npm run test:quick` on the same Node) is
 * read from os.tmpdir()/dst-runtime-plain-runs-<uid>/ instead of run again. Only finished runs
 * (no timeout, no signal) are kept. DST_TEST_PLAIN_CACHE=0 runs every plain program afresh (CI
 * does). Simulated runs are never cached: they are what the tests test.
 */
const PLAIN_CACHE_DIR = process.env.DST_TEST_PLAIN_CACHE === '0' ? undefined : path.join(os.tmpdir(), `dst-runtime-plain-runs-${process.getuid?.() ?? 'user'}`);
/** Environment variables Node or libuv read, which can change what a plain run prints. */
const NODE_READS_ENV = /^(TZ|LANG|LC_[A-Z_]+|NODE_[A-Z_]+|UV_[A-Z_]+|OPENSSL_[A-Z_]+|SSL_CERT_[A-Z_]+)$/;
const dirHashes = new Map();

/** sha256 over the names and contents of every file under `dir`, in sorted order (once per process). */
function hashDir(dir) {
  let hash = dirHashes.get(dir);
  if (hash !== undefined) return hash;
  const h = createHash('sha256');
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(d, entry.name);
      if (entry.isDirectory()) walk(file);
      else h.update(`${path.relative(dir, file)}\0`).update(fs.readFileSync(file)).update('\0');
    }
  };
  walk(dir);
  hash = h.digest('hex');
  dirHashes.set(dir, hash);
  return hash;
}

function plainCacheKey(dir, args, env) {
  const binary = fs.statSync(process.execPath);
  const nodeEnv = Object.keys(env)
    .filter((key) => NODE_READS_ENV.test(key))
    .sort()
    .map((key) => [key, env[key]]);
  const what = [process.execPath, process.version, dir, binary.size, binary.mtimeMs, process.platform, process.arch, hashDir(dir), args, nodeEnv];
  return createHash('sha256').update(JSON.stringify(what)).digest('hex');
}

/** spawnSync of the Node that runs mocha, through the plain-run cache when `cacheable`. */
function spawnNode(dir, args, env, cacheable) {
  const options = { cwd: dir, env, encoding: 'utf8', timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 };
  if (!cacheable || PLAIN_CACHE_DIR === undefined) return spawnSync(process.execPath, args, options);
  const file = path.join(PLAIN_CACHE_DIR, `${plainCacheKey(dir, args, env)}.json`);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // not cached yet (or a torn file from a crashed run): run it
  }
  const result = spawnSync(process.execPath, args, options);
  if (result.error === undefined && result.signal === null) {
    const kept = { stdout: result.stdout, stderr: result.stderr, status: result.status, signal: null };
    fs.mkdirSync(PLAIN_CACHE_DIR, { recursive: true });
    // Written whole, then renamed: mocha's parallel workers may read the same entry meanwhile.
    const partial = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(partial, JSON.stringify(kept));
    fs.renameSync(partial, file);
  }
  return result;
}

/**
 * A simulated run that a compliance test made and the replay test of the same program reuses as
 * the first of its two runs with the main seed: the run is the same (same program, seed,
 * preload and environment, reported to a file), so running it a third time would test nothing
 * more. The replay test still makes its second run with that seed, and its run with the other
 * seed, afresh. Keyed by directory, program and options; each entry is taken once.
 */
const keptRuns = new Map();
let keptDir;

function keptKey(dir, program, { seed, preload = 'import', register, env = {} }) {
  return JSON.stringify([dir, program, seed, preload, register ?? null, Object.entries(env).sort()]);
}

/** Runs `program` under the simulator (options as runProgram's, `seed` required) and keeps the run, with its report, for takeKeptRun. */
export function runAndKeep(dir, program, options) {
  if (keptDir === undefined) {
    keptDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-kept-runs-'));
    process.once('exit', () => fs.rmSync(keptDir, { recursive: true, force: true }));
  }
  const reportFile = path.join(keptDir, `${keptRuns.size}.json`);
  const run = runProgram(dir, program, { ...options, reportFile });
  keptRuns.set(keptKey(dir, program, options), { ...run, reportFile });
  return run;
}

/** The run runAndKeep made with these options, removed from the store; undefined when there is none. */
export function takeKeptRun(dir, program, options) {
  const key = keptKey(dir, program, options);
  const run = keptRuns.get(key);
  keptRuns.delete(key);
  return run;
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
        const simulated = runAndKeep(dir, program, { seed: seedMain, env: simulatedEnv });
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
        const kept = takeKeptRun(dir, program, { seed: seedMain, register, env });
        const first = kept ?? run(program, { seed: seedMain, reportFile: firstReport });
        const again = run(program, { seed: seedMain, reportFile: secondReport });
        const other = run(program, { seed: seedOther });

        assert.equal(again.stdout, first.stdout, `stdout differs between two runs of seed ${seedMain}`);
        assert.equal(again.status, first.status, `exit code differs between two runs of seed ${seedMain}`);
        const a = readReport(kept?.reportFile ?? firstReport);
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
