/**
 * The benchmark's plumbing, in its tiny --quick mode: every figure is produced with its
 * baselines and goals, and the fixed-seed fingerprints repeat. No timing thresholds here: tests
 * never assert wall-clock times (npm run bench reports them).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUN = path.join(ROOT_DIR, 'bench', 'run.mjs');

/** Runs bench/run.mjs with `args`; resolves with its exit code, output and the JSON it wrote. */
function runBench(args, env = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dst-bench-'));
  const out = path.join(dir, 'result.json');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUN, ...args, '--out', out], {
      cwd: ROOT_DIR,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      let json;
      try {
        json = JSON.parse(readFileSync(out, 'utf8'));
      } catch {
        json = undefined;
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout, stderr, json });
    });
  });
}

function assertSubject(subject, metric, where) {
  assert.equal(typeof subject, 'object', `${where} is missing`);
  assert.ok(Number.isFinite(subject[metric]) && subject[metric] > 0, `${where}.${metric} = ${subject[metric]}`);
  assert.ok(subject.repetitions >= 1, `${where} has no repetitions`);
  assert.ok(subject.warmups >= 1, `${where} had no warm-up`);
  assert.equal(subject.wallMsSamples.length, subject.repetitions);
  assert.ok(subject.events > 0, `${where} ran no events`);
}

describe('bench/run.mjs --quick (seed 0xbe7c4)', function () {
  // Spawns a few node processes; generous for a loaded CI machine, and no timing is asserted.
  this.timeout(240_000);

  it('reports every figure with its baselines, goals and repeating fingerprints', async () => {
    // Act
    const { code, stdout, stderr, json } = await runBench(['--quick']);

    // Assert
    assert.equal(code, 0, `bench exited with ${code}\n${stdout}\n${stderr}`);
    assert.ok(json !== undefined, 'bench wrote no JSON');
    assert.equal(json.quick, true);
    assert.equal(json.seed, '0xbe7c4');
    assert.equal(json.environment.node, process.version);
    assert.equal(typeof json.environment.cpuModel, 'string');

    const expected = {
      timerThroughput: { metric: 'eventsPerSecond', baselines: ['driverCeiling', 'fakeTimers'], goals: 2 },
      virtualSpeed: { metric: 'virtualSecondsPerWallSecond', baselines: ['fakeTimers'], goals: 1 },
    };
    assert.deepEqual(Object.keys(json.figures).sort(), Object.keys(expected).sort());
    for (const [id, want] of Object.entries(expected)) {
      const figure = json.figures[id];
      assert.equal(figure.metric, want.metric);
      assertSubject(figure.simulator, want.metric, `${id}.simulator`);
      assert.deepEqual(Object.keys(figure.baselines).sort(), [...want.baselines].sort());
      for (const name of want.baselines) assertSubject(figure.baselines[name], want.metric, `${id}.baselines.${name}`);
      assert.equal(figure.goals.length, want.goals);
      for (const goal of figure.goals) {
        assert.ok(Number.isFinite(goal.ratio) && goal.ratio > 0, `${id} goal ${goal.id} ratio = ${goal.ratio}`);
        assert.ok(Number.isFinite(goal.ratioByCpu) && goal.ratioByCpu > 0, `${id} goal ${goal.id} ratioByCpu`);
        assert.ok(goal.target > 0);
        assert.equal(goal.met, goal.ratio >= goal.target);
      }
      // Fixed seed: the warm-up and every repetition ran the very same execution.
      const fingerprints = figure.simulator.fingerprints;
      assert.equal(fingerprints.length, figure.simulator.warmups + figure.simulator.repetitions);
      assert.match(fingerprints[0], /^[0-9a-f]{16}$/);
      assert.deepEqual(new Set(fingerprints), new Set([fingerprints[0]]), `${id} fingerprints differ: ${fingerprints}`);
      assert.equal(figure.simulator.fingerprintConsistent, true);
    }
    assert.equal(json.fingerprintsConsistent, true);
    assert.match(stdout, /fingerprints/);
  });

  it('fails loudly when a fixed-seed run does not repeat its fingerprint', async () => {
    // Arrange: one simulated timer gets a really random delay (the bench's own self-test switch).
    const env = { DST_BENCH_NONDETERMINISM: '1' };

    // Act
    const { code, stderr, json } = await runBench(['--quick', '--only', 'timerThroughput'], env);

    // Assert
    assert.equal(code, 1);
    assert.match(stderr, /FAILED: a simulated run with a fixed seed produced different fingerprints/);
    assert.equal(json.fingerprintsConsistent, false);
    assert.equal(json.figures.timerThroughput.simulator.fingerprintConsistent, false);
    assert.deepEqual(Object.keys(json.figures), ['timerThroughput']);
  });
});
