// Fault schedules (runScenario's schedule and stopAtMs) and `dst shrink`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExitCode, runScenario } from 'dst-runtime';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COUNTER = 'examples/scenarios/replicated-counter.mjs';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dst-shrink-'));

function dst(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['cli/dst.mjs', ...args], { cwd: ROOT, env: { ...process.env, DST_COUNTER_BUG: '', ...env } }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

async function counter(bug) {
  const previous = process.env.DST_COUNTER_BUG;
  process.env.DST_COUNTER_BUG = bug ? '1' : '';
  try {
    // A fresh module instance: the scenario reads its bug switch when it loads.
    return (await import(`../../${COUNTER}?bug=${bug}`)).default;
  } finally {
    if (previous === undefined) delete process.env.DST_COUNTER_BUG;
    else process.env.DST_COUNTER_BUG = previous;
  }
}

describe('fault schedules', function () {
  this.timeout(120_000);

  it('a run records the faults it injected, and replaying them gives the same run (fingerprint)', async () => {
    for (const bug of [false, true]) {
      const scenario = await counter(bug);
      for (const seed of [1, 2, 3, 0x12]) {
        const drawn = await runScenario(scenario, seed);
        assert.ok(drawn.schedule.length > 0, `seed ${seed} injected faults`);
        for (const f of drawn.schedule) assert.ok(f.atMs % 10 === 0 && typeof f.fault === 'string');
        const replayed = await runScenario(scenario, seed, { schedule: drawn.schedule });
        assert.equal(replayed.fingerprint, drawn.fingerprint, `seed ${seed} (bug ${bug})`);
        assert.deepEqual(replayed.schedule, drawn.schedule);
      }
    }
  });

  it('an edited schedule injects exactly its faults; one that cannot apply is skipped', async () => {
    const scenario = await counter(false);
    const none = await runScenario(scenario, 5, { schedule: [] });
    assert.deepEqual(none.schedule, []);
    const schedule = [
      { atMs: 100, fault: 'crash', target: 'n2', downMs: 200 },
      { atMs: 150, fault: 'crash', target: 'n2', downMs: 50 }, // n2 is down: skipped
      { atMs: 400, fault: 'partition', a: 'n1', b: 'n3', downMs: 100 },
    ];
    const result = await runScenario(scenario, 5, { schedule });
    assert.deepEqual(result.schedule, [schedule[0], schedule[2]]);
  });

  it('rejects schedules that name unknown hosts or times off the fault clock', async () => {
    const scenario = await counter(false);
    await assert.rejects(runScenario(scenario, 1, { schedule: [{ atMs: 100, fault: 'crash', target: 'nope' }] }), /target "nope" is not a target or client of the scenario/);
    await assert.rejects(runScenario(scenario, 1, { schedule: [{ atMs: 105, fault: 'crash', target: 'n1' }] }), /atMs must be a tick of the fault clock: a positive multiple of 10 ms/);
    await assert.rejects(runScenario(scenario, 1, { schedule: [{ atMs: 100, fault: 'meteor', target: 'n1' }] }), /fault must be one of crash, kill/);
    await assert.rejects(runScenario(scenario, 1, { schedule: [{ atMs: 100, fault: 'partition', a: 'n1' }] }), /a partition fault needs a and b/);
  });

  it('stopAtMs ends the run early as passing, with the full run\'s events before it', async () => {
    const scenario = await counter(true);
    const full = await runScenario(scenario, 0x12);
    assert.equal(full.ok, false);
    const early = await runScenario(scenario, 0x12, { stopAtMs: 500 });
    assert.equal(early.ok, true);
    assert.equal(early.elapsedNs, 500e6);
    assert.deepEqual(early.schedule, full.schedule.filter((f) => f.atMs <= 500));
  });

  it('a failed run\'s fingerprint hashes the run: readable kind, time and event, then the hash', async () => {
    const scenario = await counter(true);
    const r = await runScenario(scenario, 0x12);
    assert.match(r.fingerprint, /^fail:safety:1260000000:889:[0-9a-f]{16}$/);
    // The same failure instant reached by another run (other faults) is another fingerprint.
    const other = await runScenario(scenario, 0x12, { schedule: r.schedule.slice(-1) });
    assert.equal(other.failure.timeNs, r.failure.timeNs);
    assert.notEqual(other.fingerprint, r.fingerprint);
    assert.equal(other.fingerprint.split(':').slice(0, 3).join(':'), r.fingerprint.split(':').slice(0, 3).join(':'));
  });
});

describe('dst shrink', function () {
  this.timeout(180_000);

  it('shrinks a failing seed\'s faults, writes a schedule that dst run --schedule replays exactly, whatever --jobs', async () => {
    const out1 = path.join(tmp, 's1.json');
    const out2 = path.join(tmp, 's2.json');
    const env = { DST_COUNTER_BUG: '1' };
    const [a, b] = [await dst(['shrink', COUNTER, '--seed', '0x12', '--out', out1, '--jobs', '1'], env), await dst(['shrink', COUNTER, '--seed=0x12', '--out', out2, '--jobs', '2'], env)];
    assert.equal(a.code, ExitCode.safety, a.stdout + a.stderr);
    assert.match(a.stdout, /^shrunk +replicated-counter .* seed 0x12: 6 fault\(s\) -> 1, in \d+ runs/m);
    assert.match(a.stdout, /^fault +at \d+\.\d{3} s {2}crash n\d for \d+ ms$/m);
    const s = JSON.parse(readFileSync(out1, 'utf8'));
    assert.equal(s.format, 'dst-fault-schedule/1');
    assert.deepEqual([s.seed, s.file, s.settings, s.original.faults], ['0x12', COUNTER, { DST_COUNTER_BUG: '1' }, 6]);
    assert.ok(s.faults.length <= 3 && s.faults.length < s.original.faults);
    assert.equal(s.failure.invariant, 'acknowledgedIncrementsSurvive');
    // The search is deterministic: one job or two, the same schedule.
    assert.deepEqual(JSON.parse(readFileSync(out2, 'utf8')).faults, s.faults);
    // The replay line, and dst run --schedule: the same failure, the same fingerprint; the
    // schedule's settings (the bug switch) apply without being in the environment.
    const replay = /^replay +(.*)$/m.exec(a.stdout)[1];
    assert.equal(replay, `DST_COUNTER_BUG=1 node cli/dst.mjs run ${COUNTER} --seed 0x12 --schedule ${out1}`);
    const run = await dst(['run', COUNTER, '--schedule', out1]);
    assert.equal(run.code, ExitCode.safety, run.stdout);
    assert.match(run.stdout, /^settings +DST_COUNTER_BUG=1 \(from .*s1\.json\)$/m);
    assert.equal(/fingerprint\s+(\S+)/.exec(run.stdout)[1], s.failure.fingerprint);
    assert.match(run.stdout, new RegExp(`replay +DST_COUNTER_BUG=1 node cli/dst.mjs run ${COUNTER} --seed 0x12 --schedule `));
  });

  it('says so for a passing seed; refuses programs and a missing --seed', async () => {
    const passing = await dst(['shrink', COUNTER, '--seed', '1', '--out', path.join(tmp, 'p.json')]);
    assert.equal(passing.code, ExitCode.ok);
    assert.match(passing.stdout, /seed 0x1 passes: nothing to shrink/);
    const app = await dst(['shrink', 'test/scenario/fixtures/app-coin.mjs', '--seed', '3', '--out', path.join(tmp, 'a.json')]);
    assert.equal(app.code, ExitCode.usage);
    assert.match(app.stderr, /dst shrink needs a scenario/);
    const missing = await dst(['shrink', COUNTER]);
    assert.equal(missing.code, ExitCode.usage);
    assert.match(missing.stderr, /--seed is required/);
  });
});
