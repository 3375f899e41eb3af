// The runner lab (test/runners/lab.sh): the same tests under mocha, node:test, Jest 30 (CommonJS,
// and ESM with vm-modules) and Vitest (forks, threads and vmThreads pools), each in a project of
// its own that installs dst-runtime as packed. For every runner it checks:
//
//   lab      lab.cjs and subsystems.cjs: every fingerprint and what the hosts saw (compare.mjs)
//   simtest  sim-test-lab.cjs: simTest's fingerprints; a failing seed's message and replay line;
//            a simulation cut by simTest's guard, by the runner's own timeout (a plain Sim) and
//            inside forEachSeed stops, and the next test finds the real globals and runs
//   replay   a seed that fails prints a replay line; pasted into a shell it reruns that seed only
//   only     simTest.only runs only the focused seeds
//
//   node test/runners/lab/run.mjs --work DIR [--tgz FILE] [--jobs N] [--runners mocha,jest-cjs,...]
//
// One npm install in DIR serves every project (each links DIR/node_modules) and, kept between
// runs (LAB_DIR), every Node version: the runners are
// plain JavaScript, and their native parts (rolldown's) are per platform, not per Node ABI.
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LAB = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(LAB, '../../..');
const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []),
);
const work = path.resolve(args.work ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dst-runner-lab.')));
const jobs = Number(args.jobs ?? 2);
const VITEST = process.env.LAB_VITEST ?? 'vitest@4.1.12';
const RUNNERS = ['mocha@11.8.0', 'jest@30.5.2', 'vite@8.3.8', VITEST];
const started = Date.now();
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(0);

// ---- the package and the runners, installed once ------------------------------------------

function packed() {
  if (args.tgz !== undefined) return path.resolve(args.tgz);
  execFileSync('npm', ['run', 'build'], { cwd: REPO, stdio: 'ignore' });
  const out = execFileSync('npm', ['pack', '--pack-destination', work], { cwd: REPO, encoding: 'utf8' });
  return path.join(work, out.trim().split('\n').pop());
}

function install(tgz) {
  const stamp = path.join(work, 'installed.json');
  const want = { runners: RUNNERS, tgz: createHash('sha256').update(fs.readFileSync(tgz)).digest('hex') };
  const have = fs.existsSync(stamp) ? JSON.parse(fs.readFileSync(stamp, 'utf8')) : {};
  if (have.tgz === want.tgz && JSON.stringify(have.runners) === JSON.stringify(want.runners)) return 'kept';
  if (!fs.existsSync(path.join(work, 'package.json'))) fs.writeFileSync(path.join(work, 'package.json'), '{"name":"dst-runner-lab","private":true}\n');
  // A copy inside the work directory: npm records the tarball's path in package.json.
  const local = path.join(work, 'dst-runtime.tgz');
  if (tgz !== local) fs.copyFileSync(tgz, local);
  const sameRunners = JSON.stringify(have.runners) === JSON.stringify(want.runners);
  const packages = sameRunners ? ['./dst-runtime.tgz'] : ['./dst-runtime.tgz', ...RUNNERS];
  execFileSync('npm', ['i', '--no-audit', '--no-fund', '--loglevel=error', '-E', ...packages], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
  fs.writeFileSync(stamp, JSON.stringify(want));
  return sameRunners ? 'dst-runtime reinstalled' : 'installed';
}

// ---- the projects ---------------------------------------------------------------------------

const SHARED = ['lab.cjs', 'subsystems.cjs', 'server.mjs', 'server.cjs', 'sim-test-lab.cjs'];
const vitest = (pool) => ({
  runner: 'Vitest',
  cmd: ['npx', 'vitest', 'run'],
  ext: 'mjs',
  lab: 'vitest.lab.mjs',
  sim: 'sim.vitest.mjs',
  files: { 'vitest.config.mjs': `export default { test: { pool: '${pool}', include: ['*.test.mjs'] } };\n` },
  onlyArgs: ['--allowOnly'],
  failed: /Tests\s+(\d+) failed/,
});
const CONFIGS = {
  mocha: { runner: 'mocha', cmd: ['npx', 'mocha'], ext: 'cjs', lab: 'mocha.lab.cjs', sim: 'sim.mocha.cjs', failed: /(\d+) failing/ },
  'node-test': {
    runner: 'node:test',
    cmd: ['node', '--test', '--test-reporter=spec'],
    ext: 'mjs',
    lab: 'node-test.lab.mjs',
    sim: 'sim.node-test.mjs',
    onlyArgs: ['--test-only'],
    // A test that timed out counts as cancelled, not failed.
    failed: (text) => Number(/ℹ fail (\d+)/.exec(text)?.[1] ?? 0) + Number(/ℹ cancelled (\d+)/.exec(text)?.[1] ?? 0),
  },
  'jest-cjs': {
    runner: 'Jest',
    cmd: ['npx', 'jest', '--ci'],
    ext: 'js',
    lab: 'jest-cjs.lab.js',
    sim: 'sim.jest.js',
    files: { 'jest.config.cjs': "module.exports = { testMatch: ['**/*.test.js'] };\n" },
    failed: /Tests:\s+(\d+) failed/,
  },
  'jest-esm': {
    runner: 'Jest',
    cmd: ['npx', 'jest', '--ci'],
    env: { NODE_OPTIONS: '--experimental-vm-modules' },
    ext: 'mjs',
    lab: 'jest-esm.lab.mjs',
    sim: 'sim.jest.mjs',
    files: { 'jest.config.cjs': "module.exports = { testMatch: ['**/*.test.mjs'], transform: {} };\n" },
    failed: /Tests:\s+(\d+) failed/,
  },
  'vitest-forks': vitest('forks'),
  'vitest-threads': vitest('threads'),
  'vitest-vmThreads': vitest('vmThreads'),
};
/** replay and only run once per runner (the pools differ in realms, not in how tests are named). */
const ONCE = new Set(['mocha', 'node-test', 'jest-cjs', 'jest-esm', 'vitest-forks']);

function project(name, config) {
  const dir = path.join(work, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  fs.symlinkSync('../node_modules', path.join(dir, 'node_modules'));
  fs.writeFileSync(path.join(dir, 'package.json'), `{"name":"lab-${name}","private":true}\n`);
  for (const file of SHARED) fs.copyFileSync(path.join(LAB, file), path.join(dir, file));
  fs.copyFileSync(path.join(LAB, config.lab), path.join(dir, `lab.test.${config.ext}`));
  fs.copyFileSync(path.join(LAB, config.sim), path.join(dir, `sim.test.${config.ext}`));
  for (const [file, text] of Object.entries(config.files ?? {})) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

// ---- running --------------------------------------------------------------------------------

// out/<config>.jsonl: what compare.mjs compares; out/extra: the replay, rerun and only runs' records.
const out = path.join(work, 'out');
const extra = path.join(out, 'extra');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(extra, { recursive: true });

/** Runs `command` (argv, or a shell line) in `dir`; resolves with its exit code and output. */
function run(dir, command, env, log) {
  return new Promise((resolve) => {
    const [file, ...rest] = typeof command === 'string' ? ['sh', '-c', command] : command;
    const child = spawn(file, rest, { cwd: dir, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env } });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('close', (code) => {
      fs.writeFileSync(log, text);
      resolve({ code, text });
    });
  });
}

function records(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
}
const valuesOf = (file, test) => records(file).filter((r) => r.test === test).map((r) => r.value);

/** Checks one config; returns a row of the report, with the problems found. */
async function check(name) {
  const config = CONFIGS[name];
  const t0 = Date.now();
  const dir = project(name, config);
  const problems = [];
  const row = { name, problems };
  const env = { ...config.env, LAB_OUT: path.join(out, `${name}.jsonl`) };
  const failedCount = (text) => (typeof config.failed === 'function' ? config.failed(text) : Number(config.failed.exec(text)?.[1] ?? 0));
  const expect = (ok, what) => {
    if (!ok) problems.push(what);
    return ok;
  };

  // lab: every test passes; compare.mjs compares the records.
  const lab = await run(dir, [...config.cmd, `lab.test.${config.ext}`], env, path.join(out, `${name}.lab.log`));
  row.lab = expect(lab.code === 0, `lab tests failed (exit ${lab.code}): see ${name}.lab.log`) ? 'pass' : 'FAIL';

  // simtest: four tests fail, each as it should; the tests after them find everything clean.
  const sim = await run(dir, [...config.cmd, `sim.test.${config.ext}`], { ...env, LAB_KIND: 'simtest' }, path.join(out, `${name}.sim.log`));
  const simOk = [
    expect(sim.code !== 0 && failedCount(sim.text) === 4, `simtest: ${failedCount(sim.text)} tests failed, expected 4 (exit ${sim.code})`),
    expect(/simTest "asserts on its run" failed on seed 0x4: AssertionError/.test(sim.text), 'simtest: the failed assertion does not name seed 0x4'),
    expect(/replay: DST_SEEDS=0x4 /.test(sim.text), 'simtest: the failed assertion has no replay line'),
    expect(sim.text.includes(`TimeoutError: ${config.runner}'s timeout of 1,000 ms for this test is 100 ms away`), 'simtest: the guard did not stop "runs forever" first'),
    expect(/seed {5}0x5\n[^\n]*\n\s*replay {3}DST_SEEDS=0x5 /.test(sim.text), 'simtest: the guarded seed has no seed and replay lines'),
    expect(!valuesOf(env.LAB_OUT, 'skipped ran').length, 'simtest: simTest.skip ran its body'),
  ];
  for (const label of ['assertion', 'guard', 'plain', 'forEachSeed']) {
    const [clean] = valuesOf(env.LAB_OUT, `clean:${label}`);
    const want = { realDate: true, running: false, next: 1e9, ...(label === 'plain' ? { aborted: true } : {}), ...(label === 'forEachSeed' ? { started: ['0x1'] } : {}) };
    simOk.push(expect(JSON.stringify(clean) === JSON.stringify(want), `simtest: after the ${label} test ${JSON.stringify(clean)}, expected ${JSON.stringify(want)}`));
  }
  row.simtest = simOk.every(Boolean) ? 'pass' : 'FAIL';

  if (ONCE.has(name)) {
    // replay: seed 2 fails; its line, pasted into a shell, reruns seed 2 alone and fails the same way.
    const replayOut = path.join(extra, `${name}.replay.jsonl`);
    const replay = await run(dir, [...config.cmd, `sim.test.${config.ext}`], { ...env, LAB_KIND: 'replay', LAB_OUT: replayOut }, path.join(out, `${name}.replay.log`));
    const line = /replay: (DST_SEEDS=0x2 [^\n]*)/.exec(replay.text)?.[1];
    const replayOk = [
      expect(replay.code !== 0 && failedCount(replay.text) === 1, `replay: ${failedCount(replay.text)} tests failed, expected 1`),
      expect(/failed on seed 0x2: safety/.test(replay.text), 'replay: seed 0x2 did not fail on safety'),
      expect(JSON.stringify(valuesOf(replayOut, 'replay:seed')) === '["0x1","0x2"]', `replay: ran seeds ${JSON.stringify(valuesOf(replayOut, 'replay:seed'))}`),
      expect(line !== undefined, 'replay: no replay line for seed 0x2'),
    ];
    row.replay = replayOk.every(Boolean) ? 'pass' : 'FAIL';
    row.line = line;
    if (line !== undefined) {
      const rerunOut = path.join(extra, `${name}.rerun.jsonl`);
      const rerun = await run(dir, line, { ...env, LAB_KIND: 'replay', LAB_OUT: rerunOut }, path.join(out, `${name}.rerun.log`));
      const ok = [
        expect(rerun.code !== 0 && /failed on seed 0x2: safety/.test(rerun.text), `rerun: "${line}" did not fail on seed 0x2 (exit ${rerun.code})`),
        expect(JSON.stringify(valuesOf(rerunOut, 'replay:seed')) === '["0x2"]', `rerun: ran seeds ${JSON.stringify(valuesOf(rerunOut, 'replay:seed'))}, expected 0x2 alone`),
      ];
      row.rerun = ok.every(Boolean) ? 'pass' : 'FAIL';
    }

    // only: simTest.only runs its seeds and nothing else.
    const onlyOut = path.join(extra, `${name}.only.jsonl`);
    const only = await run(dir, [...config.cmd, ...(config.onlyArgs ?? []), `sim.test.${config.ext}`], { ...env, LAB_KIND: 'only', LAB_OUT: onlyOut }, path.join(out, `${name}.only.log`));
    const ran = valuesOf(onlyOut, 'only');
    row.only = expect(only.code === 0 && JSON.stringify(ran) === '["focused 0x1","focused 0x2"]', `only: ran ${JSON.stringify(ran)} (exit ${only.code})`) ? 'pass' : 'FAIL';
  }
  row.seconds = seconds(t0);
  return row;
}

// ---- main -----------------------------------------------------------------------------------

const major = Number(process.versions.node.split('.')[0]);
const [minor] = process.versions.node.split('.').slice(1).map(Number);
// Vitest 4 (and vite 8) need Node 20.19 or later.
const vitestRuns = major > 20 || (major === 20 && minor >= 19);
const names = Object.keys(CONFIGS)
  .filter((name) => vitestRuns || !name.startsWith('vitest'))
  .filter((name) => args.runners === undefined || args.runners.split(',').includes(name));

console.log(`== Node ${process.version}: runner lab in ${work}`);
const tgz = packed();
const t0 = Date.now();
console.log(`   install: ${install(tgz)} (${seconds(t0)} s)`);

const rows = [];
const queue = [...names];
await Promise.all(
  Array.from({ length: Math.max(1, jobs) }, async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) rows.push(await check(name));
  }),
);
rows.sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name));
console.log(`   ${'runner'.padEnd(18)}lab   simtest  replay  rerun  only   seconds`);
for (const r of rows) {
  console.log(`   ${r.name.padEnd(18)}${r.lab.padEnd(6)}${r.simtest.padEnd(9)}${(r.replay ?? '-').padEnd(8)}${(r.rerun ?? '-').padEnd(7)}${(r.only ?? '-').padEnd(7)}${r.seconds}`);
}
for (const r of rows) if (r.line !== undefined) console.log(`   ${r.name.padEnd(18)}replay: ${r.line}`);
let status = 0;
for (const r of rows) {
  for (const problem of r.problems) {
    status = 1;
    console.log(`   ${r.name}: ${problem}`);
  }
}
const compare = await run(REPO, ['node', path.join(LAB, 'compare.mjs'), out], {}, path.join(out, 'compare.log'));
console.log(compare.text.trimEnd().replace(/^/gm, '   '));
if (compare.code !== 0) status = 1;
console.log(`== runner lab ${status === 0 ? 'passed' : `FAILED (logs in ${out})`} in ${seconds(started)} s`);
process.exit(status);
