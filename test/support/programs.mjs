/**
 * Running a compliance program as a child process, plainly or under the simulator: shared by
 * the compliance harnesses (test/compliance, test/compliance-net), and the harness the network
 * corpora share.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
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
 * The command line, environment and description of a run of `program` (a file name in `dir`)
 * with the Node that runs mocha. `seed` undefined: plain Node. Otherwise under the simulator
 * with that seed, preloaded with `--import register` (default) or `--require register`
 * (`preload: 'require'`), where `register` defaults to the built dist/register.mjs (.cjs for
 * --require); `reportFile` receives the run's JSON report.
 */
function command(dir, program, { seed, reportFile, preload = 'import', register, env = {} } = {}) {
  // A program's `// Flags:` line goes to node, as in Node's own test runner.
  const flagLine = fs.readFileSync(path.join(dir, program), 'utf8').match(/^\/\/ Flags:(.*)$/m);
  const flags = flagLine ? flagLine[1].trim().split(/\s+/).filter(Boolean) : [];
  let args = [...flags, program];
  if (seed !== undefined) {
    const flag = preload === 'require' ? '--require' : '--import';
    args = [...flags, flag, register ?? (preload === 'require' ? REGISTER_CJS : REGISTER_MJS), program];
  }
  const extra = seed === undefined ? { ...env } : { ...env, DST_QUIET: '1', DST_SEED: seed };
  if (reportFile !== undefined) extra.DST_REPORT = reportFile;
  const how = seed === undefined ? 'plainly' : `under the simulator (DST_SEED=${seed})`;
  return { args, env: childEnv(extra), how, plain: seed === undefined };
}

