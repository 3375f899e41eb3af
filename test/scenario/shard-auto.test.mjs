// --shard auto: the shard from the environment batch systems set, and three shards merged equal
// one unsharded exploration (issue 22, item 7).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExitCode } from 'dst-runtime';
import { shardFromEnvironment } from '../../cli/dst.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COUNTER = 'examples/scenarios/replicated-counter.mjs';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dst-shard-'));
const SHARD_VARS = ['DST_SHARD', 'DST_SHARD_COUNT', 'JOB_COMPLETION_INDEX', 'CI_NODE_INDEX', 'CI_NODE_TOTAL', 'CIRCLE_NODE_INDEX', 'CIRCLE_NODE_TOTAL', 'BUILDKITE_PARALLEL_JOB', 'BUILDKITE_PARALLEL_JOB_COUNT'];

function dst(args, env = {}) {
  const clean = { ...process.env };
  for (const name of SHARD_VARS) delete clean[name];
  return new Promise((resolve) => {
    execFile(process.execPath, ['cli/dst.mjs', ...args], { cwd: ROOT, env: { ...clean, DST_COUNTER_BUG: '1', ...env } }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

describe('dst explore --shard auto', function () {
  this.timeout(240_000);

  it('reads the shard of each batch system, from 1 whatever the system counts from', () => {
    const cases = [
      [{ DST_SHARD: '2/5' }, { k: 2, n: 5 }],
      [{ JOB_COMPLETION_INDEX: '0', DST_SHARD_COUNT: '3' }, { k: 1, n: 3 }],
      [{ CI_NODE_INDEX: '3', CI_NODE_TOTAL: '4' }, { k: 3, n: 4 }],
      [{ CIRCLE_NODE_INDEX: '3', CIRCLE_NODE_TOTAL: '4' }, { k: 4, n: 4 }],
      [{ BUILDKITE_PARALLEL_JOB: '1', BUILDKITE_PARALLEL_JOB_COUNT: '2' }, { k: 2, n: 2 }],
      // DST_SHARD wins over what a platform sets.
      [{ DST_SHARD: '1/2', CI_NODE_INDEX: '2', CI_NODE_TOTAL: '2' }, { k: 1, n: 2 }],
    ];
    for (const [env, want] of cases) {
      const { k, n } = shardFromEnvironment(env);
      assert.deepEqual({ k, n }, want, JSON.stringify(env));
    }
    assert.throws(() => shardFromEnvironment({}), /found no shard in the environment: set DST_SHARD=k\/n .*JOB_COMPLETION_INDEX/);
    assert.throws(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '1' }), /DST_SHARD_COUNT is not: set it to the Job's completions/);
    assert.throws(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '3', DST_SHARD_COUNT: '3' }), /gives shard 4 of 3/);
    assert.throws(() => shardFromEnvironment({ DST_SHARD: '2' }), /DST_SHARD must be k\/n/);
  });

  it('three shards from three systems\' variables, merged, equal one unsharded run', async () => {
    const common = ['explore', COUNTER, '--seeds', '15', '--first', '0x10', '--jobs', '2', '--shard', 'auto'];
    const envs = [
      { JOB_COMPLETION_INDEX: '0', DST_SHARD_COUNT: '3' },
      { DST_SHARD: '2/3' },
      { CI_NODE_INDEX: '3', CI_NODE_TOTAL: '3' },
    ];
    const files = envs.map((_, i) => path.join(tmp, `shard-${i + 1}.json`));
    const shards = [];
    for (const [i, env] of envs.entries()) shards.push(await dst([...common, '--report', files[i]], env));
    shards.forEach((s, i) => assert.match(s.stderr, new RegExp(`dst explore: shard ${i + 1}/3 \\(from `)));
    const whole = path.join(tmp, 'whole.json');
    const single = await dst(['explore', COUNTER, '--seeds', '15', '--first', '0x10', '--jobs', '2', '--report', whole]);
    assert.equal(single.code, ExitCode.safety);
    const mergedFile = path.join(tmp, 'merged.json');
    const merged = await dst(['merge-reports', ...files, '--out', mergedFile]);
    assert.equal(merged.code, single.code);
    const m = readJson(mergedFile);
    const w = readJson(whole);
    assert.deepEqual(readJson(files[0]).shard, '1/3');
    // Everything but where and how fast it ran.
    const result = (r) => ({ scenario: r.scenario, file: r.file, first: r.first, seeds: r.seeds, swarm: r.swarm, settings: r.settings, ran: r.ran, passed: r.passed, failing: r.failing, coverage: r.coverage });
    assert.deepEqual(result(m), result(w));
    assert.equal(m.missing, 0);
    assert.ok(w.failing.length > 0 && w.failing.every((row) => row.replays));
    // The merge's output names the failures with their replay lines.
    for (const row of w.failing) assert.ok(merged.stdout.includes(row.replay), row.replay);
  });
});
