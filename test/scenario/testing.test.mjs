import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { forEachSeed, scenarioSeeds, ScenarioSeedFailure, seedList, UsageError } from 'dst-runtime';
import { counterScenario } from '../../examples/scenarios/replicated-counter.mjs';
import quick from './fixtures/quick.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COUNTER = 'examples/scenarios/replicated-counter.mjs';

function node(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, env: { ...process.env, DST_SEEDS: '', DST_SWEEP: '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

describe('test-runner helpers: seedList', () => {
  const quiet = () => {};
  it('pinned seeds by default (1..10 unless given), DST_SEEDS=a,b for a list', () => {
    assert.deepEqual(seedList({ env: {} }), ['0x1', '0x2', '0x3', '0x4', '0x5', '0x6', '0x7', '0x8', '0x9', '0xa']);
    assert.deepEqual(seedList({ seeds: [42, '0x6'], env: {} }), ['0x2a', '0x6']);
    assert.deepEqual(seedList({ seeds: [1], env: { DST_SEEDS: '0x6, 9' } }), ['0x6', '0x9']);
  });

  it('DST_SEEDS=random:N and DST_SWEEP=N draw N fresh seeds and print them', () => {
    const lines = [];
    const a = seedList({ seeds: [1], env: { DST_SEEDS: 'random:5' }, log: (l) => lines.push(l) });
    const b = seedList({ seeds: [1], env: { DST_SWEEP: '5' }, log: (l) => lines.push(l) });
    assert.equal(a.length, 5);
    assert.equal(b.length, 5);
    assert.notDeepEqual(a, b);
    assert.match(lines[0], new RegExp(`DST_SEEDS=random:5: 5 random seed\\(s\\): ${a.join(' ')}`));
    assert.match(lines[1], new RegExp(`DST_SWEEP=5: .*${b.join(' ')}`));
    assert.throws(() => seedList({ env: { DST_SWEEP: 'lots' }, log: quiet }), UsageError);
    assert.throws(() => seedList({ env: { DST_SEEDS: 'random:0' }, log: quiet }), /DST_SEEDS=random:N/);
  });
});

describe('test-runner helpers: forEachSeed and scenarioSeeds', () => {
  it('forEachSeed runs every seed; a failure names seed, kind, message and the replay (seed 0x6)', async () => {
    const passed = await forEachSeed(quick, { seeds: [1, 2, 3], env: {} });
    assert.deepEqual(passed.map((r) => r.ok), [true, true, true]);
    const error = await forEachSeed(counterScenario({ bug: true }), { seeds: [0x6, 0x2a], file: COUNTER, env: {} }).then(() => undefined, (e) => e);
    assert.ok(error instanceof ScenarioSeedFailure);
    assert.equal(error.seed, '0x6');
    assert.equal(error.kind, 'safety');
    assert.match(error.message, /^scenario "replicated-counter \(buggy: ack before replicate\)" failed on seed 0x6: safety: SafetyViolation: .*acknowledged/);
    assert.match(error.message, /replay: dst run examples\/scenarios\/replicated-counter\.mjs --seed 0x6/);
  });

  it('scenarioSeeds defines one test per seed with the given it()', async () => {
    const tests = [];
    const seeds = scenarioSeeds(counterScenario({ bug: true }), { it: (name, fn) => tests.push({ name, fn }), seeds: [0x6], env: {} });
    assert.deepEqual(seeds, ['0x6']);
    assert.deepEqual(tests.map((t) => t.name), ['replicated-counter (buggy: ack before replicate) seed 0x6']);
    const error = await tests[0].fn().then(() => undefined, (e) => e);
    assert.match(error?.message, /failed on seed 0x6: safety[\s\S]*replay: DST_SEEDS=0x6 /);
  });

  describe('scenarioSeeds with mocha\'s global it', () => {
    scenarioSeeds(quick, { seeds: [1, 2] });
  });

  it('under node --test: both styles fail with the seed and the replay command', async () => {
    const { code, stdout } = await node(['--test', '--test-reporter=tap', 'test/scenario/fixtures/seeds-node-test.mjs']);
    assert.notEqual(code, 0);
    assert.match(stdout, /not ok \d+ - replicated-counter \(buggy: ack before replicate\) seed 0x6/);
    assert.match(stdout, /not ok \d+ - all seeds in one test/);
    const replays = stdout.match(/replay: dst run examples\/scenarios\/replicated-counter\.mjs --seed 0x6/g) ?? [];
    assert.ok(replays.length >= 2, stdout);
  });

  it('under mocha: the failure message has the seed and a replay that reruns this test file with DST_SEEDS', async () => {
    const mocha = path.join(ROOT, 'node_modules/mocha/bin/mocha.js');
    const { code, stdout } = await node([mocha, '--no-config', '--timeout', '60000', 'test/scenario/fixtures/seeds-mocha.mjs']);
    assert.equal(code, 2, stdout); // two failing tests
    assert.match(stdout, /failed on seed 0x6: safety/);
    assert.match(stdout, /replay: DST_SEEDS=0x6 node .*mocha\.js .*seeds-mocha\.mjs/);
    // DST_SEEDS picks the seeds instead of the pinned list: seed 1 passes.
    const one = await node([mocha, '--no-config', '--timeout', '60000', 'test/scenario/fixtures/seeds-mocha.mjs'], { DST_SEEDS: '0x1' });
    assert.equal(one.code, 0, one.stdout);
    assert.match(one.stdout, /seed 0x1/);
  });
});