/** Fails the test when the run did not finish by itself; else its stdout, exit code, stderr and warning lines. */
function finished(program, how, result) {
  assert.equal(result.error, undefined, `${program} ${how}: failed to run: ${result.error?.message}`);
  assert.equal(result.signal, null, `${program} ${how}: killed by ${result.signal}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  return { stdout: result.stdout, status: result.status, stderr: result.stderr, warnings: warningLines(result.stderr) };
}

/** Runs `program` and waits for it (options as `command`'s). */
export function runProgram(dir, program, options = {}) {
  const { args, env, how } = command(dir, program, options);
  const result = spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8', timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  return finished(program, how, result);
}

/** spawnSync's result, from a child that runs while this process goes on; never rejects. */
function spawnAsync(dir, args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    let error;
    const timer = setTimeout(() => {
      error = new Error(`still running after ${RUN_TIMEOUT_MS} ms: killed`);
      child.kill('SIGKILL');
    }, RUN_TIMEOUT_MS);
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (e) => (error ??= e));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), status, signal, error });
    });
  });
}

/**
 * How many programs run at once in one mocha process: one per core. On two cores, with mocha's
 * workers running other files beside, the machine stays busy while a program sleeps on a real
 * timer or waits for the loopback.
 */
const RUNS_AT_ONCE = Math.max(2, os.availableParallelism?.() ?? os.cpus().length);
let running = 0;
const waiting = [];

/** Calls `start` when fewer than RUNS_AT_ONCE runs are going (a freed slot passes to the longest waiter). */
async function limited(start) {
  if (running < RUNS_AT_ONCE) running++;
  else await new Promise((resolve) => waiting.push(resolve));
  try {
    return await start();
  } finally {
    const next = waiting.shift();
    if (next === undefined) running--;
    else next();
  }
}

/**
 * The runs of a corpus's programs, started ahead of the tests that check them: a test calls
 * `ahead(program, names)`, which starts those runs of its program and of the next programs
 * (RUNS_AT_ONCE of them, in the corpus's order) unless already started, then awaits its own
 * with `result(program, name)`. The tests still check one program at a time, in order, with
 * the same assertions; only the child processes overlap. `plan` maps a run's name to its
 * options (as runProgram's), given the program; a `report: true` option gets a report file.
 * Each run is made once per process, so two tests that name the same run share it.
 */
export function programRuns(dir, programs, plan) {
  const started = new Map();
  let reportDir;
  const start = (program, name) => {
    const key = `${program}\0${name}`;
    if (!started.has(key)) {
      const { report, ...options } = plan[name](program);
      if (report) {
        if (reportDir === undefined) {
          reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-compliance-reports-'));
          process.once('exit', () => fs.rmSync(reportDir, { recursive: true, force: true }));
        }
        options.reportFile = path.join(reportDir, `${program}.${name}.json`);
      }
      const { args, env, how, plain } = command(dir, program, options);
      const cacheFile = plain ? plainCacheFile(dir, args, env) : undefined;
      const cached = cacheFile === undefined ? undefined : readCached(cacheFile);
      const promise =
        cached !== undefined
          ? Promise.resolve(cached)
          : limited(() => spawnAsync(dir, args, env)).then((result) => {
              if (cacheFile !== undefined) keep(cacheFile, result);
              return result;
            });
      started.set(key, { promise, how, reportFile: options.reportFile, cacheFile });
    }
    return started.get(key);
  };
  return {
    ahead(program, names) {
      const from = programs.indexOf(program);
      for (const next of programs.slice(from, from + RUNS_AT_ONCE + 1)) for (const name of names) start(next, name);
    },
    /**
     * Drops the plain run's cache entry: a comparison that failed must meet a fresh plain run
     * next time, not the same one (a plain run slowed by a busy machine can print differently).
     */
    forget(program, name) {
      const cacheFile = started.get(`${program}\0${name}`)?.cacheFile;
      if (cacheFile !== undefined) fs.rmSync(cacheFile, { force: true });
    },
    /**
     * Whether plain Node, run afresh (up to `tries` more times, uncached), also prints what
     * `agrees` accepts: after a plain run that differed from the simulated one, a program whose
     * plain output changes with the machine's load (a real timing race the program was meant not
     * to have) is then shown to print the simulated output too, as Node does on an idle machine.
     * A simulated output that no plain run gives still fails.
     */
    async plainAgainAgrees(program, name, agrees, tries = 2) {
      const { report, ...options } = plan[name](program);
      const { args, env, how } = command(dir, program, options);
      for (let i = 0; i < tries; i++) {
        const again = finished(program, how, await limited(() => spawnAsync(dir, args, env)));
        if (agrees(again)) return true;
      }
      return false;
    },
    /** The run's stdout, exit code, stderr, warnings and report file; fails the test if it did not finish. */
    async result(program, name) {
      const run = start(program, name);
      return { ...finished(program, run.how, await run.promise), reportFile: run.reportFile };
    },
  };
}

/**
 * Plain-Node reference runs, cached by content hash: what a program prints on plain Node is a
 * function of the Node binary, the program's directory (the program and the helpers it
 * imports), its arguments and the environment variables Node itself reads, so a run repeated
 * with all of those unchanged (the next `npm test` or `npm run test:quick` on the same Node) is
 * read from os.tmpdir()/dst-runtime-plain-runs-<uid>/ instead of run again. Only finished runs
 * (no timeout, no signal) are kept. TEST_PLAIN_CACHE=0 runs every plain program afresh (CI
 * does; not a DST_ name: dst-runtime carries every DST_* variable into replay commands and
 * reports, which other tests check). Simulated runs are never cached: they are what the tests test.
 */
const PLAIN_CACHE_DIR = process.env.TEST_PLAIN_CACHE === '0' ? undefined : path.join(os.tmpdir(), `dst-runtime-plain-runs-${process.getuid?.() ?? 'user'}`);
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

/** Where the plain run (args, env) in `dir` is kept, or undefined when the cache is off. */
function plainCacheFile(dir, args, env) {
  return PLAIN_CACHE_DIR === undefined ? undefined : path.join(PLAIN_CACHE_DIR, `${plainCacheKey(dir, args, env)}.json`);
}

function readCached(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined; // not kept yet (or a torn file from a crashed run): run it
  }
}

function keep(file, result) {
  if (result.error !== undefined || result.signal !== null) return;
  fs.mkdirSync(PLAIN_CACHE_DIR, { recursive: true });
  // Written whole, then renamed: a parallel worker may read the same entry meanwhile.
  const partial = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(partial, JSON.stringify({ stdout: result.stdout, stderr: result.stderr, status: result.status, signal: null }));
  fs.renameSync(partial, file);
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
  const runs = programRuns(dir, programs, replayPlan({ seedMain, seedOther, env: simulatedEnv }));

  describe(`${name} compliance: plain Node ${process.version} vs the simulator (--import dist/register.mjs)`, function () {
    before(function () {
      assert.ok(fs.existsSync(REGISTER_MJS), `Failed to find ${REGISTER_MJS}: run \`npm run build\` first`);
      assert.ok(programs.length >= minPrograms, `expected at least ${minPrograms} ${name} programs in ${dir}, found ${programs.length}`);
    });

    for (const program of programs) {
      it(`${program}: same stdout and exit code`, async function () {
        runs.ahead(program, ['plain', 'main']);
        const plain = await runs.result(program, 'plain');
        const simulated = await runs.result(program, 'main');
        const context = `\n--- plain stderr ---\n${plain.stderr}\n--- simulated stderr ---\n${simulated.stderr}`;
        try {
          assert.ok(plainFinished(plain.stdout), `${program} did not finish cleanly on plain Node:\n${plain.stdout}${context}`);
          assert.equal(simulated.stdout, plain.stdout, `stdout differs (DST_SEED=${seedMain})${context}`);
          assert.equal(simulated.status, plain.status, `exit code differs (DST_SEED=${seedMain})${context}`);
        } catch (error) {
          runs.forget(program, 'plain');
          const agrees = (again) => plainFinished(again.stdout) && again.stdout === simulated.stdout && again.status === simulated.status;
          if (await runs.plainAgainAgrees(program, 'plain', agrees)) {
            console.warn(`\n${name} compliance ${program}: a plain run differed (a timing race under load); a fresh plain run printed what the simulator printed`);
            return;
          }
          throw error;
        }
      });
    }
  });

  describeReplays({ title: `${name} compliance programs are deterministic under the simulator`, programs, seedMain, seedOther, runs });
}

