import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExitCode } from 'dst-runtime';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COUNTER = 'examples/scenarios/replicated-counter.mjs';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dst-cli-'));

/** Runs the CLI; resolves { code, stdout, stderr } whatever the exit code. */
function dst(args, env = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['cli/dst.mjs', ...args], { cwd: ROOT, env: { ...process.env, DST_COUNTER_BUG: '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

const fingerprintOf = (stdout) => /fingerprint\s+(\S+)/.exec(stdout)?.[1];

describe('dst CLI', () => {
  let buggy;

  it('explore over 200 seeds with 2 jobs finds the planted bug, and every failing seed replays', async () => {
    const report = path.join(tmp, 'buggy.json');
    const { code, stdout } = await dst(['explore', COUNTER, '--seeds', '200', '--jobs', '2', '--report', report], { DST_COUNTER_BUG: '1' });
    assert.equal(code, ExitCode.safety, stdout);
    buggy = JSON.parse(readFileSync(report, 'utf8'));
    assert.ok(buggy.failing.length > 0);
    assert.ok(buggy.failing.every((f) => f.kind === 'safety' && f.replays));
    assert.match(stdout, /node cli\/dst\.mjs run examples\/scenarios\/replicated-counter\.mjs --seed 0x/);
  });

  it('the first failing seed replays 3 times out of 3 with `dst run` (same fingerprint)', async () => {
    const { seed, fingerprint } = buggy.failing[0];
    for (let i = 0; i < 3; i++) {
      const { code, stdout } = await dst(['run', COUNTER, '--seed', seed], { DST_COUNTER_BUG: '1' });
      assert.equal(code, ExitCode.safety);
      assert.equal(fingerprintOf(stdout), fingerprint);
    }
  });

  it('the correct version passes the same 200 seeds', async () => {
    const report = path.join(tmp, 'correct.json');
    const { code, stdout } = await dst(['explore', COUNTER, '--seeds', '200', '--jobs', '2', '--report', report]);
    assert.equal(code, ExitCode.ok, stdout);
    const result = JSON.parse(readFileSync(report, 'utf8'));
    assert.equal(result.passed, 200);
    assert.deepEqual(result.ran, buggy.ran);
  });

  it('a worker that holds too much memory retires and a fresh one goes on: the same failing seeds, fingerprints and messages (DST_WORKER_HEAP_MB)', async () => {
    // Every seed's ES modules stay in Node's loader for the life of a worker: a probe
    // (2026-12-06) saw a scenario's worker die of its heap limit at seed 580, and the exploration
    // with it. With a limit of 1 KiB every worker retires after one seed.
    const report = path.join(tmp, 'retiring.json');
    // 40 seeds: a worker each, started one after the other.
    const { code, stdout } = await dst(['explore', COUNTER, '--seeds', '40', '--jobs', '2', '--report', report], { DST_COUNTER_BUG: '1', DST_WORKER_HEAP_MB: '0.001' });
    assert.equal(code, ExitCode.safety, stdout);
    const retiring = JSON.parse(readFileSync(report, 'utf8'));
    const key = (f) => `${f.seed} ${f.fingerprint} ${f.message}`;
    const firstForty = buggy.failing.filter((f) => BigInt(f.seed) <= 40n);
    assert.ok(firstForty.length > 0);
    assert.deepEqual(retiring.failing.map(key).sort(), firstForty.map(key).sort());
    const bad = await dst(['explore', COUNTER, '--seeds', '2'], { DST_WORKER_HEAP_MB: 'lots' });
    assert.equal(bad.code, ExitCode.usage);
    assert.match(bad.stderr, /DST_WORKER_HEAP_MB must be a positive number of MiB/);
  });

  it('--shard k/n splits the seeds disjointly and covers them all', async () => {
    const ran = [];
    for (const k of [1, 2, 3]) {
      const report = path.join(tmp, `shard-${k}.json`);
      const { code } = await dst(['explore', 'test/scenario/fixtures/quick.mjs', '--seeds', '20', '--jobs', '1', '--shard', `${k}/3`, '--report', report]);
      assert.equal(code, ExitCode.ok);
      ran.push(...JSON.parse(readFileSync(report, 'utf8')).ran);
    }
    assert.equal(new Set(ran).size, 20);
    assert.deepEqual([...ran].sort(), Array.from({ length: 20 }, (_, i) => `0x${(i + 1).toString(16)}`).sort());
  });

  it('a file that defines a scenario without exporting it as default is a usage error (64) saying what to export (issue 20 item 16)', async () => {
    for (const [fixture, found] of [['named-export.mjs', 'exports a scenario as "scenario"'], ['unexported.mjs', 'calls defineScenario\\(\\)']]) {
      for (const command of ['run', 'explore']) {
        const args = [command, `test/scenario/fixtures/${fixture}`, ...(command === 'explore' ? ['--seeds', '2'] : [])];
        const { code, stderr } = await dst(args);
        assert.equal(code, ExitCode.usage, `${command} ${fixture}: ${stderr}`);
        assert.match(stderr, new RegExp(`Failed to load scenario test/scenario/fixtures/${fixture}: it ${found} but its default export is not one; a scenario file must end with \`export default defineScenario\\(\\{ \\.\\.\\. \\}\\)\``));
      }
    }
  });

  it('exits with distinct codes: usage, liveness, host crash, nondeterminism', async () => {
    assert.equal((await dst(['frobnicate'])).code, ExitCode.usage);
    assert.equal((await dst(['explore', COUNTER, '--seeds', 'many'])).code, ExitCode.usage);
    assert.equal((await dst(['run', 'test/scenario/fixtures/liveness.mjs', '--seed', '1'])).code, ExitCode.liveness);
    assert.equal((await dst(['run', 'test/scenario/fixtures/crash.mjs', '--seed', '1'])).code, ExitCode.hostCrash);
    const flaky = await dst(['explore', 'test/scenario/fixtures/flaky.mjs', '--seeds', '1', '--jobs', '1'], {
      DST_FLAKY_MARKER: path.join(tmp, 'flaky-marker'),
    });
    assert.equal(flaky.code, ExitCode.nondeterminism, flaky.stdout);
    assert.match(flaky.stdout, /0x1\s+safety\s+NO/);
  });

  it('the report counts coverage across seeds', async () => {
    const report = path.join(tmp, 'quick.json');
    await dst(['explore', 'test/scenario/fixtures/quick.mjs', '--seeds', '10', '--jobs', '2', '--report', report]);
    const { coverage } = JSON.parse(readFileSync(report, 'utf8'));
    assert.deepEqual(coverage.find((c) => c.message === 'booted'), { message: 'booted', kind: 'reachable', seeds: 10, hits: 10 });
    assert.ok(coverage.some((c) => c.message === 'coin came up heads' && c.seeds > 0 && c.seeds < 10));
  });
});
