// A small project per test runner (issue 21): mocha, node:test, Jest and Vitest installed from
// the npm registry next to dst-runtime as packed, each running the same simTest file
// (fixtures/projects/body.cjs) through its integration (dst-runtime/mocha, /node-test, /jest,
// /vitest). Every runner must give the same fingerprints, report the failing seed with a replay
// line that reruns that seed alone, stop a never-idle seed before its timeout and leave the next
// test a clean process. The install is kept in the system's temp directory (one per set of
// runner versions) for the next run, the next Node version's included. Without the registry
// that part is skipped with a message saying so, and mocha and node:test run the project from
// this repository instead. test/runners/lab.sh checks much more (Jest ESM, every Vitest pool),
// by hand.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/projects/', import.meta.url));
const FAKE_TIMERS_OBSERVE = fileURLToPath(new URL('../support/fake-timers-observe.cjs', import.meta.url));
const RUNNERS = ['mocha@11.8.0', 'jest@30.5.2', 'vite@8.3.8', 'vitest@4.1.12'];
const WORK = path.join(os.tmpdir(), `dst-runtime-runner-projects-${createHash('sha256').update(RUNNERS.join(' ')).digest('hex').slice(0, 12)}`);
const [major, minor] = process.versions.node.split('.').map(Number);
// Vitest 4 (and vite 8) need Node 20.19 or later.
const VITEST_RUNS = major > 20 || (major === 20 && minor >= 19);
/**
 * What npm needs to reach the registry: the machine's extra CA bundle, which
 * test/support/pin-machine.cjs takes out of the tests' environment (it costs Node 20 a parse at
 * every start) and keeps as TEST_NODE_EXTRA_CA_CERTS.
 */
const REGISTRY_ENV = process.env.TEST_NODE_EXTRA_CA_CERTS === undefined ? {} : { NODE_EXTRA_CA_CERTS: process.env.TEST_NODE_EXTRA_CA_CERTS };

const PROJECTS = {
  mocha: { file: 'sim.test.cjs', fixture: 'mocha.cjs', cmd: ['npx', 'mocha'], failed: /(\d+) failing/ },
  'node-test': {
    file: 'sim.test.mjs',
    fixture: 'node-test.mjs',
    cmd: ['node', '--test', '--test-reporter=spec'],
    // A test that timed out counts as cancelled, not failed.
    failed: (text) => Number(/ℹ fail (\d+)/.exec(text)?.[1] ?? 0) + Number(/ℹ cancelled (\d+)/.exec(text)?.[1] ?? 0),
  },
  jest: {
    file: 'sim.test.js',
    fixture: 'jest.js',
    cmd: ['npx', 'jest', '--ci'],
    failed: /Tests:\s+(\d+) failed/,
    files: {
      'jest.config.cjs': "module.exports = { testMatch: ['**/sim.test.js', '**/import.test.js', '**/fake-timers.test.js'] };\n",
      'jest-fake-timers.config.cjs': "module.exports = { testMatch: ['**/fake-timers.test.js'], fakeTimers: { enableGlobally: true } };\n",
      'answer.mjs': 'export const answer = 42;\n',
    },
  },
  vitest: {
    file: 'sim.test.mjs',
    fixture: 'vitest.mjs',
    cmd: ['npx', 'vitest', 'run'],
    failed: /Tests\s+(\d+) failed/,
    files: { 'vitest.config.mjs': "export default { test: { include: ['sim.test.mjs', 'import.test.mjs'] } };\n", 'answer.mjs': 'export const answer = 42;\n' },
  },
};

/** Runs `command` (argv, or a shell line) in `cwd`; resolves with its exit code and output. */
function run(cwd, command, env = {}, timeoutMs = 60_000) {
  return new Promise((resolve) => {
    const [file, ...args] = typeof command === 'string' ? ['sh', '-c', command] : command;
    const child = spawn(file, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, text });
    });
  });
}

function records(file, test) {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((r) => r.test === test)
    .map((r) => r.value);
}

