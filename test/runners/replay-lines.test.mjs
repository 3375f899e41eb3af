// Replay lines printed without `file`: a command that reruns the test, also from Jest's and
// Vitest's workers, whose own command line is the runner's worker script (runtime/testing/rerun.ts).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const fixture = 'fixtures/replay-line.cjs';

function replayLines(where, env = {}) {
  const runners = ['VITEST', 'JEST_WORKER_ID', 'NODE_TEST_CONTEXT'];
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !runners.includes(k) && !k.startsWith('DST_')));
  const stdout = execFileSync(process.execPath, [fixture, where], { cwd: dir, encoding: 'utf8', env: { ...clean, DST_SEED: '0x9', ...env } });
  return JSON.parse(stdout);
}

const vitest = { VITEST: 'true', MATCHER_STATE: JSON.stringify({ testPath: `${dir}a.test.mjs`, currentTestName: 'suite > it (works)' }) };
const jest = { JEST_WORKER_ID: '1', MATCHER_STATE: JSON.stringify({ testPath: `${dir}a.test.js`, currentTestName: 'suite it works' }) };

describe('replay lines without a file', function () {
  this.timeout(30_000);

  it('mocha: this process\'s command line', () => {
    assert.deepEqual(replayLines('main'), {
      forEachSeed: `DST_SEEDS=0x5 node ${fixture} main`,
      sim: `DST_SEED=0x9 node ${fixture} main`,
    });
  });

  it('mocha --parallel (a worker, whose command line is mocha\'s worker script): npx mocha <the test file>', () => {
    // Found by a probe (2026-12-05): no replay line was printed at all (mocha's stack filter
    // dropped it: it named node_modules/mocha/lib/nodejs/worker.js, and reran nothing).
    const runners = ['VITEST', 'JEST_WORKER_ID', 'NODE_TEST_CONTEXT'];
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !runners.includes(k) && !k.startsWith('DST_') && !k.startsWith('MOCHA')));
    const mocha = fileURLToPath(new URL('../../node_modules/mocha/bin/mocha.js', import.meta.url));
    const run = spawnSync(process.execPath, [mocha, '--parallel', '--jobs', '2', '--no-config', 'fixtures/mocha-parallel/a.cjs', 'fixtures/mocha-parallel/b.cjs'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...clean, DST_SEED: '0x9' },
    });
    assert.equal(run.status, 2, run.stdout + run.stderr);
    assert.match(run.stdout, /replay {3}DST_SEEDS=0x3 npx mocha fixtures\/mocha-parallel\/a\.cjs\n/);
    assert.match(run.stdout, /replay {3}DST_SEED=0x9 npx mocha fixtures\/mocha-parallel\/a\.cjs\n/);
  });

  it('node:test (a child of node --test): node --test <file>, without the options node --test passed it', () => {
    assert.deepEqual(replayLines('main', { NODE_TEST_CONTEXT: 'child-v8' }), {
      forEachSeed: `DST_SEEDS=0x5 node --test ${fixture} main`,
      sim: `DST_SEED=0x9 node --test ${fixture} main`,
    });
  });

  for (const where of ['main', 'thread', 'sandbox']) {
    it(`Vitest (test file in the ${where === 'main' ? 'fork' : where === 'thread' ? 'worker thread' : 'vm context'}): npx vitest run <file> -t <name>`, () => {
      assert.deepEqual(replayLines(where, vitest), {
        forEachSeed: "DST_SEEDS=0x5 npx vitest run a.test.mjs -t 'suite it \\(works\\)$'",
        sim: "DST_SEED=0x9 npx vitest run a.test.mjs -t 'suite it \\(works\\)$'",
      });
    });

    it(`Jest (test file in the ${where === 'main' ? 'worker' : where === 'thread' ? 'worker thread' : 'vm context'}): npx jest <file> -t <name>`, () => {
      assert.deepEqual(replayLines(where, jest), {
        forEachSeed: "DST_SEEDS=0x5 npx jest a.test.js -t 'suite it works$'",
        sim: "DST_SEED=0x9 npx jest a.test.js -t 'suite it works$'",
      });
    });
  }

  describe('the runner\'s options that choose its configuration (read from its command line: Linux)', () => {
    before(function () {
      if (process.platform !== 'linux') this.skip(); // no /proc to read a process's command line from
    });

    function underRunner(runner, where, args, env) {
      const runners = ['VITEST', 'JEST_WORKER_ID', 'NODE_TEST_CONTEXT'];
      const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !runners.includes(k) && !k.startsWith('DST_')));
      const stdout = execFileSync(process.execPath, [`fixtures/fake-runner/${runner}.cjs`, ...args], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...clean, DST_SEED: '0x9', FAKE_RUNNER_WHERE: where, ...env },
      });
      return JSON.parse(stdout).sim;
    }

    it('Vitest, a forked worker: -c, --project and --root=, not the pool, the reporter or the file filter', () => {
      // Found by a probe (2026-12-05): the line dropped -c, so it reran the default config's tests.
      const args = ['run', '-c', 'cfg/x.config.mjs', '--pool', 'threads', '--project', 'p1', '--root=.', '--reporter', 'dot', 'a.test'];
      assert.equal(underRunner('vitest', 'fork', args, vitest), "DST_SEED=0x9 npx vitest run a.test.mjs -c cfg/x.config.mjs --project p1 --root=. -t 'suite it \\(works\\)$'");
    });

    it('Jest, a worker thread of the runner\'s process: --config= and every project of --selectProjects', () => {
      const args = ['--ci', '--config=jest.other.cjs', '--selectProjects', 'api', 'web', '-w', '2'];
      assert.equal(underRunner('jest', 'thread', args, jest), "DST_SEED=0x9 npx jest a.test.js --config=jest.other.cjs --selectProjects api web -t 'suite it works$'");
    });

    for (const [runner, env, command] of [
      ['vitest', vitest, 'npx vitest run a.test.mjs -c x.mjs'],
      ['jest', jest, 'npx jest a.test.js -c x.mjs'],
    ]) {
      it(`${runner}: a file of concurrent tests gets no -t (the runner's state names the last test started), and a comment says why`, () => {
        const line = underRunner(runner, 'fork', ['-c', 'x.mjs'], { ...env, CONCURRENT_TESTS: runner });
        assert.equal(line, `DST_SEED=0x9 ${command}  # this file's tests run concurrently, and the runner does not say which one this is: add -t <its name> to run it alone`);
      });
    }
  });

  it('another runner\'s worker thread: what to pass instead, at the failure', () => {
    assert.deepEqual(replayLines('thread'), {
      forEachSeed:
        'run this test again with DST_SEEDS=0x5 (no command reruns it from this worker thread of its runner; pass `file` for `dst run <file> --seed S`, or `replay: (seed) => command`)',
      sim: 'run this test again with DST_SEED=0x9 (no command reruns it from this worker thread of its runner; or pin the seed: new Sim({ seed: 0x9 }))',
    });
  });
});