/**
 * The runs describeReplays checks, for programRuns: `plain`; `main`, `again` (both `seedMain`,
 * reported) and `other` (`seedOther`) under the simulator, preloaded as `register` (see
 * runProgram) with `env` added. A comparison with plain Node uses `main` too: it is the first
 * of the two runs with the main seed, so no third run of that seed is made.
 */
export function replayPlan({ seedMain, seedOther, register, env = {} }) {
  return {
    plain: () => ({}),
    main: () => ({ seed: seedMain, register, env, report: true }),
    again: () => ({ seed: seedMain, register, env, report: true }),
    other: () => ({ seed: seedOther, register, env }),
  };
}

/**
 * Under the simulator each program replays exactly with `seedMain` (stdout, exit code,
 * fingerprint and event count of two runs) and prints the same with `seedOther`. `runs`: the
 * programRuns of the corpus, with a replayPlan.
 */
export function describeReplays({ title, programs, seedMain, seedOther, runs }) {
  describe(title, function () {
    for (const program of programs) {
      it(`${program}: seed ${seedMain} twice replays exactly; seed ${seedOther} prints the same`, async function () {
        runs.ahead(program, ['main', 'again', 'other']);
        const first = await runs.result(program, 'main');
        const again = await runs.result(program, 'again');
        const other = await runs.result(program, 'other');

        assert.equal(again.stdout, first.stdout, `stdout differs between two runs of seed ${seedMain}`);
        assert.equal(again.status, first.status, `exit code differs between two runs of seed ${seedMain}`);
        const a = readReport(first.reportFile);
        const b = readReport(again.reportFile);
        assert.equal(a.seed, seedMain);
        assert.equal(b.fingerprint, a.fingerprint, `fingerprint differs between two runs of seed ${seedMain}`);
        assert.equal(b.events, a.events, `event count differs between two runs of seed ${seedMain}`);

        assert.equal(other.stdout, first.stdout, `stdout differs between seeds ${seedMain} and ${seedOther}`);
        assert.equal(other.status, first.status, `exit code differs between seeds ${seedMain} and ${seedOther}`);
      });
    }
  });
}
