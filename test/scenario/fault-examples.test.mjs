// The proof-of-power examples of examples/faults/ (issue 16): each planted bug is found by
// `dst explore --swarm` (the seeds below were its first findings within 300 seeds; docs/guide.md
// has the figures), each fixed version passes the same seed, and each failure replays exactly:
// ten runs of the seed in fresh processes give the same fingerprint and the same failure.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REGISTER = pathToFileURL(path.join(ROOT, 'dist/register.mjs')).href;
const CLI = path.join(ROOT, 'cli/dst.mjs');

const EXAMPLES = [
  { name: 'lease', seed: '0x8', message: /lost update: B wrote 1 based on version 0/ },
  // 0xcf: where the first version of the failover fix failed (its first lease began at the ACK).
  { name: 'failover', seed: '0x19', message: /split brain: A served a request as primary while B was primary/, fixedAlso: ['0xcf'] },
  { name: 'retry', seed: '0x5', message: /balance 2230, but 2220 was paid: a payment was applied twice/ },
];

describe('fault examples: each bug found under DST_FAULTS=swarm, each fix clean on its seed, each failure replaying 10/10', function () {
  this.timeout(300_000);
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-fault-examples-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  let n = 0;
  function run(file, seed) {
    const report = path.join(dir, `${++n}.json`);
    const env = { ...process.env, DST_FAULTS: 'swarm', DST_SEED: seed, DST_REPORT: report, DST_QUIET: '1' };
    const child = spawnSync(process.execPath, ['--import', REGISTER, path.join(ROOT, 'examples/faults', file)], { env, encoding: 'utf8', timeout: 60_000 });
    return { status: child.status, stderr: child.stderr, report: JSON.parse(fs.readFileSync(report, 'utf8')) };
  }

  for (const { name, seed, message, fixedAlso = [] } of EXAMPLES) {
    it(`${name}: the bug fails seed ${seed} the same way 10 times out of 10; the fix passes it`, () => {
      const runs = Array.from({ length: 10 }, () => run(`${name}-buggy.mjs`, seed));
      const first = runs[0];
      assert.notEqual(first.status, 0, `${name}-buggy passed seed ${seed}`);
      assert.match(first.stderr, message);
      // The failure block names the fault mix the seed ran, and its replay carries DST_FAULTS.
      assert.match(first.stderr, /^ {2}faults {3}latencyTailMs=[\d.]+ reorderJitterMs=/m);
      assert.match(first.stderr, /^ {2}replay {3}.*DST_SEED=0x[0-9a-f]+ DST_FAULTS=swarm node /m);
      for (const [i, again] of runs.entries()) {
        assert.equal(again.status, first.status, `run ${i + 1}`);
        assert.equal(again.report.fingerprint, first.report.fingerprint, `run ${i + 1} of seed ${seed} ran differently`);
        assert.deepEqual(again.report.faults, first.report.faults);
      }
      for (const s of [seed, ...fixedAlso]) {
        const fixed = run(`${name}-fixed.mjs`, s);
        assert.equal(fixed.status, 0, `${name}-fixed failed seed ${s}:\n${fixed.stderr}`);
      }
    });
  }

  it('dst run --swarm and --faults: a plain program gets DST_FAULTS, prints the mix, and the replay command carries it', () => {
    const child = spawnSync(process.execPath, [CLI, 'run', 'examples/faults/retry-buggy.mjs', '--seed', '0x5', '--swarm'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(child.status, 0);
    assert.match(child.stderr, /^dst: faults latencyTailMs=0 reorderJitterMs=0 resetRatio=0\.00729735 /m);
    assert.match(child.stdout, /replay {5}DST_FAULTS=swarm (?:dst|node cli\/dst\.mjs) run examples\/faults\/retry-buggy\.mjs --seed 0x5$/m);
    const picked = spawnSync(process.execPath, [CLI, 'run', 'examples/faults/retry-fixed.mjs', '--seed', '0x5', '--faults', 'stall,lag'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(picked.status, 0, picked.stderr);
    assert.match(picked.stderr, /^dst: faults lagRatio=0\.2 stallPerSecond=0\.5$/m);
  });

  it('refuses an unknown fault kind, and --faults for a scenario, with a usage error', () => {
    const bad = spawnSync(process.execPath, [CLI, 'run', 'examples/faults/retry-fixed.mjs', '--faults', 'gc'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(bad.status, 64);
    assert.match(bad.stderr, /Failed to parse --faults: "gc" is not a fault kind/);
    // A bad DST_FAULTS is refused before the program runs: no FAILED block, no replay line.
    const badEnv = spawnSync(process.execPath, [CLI, 'run', 'examples/faults/retry-fixed.mjs'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, DST_FAULTS: 'gc' } });
    assert.equal(badEnv.status, 64);
    assert.match(badEnv.stderr, /^dst: Failed to parse DST_FAULTS: "gc" is not a fault kind/m);
    assert.doesNotMatch(badEnv.stdout + badEnv.stderr, /FAILED|replay/);
    const scenario = spawnSync(process.execPath, [CLI, 'run', 'examples/scenarios/replicated-counter.mjs', '--faults', 'lag'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(scenario.status, 64);
    assert.match(scenario.stderr, /--faults applies to plain programs/);
  });
});