/** Packs this repository (built by npm test's pretest) and installs it and the runners in WORK, once per tarball. */
async function install() {
  fs.mkdirSync(WORK, { recursive: true });
  const packed = await run(REPO, ['npm', 'pack', '--pack-destination', WORK, '--loglevel=error'], REGISTRY_ENV);
  assert.equal(packed.code, 0, `npm pack failed:\n${packed.text}`);
  const tgz = path.join(WORK, packed.text.trim().split('\n').pop());
  const local = path.join(WORK, 'dst-runtime.tgz');
  fs.renameSync(tgz, local);
  const want = { runners: RUNNERS, tgz: createHash('sha256').update(fs.readFileSync(local)).digest('hex') };
  const stamp = path.join(WORK, 'installed.json');
  const have = fs.existsSync(stamp) ? JSON.parse(fs.readFileSync(stamp, 'utf8')) : {};
  if (have.tgz === want.tgz && JSON.stringify(have.runners) === JSON.stringify(want.runners)) return;
  if (!fs.existsSync(path.join(WORK, 'package.json'))) fs.writeFileSync(path.join(WORK, 'package.json'), '{"name":"dst-runner-projects","private":true}\n');
  const sameRunners = JSON.stringify(have.runners) === JSON.stringify(want.runners);
  const packages = sameRunners ? ['./dst-runtime.tgz'] : ['./dst-runtime.tgz', ...RUNNERS];
  const installed = await run(WORK, ['npm', 'i', '--no-audit', '--no-fund', '--loglevel=error', '-E', ...packages], REGISTRY_ENV, 300_000);
  assert.equal(installed.code, 0, `npm install in ${WORK} failed:\n${installed.text}`);
  fs.writeFileSync(stamp, JSON.stringify(want));
}

/** The project of one runner in a fresh directory of this run; node_modules is WORK's. */
function project(runDir, name) {
  const config = PROJECTS[name];
  const dir = path.join(runDir, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(path.join(WORK, 'node_modules'), path.join(dir, 'node_modules'));
  fs.writeFileSync(path.join(dir, 'package.json'), `{"name":"project-${name}","private":true}\n`);
  for (const file of ['body.cjs', 'server.mjs']) fs.copyFileSync(path.join(FIXTURES, file), path.join(dir, file));
  fs.copyFileSync(path.join(FIXTURES, config.fixture), path.join(dir, config.file));
  for (const [file, text] of Object.entries(config.files ?? {})) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

/** Runs the project's `file` in `dir` with `cmd`, then the failing seed's replay line; the outputs and records. */
async function exercise(name, dir, cmd, file, out) {
  const config = PROJECTS[name];
  const main = await run(dir, [...cmd, file], { PROJECT_OUT: path.join(out, `${name}.jsonl`) });
  // The replay line of the failing seed, pasted into a shell in the project.
  const line = /replay: (DST_SEEDS=0x2 [^\n]*)/.exec(main.text)?.[1];
  const replayOut = path.join(out, `${name}.replay.jsonl`);
  const replay = line === undefined ? undefined : await run(dir, line, { PROJECT_OUT: replayOut, PROJECT_KIND: 'replay' });
  const log = path.join(out, `${name}.log`);
  fs.writeFileSync(log, `${main.text}\n---- replay: ${line}\n${replay?.text ?? ''}`);
  const failed = typeof config.failed === 'function' ? config.failed(main.text) : Number(config.failed.exec(main.text)?.[1] ?? 0);
  return { main, out: path.join(out, `${name}.jsonl`), line, replay, replayOut, failed, log };
}

/** The checks of each runner's run, and across runners; `results` is filled by a before hook. */
function checks(names, results) {
  for (const name of names) {
    it(`${name}: four tests fail (the planted bug, a never-idle seed of simTest and of scenarioSeeds, a plain Sim the runner timed out), seeds named; the rest pass`, function () {
      if (!results.has(name)) this.skip();
      const { main, out, failed, log } = results.get(name);
      assert.notEqual(main.code, 0, `the run passed: ${log}`);
      assert.equal(failed, 4, `${failed} tests failed, expected 4 (${log}):\n${main.text.slice(-3000)}`);
      assert.match(main.text, /simTest "planted bug" failed on seed 0x2: Error: planted bug: the run took \d+ ns/);
      assert.match(main.text, /TimeoutError: [^\n]*'s timeout of 1,000 ms for this test is 100 ms away: dst-runtime stopped the simulation first/);
      assert.match(main.text, /seed {5}0x4\n[^\n]*\n\s*replay {3}DST_SEEDS=0x4 /);
      assert.deepEqual(records(out, 'planted'), ['0x1', '0x2']);
      assert.deepEqual(records(out, 'skipped ran'), []);
      assert.equal(records(out, 'counter').length, 3);
    });

    it(`${name}: after each timed-out test the globals are Node's, no simulation runs, and a new one runs`, function () {
      if (!results.has(name)) this.skip();
      const clean = { realDate: true, running: false, next: 1e9 };
      const labels = ['simTest', 'plain', 'scenarioSeeds'];
      assert.deepEqual(records(results.get(name).out, 'clean'), labels.map((label) => ({ label, ...clean })));
      // node:test does not tell a test its timeout, only aborts t.signal at it: its own message reports it.
      if (name !== 'node-test') assert.match(results.get(name).main.text, /seed {5}0x7\n[^\n]*\n\s*replay {3}DST_SEEDS=0x7 /);
      // mocha never reads the timed-out test's rejection: dst-runtime/mocha's afterEach prints
      // where the run it stopped stood, with its seed and replay line.
      if (name === 'mocha') {
        assert.match(results.get(name).main.text, /dst: run aborted by sim\.abort\(\): Error: mocha's test "a plain Sim cut by the runner's timeout" timed out while its simulation was still running\n {2}seed {5}0x6\n {2}time {5}[\d.]+ s \(virtual\) {3}event \d+\n {2}replay {3}/);
      }
    });

    it(`${name}: the failing seed's replay line reruns that seed alone, failing the same way`, function () {
      if (!results.has(name)) this.skip();
      const { main, line, replay, replayOut } = results.get(name);
      assert.ok(line !== undefined, `no replay line for seed 0x2:\n${main.text.slice(-3000)}`);
      assert.notEqual(replay.code, 0, `the replay passed: ${line}`);
      assert.deepEqual(records(replayOut, 'planted'), ['0x2'], `"${line}" ran other seeds`);
      const message = (text) => /planted bug: the run took \d+ ns/.exec(text)?.[0];
      assert.equal(message(replay.text), message(main.text));
    });
  }

  it('every runner gives the same fingerprints, answers and failures as mocha', function () {
    if (!results.has('mocha')) this.skip();
    const counter = (name) => records(results.get(name).out, 'counter').sort((a, b) => a.seed.localeCompare(b.seed));
    const failure = (name) => /planted bug: the run took \d+ ns/.exec(results.get(name).main.text)?.[0];
    const base = counter('mocha');
    assert.deepEqual(base.map((r) => r.seed), ['0x1', '0x2', '0x3']);
    assert.equal(new Set(base.map((r) => r.fingerprint)).size, 3, 'three seeds, three executions');
    assert.ok(failure('mocha') !== undefined);
    for (const name of results.keys()) {
      assert.deepEqual(counter(name), base, `${name}'s runs differ from mocha's`);
      assert.equal(failure(name), failure('mocha'), `${name}'s planted bug failed differently`);
    }
  });
}

let registryRan = false;

describe('a small simTest project per test runner, installed from the npm registry', function () {
  this.timeout(360_000);
  const names = Object.keys(PROJECTS).filter((name) => name !== 'vitest' || VITEST_RUNS);
  const results = new Map();
  let runDir;

  before(async function () {
    const ping = spawnSync('npm', ['ping', '--loglevel=error', '--fetch-retries=0', '--fetch-timeout=15000'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...REGISTRY_ENV } });
    if (ping.status !== 0) {
      const lines = (ping.error?.message ?? `${ping.stdout}${ping.stderr}`).split('\n').map((line) => line.replace(/^npm error /, '').trim());
      const why = lines.find((line) => line.startsWith('FetchError')) ?? lines.find(Boolean);
      console.log(`\n  SKIPPED: the npm registry is unreachable (npm ping: ${why || `exit ${ping.status}`}): the mocha, node:test, Jest and Vitest projects did not run\n`);
      this.skip();
    }
    if (!VITEST_RUNS) console.log(`\n  Vitest 4 needs Node 20.19 or later: its project does not run on ${process.version}\n`);
    await install();
    runDir = fs.mkdtempSync(path.join(WORK, 'run-'));
    registryRan = true;
    for (const name of names) results.set(name, await exercise(name, project(runDir, name), PROJECTS[name].cmd, PROJECTS[name].file, runDir));
  });

  for (const [fixture, what] of [
    ['vitest-import.mjs', 'a client awaiting import() of a project module goes on after the load'],
    ['vitest-host-import.mjs', "a host's import() of a project module settles where it was made, the same every run"],
  ]) {
    it(`vitest: ${what}, in the forks and the threads pool`, async function () {
      if (!results.has('vitest')) this.skip();
      const dir = path.join(runDir, 'vitest');
      fs.copyFileSync(path.join(FIXTURES, fixture), path.join(dir, 'import.test.mjs'));
      for (const pool of ['forks', 'threads']) {
        const { code, text } = await run(dir, ['npx', 'vitest', 'run', 'import.test.mjs', `--pool=${pool}`]);
        assert.equal(code, 0, `${pool} pool:\n${text.slice(-3000)}`);
        assert.match(text, /Tests\s+1 passed/, pool);
      }
    });
  }

  it('jest: a client awaiting import() goes on after the load, with the fingerprint and clock readings of the same run outside Jest', async function () {
    if (!results.has('jest')) this.skip();
    const dir = path.join(runDir, 'jest');
    const out = path.join(runDir, 'jest-import.jsonl');
    fs.copyFileSync(path.join(FIXTURES, 'jest-import.js'), path.join(dir, 'import.test.js'));
    const { code, text } = await run(dir, ['npx', 'jest', '--ci', 'import.test.js'], { NODE_OPTIONS: '--experimental-vm-modules', PROJECT_OUT: out });
    assert.equal(code, 0, text.slice(-3000));
    assert.match(text, /Tests:\s+3 passed/);
    const runs = fs.readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(runs.map((r) => r.target), ['./answer.mjs', './body.cjs', 'node:os']);
    // The same client outside Jest, in this process.
    const { Sim } = await import('dst-runtime');
    const log = [];
    const sim = new Sim({ seed: 0xd1 });
    sim.client('c', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(['before', performance.now()]);
      const loaded = await import(path.join(dir, 'answer.mjs'));
      log.push(['loaded', typeof loaded, performance.now()]);
      await new Promise((resolve) => setTimeout(resolve, 10));
      log.push(['after', performance.now()]);
    });
    const { fingerprint } = await sim.run();
    for (const r of runs) assert.deepEqual({ fingerprint: r.fingerprint, log: r.log }, { fingerprint, log }, r.target);
  });

  it("jest: with jest.useFakeTimers() in the test, and with fakeTimers.enableGlobally, host code sees the simulation's clock and the run outside Jest; the fakes work after it", async function () {
    if (!results.has('jest')) this.skip();
    const dir = path.join(runDir, 'jest');
    fs.copyFileSync(path.join(FIXTURES, 'jest-fake-timers.js'), path.join(dir, 'fake-timers.test.js'));
    fs.copyFileSync(FAKE_TIMERS_OBSERVE, path.join(dir, 'fake-timers-observe.cjs'));
    // The same client outside Jest and without fakes, in this process.
    const { observe } = createRequire(import.meta.url)(FAKE_TIMERS_OBSERVE);
    const baseline = await observe();
    for (const [how, args, env] of [
      ['in the test', ['fake-timers.test.js'], {}],
      ['enableGlobally', ['--config', 'jest-fake-timers.config.cjs'], { PROJECT_FAKE_TIMERS: 'global' }],
    ]) {
      const out = path.join(runDir, `jest-fake-timers-${env.PROJECT_FAKE_TIMERS ?? 'test'}.jsonl`);
      const { code, text } = await run(dir, ['npx', 'jest', '--ci', ...args], { ...env, PROJECT_OUT: out });
      assert.equal(code, 0, `${how}:\n${text.slice(-3000)}`);
      assert.match(text, /Tests:\s+2 passed/, how);
      const runs = fs.readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      assert.equal(runs.length, 2, how);
      for (const { name, got } of runs) assert.deepEqual(got, baseline, `${how}: ${name}`);
    }
  });

  for (const runner of ['vitest', 'jest']) {
    it(`${runner}: with a config given by -c, the replay line passes it on and reruns the one failing test; a file of concurrent tests gets no -t`, async function () {
      // Found by a probe (2026-12-05): the line dropped -c, and named the last concurrent test started.
      if (!results.has(runner)) this.skip();
      const dir = path.join(runDir, runner);
      const out = path.join(runDir, `${runner}-config.log`);
      const ext = runner === 'vitest' ? 'mjs' : 'js';
      const head = runner === 'vitest' ? "import { describe, test } from 'vitest';\nimport fs from 'node:fs';\nimport { Sim } from 'dst-runtime';\n" : "const fs = require('node:fs');\nconst { Sim } = require('dst-runtime');\n";
      const body = (group) =>
        `${head}${group}('custom config', () => {\n` +
        "  test('fails on its seed', async () => {\n" +
        "    fs.appendFileSync(process.env.CONFIG_OUT, 'failing ran\\n');\n" +
        '    const sim = new Sim();\n' +
        "    sim.host('h', () => setTimeout(() => { throw new Error('planted in the custom config'); }, 1));\n" +
        '    await sim.run();\n' +
        '  });\n' +
        "  test('another test', () => { fs.appendFileSync(process.env.CONFIG_OUT, 'other ran\\n'); });\n" +
        '});\n';
      fs.writeFileSync(path.join(dir, `custom.test.${ext}`), body('describe'));
      fs.writeFileSync(path.join(dir, `concurrent.test.${ext}`), body(runner === 'vitest' ? 'describe.concurrent' : 'describe').replaceAll("  test('", runner === 'vitest' ? "  test('" : "  test.concurrent('"));
      fs.mkdirSync(path.join(dir, 'configs'), { recursive: true });
      const config = runner === 'vitest' ? 'configs/custom.vitest.mjs' : 'configs/custom.jest.cjs';
      fs.writeFileSync(
        path.join(dir, config),
        runner === 'vitest'
          ? "export default { test: { include: ['custom.test.mjs', 'concurrent.test.mjs'] } };\n"
          : "module.exports = { rootDir: '..', testMatch: ['**/custom.test.js', '**/concurrent.test.js'] };\n",
      );
      const cmd = runner === 'vitest' ? ['npx', 'vitest', 'run', '-c', config] : ['npx', 'jest', '--ci', '-c', config];
      const main = await run(dir, cmd, { DST_SEED: '0x3', CONFIG_OUT: out });
      assert.notEqual(main.code, 0, main.text.slice(-3000));
      const lines = [...main.text.matchAll(/replay {3}(DST_SEED=0x3 [^\n]*)/g)].map((m) => m[1]);
      const file = `custom.test.${ext}`;
      const pattern = "-t 'custom config fails on its seed$'";
      const expected = runner === 'vitest' ? `DST_SEED=0x3 npx vitest run ${file} -c ${config} ${pattern}` : `DST_SEED=0x3 npx jest ${file} -c ${config} ${pattern}`;
      assert.ok(lines.includes(expected), `no line ${expected} in:\n${lines.join('\n')}\n${main.text.slice(-3000)}`);
      const concurrent = lines.find((line) => line.includes(`concurrent.test.${ext}`));
      assert.match(concurrent ?? '', new RegExp(`concurrent\\.test\\.${ext} -c ${config.replace('.', '\\.')}  # this file's tests run concurrently`), lines.join('\n'));
      // Pasted: only the failing test runs, and fails the same way.
      fs.rmSync(out, { force: true });
      const replay = await run(dir, expected, { CONFIG_OUT: out });
      assert.notEqual(replay.code, 0, replay.text.slice(-3000));
      assert.match(replay.text, /planted in the custom config/);
      assert.deepEqual(fs.readFileSync(out, 'utf8').trim().split('\n'), ['failing ran']);
    });
  }

  after(() => {
    if (runDir !== undefined) fs.rmSync(runDir, { recursive: true, force: true });
  });

  checks(Object.keys(PROJECTS), results);
});

// Without the registry: mocha and node:test (which need no install) still run the project, from
// this repository (the fixtures import dst-runtime by its own name: this package, as built).
describe('the simTest project under mocha and node:test from this repository, when the registry is unreachable', function () {
  this.timeout(120_000);
  const results = new Map();
  let out;
  before(async function () {
    if (registryRan) this.skip();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-runtime-local-project-'));
    results.set('mocha', await exercise('mocha', FIXTURES, ['node', path.join(REPO, 'node_modules/.bin/mocha'), '--no-config'], 'mocha.cjs', out));
    results.set('node-test', await exercise('node-test', FIXTURES, PROJECTS['node-test'].cmd, 'node-test.mjs', out));
  });
  after(() => {
    if (out !== undefined) fs.rmSync(out, { recursive: true, force: true });
  });
  checks(['mocha', 'node-test'], results);
});

