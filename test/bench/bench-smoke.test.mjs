/**
 * The benchmark's plumbing, in its tiny --quick mode: every figure is produced with its
 * baselines and goals, and the fixed-seed fingerprints repeat. No timing thresholds here: tests
 * never assert wall-clock times (npm run bench reports them).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  assert.equal(subject.metric, metric, `${where}.metric`);
  assert.ok(Number.isFinite(subject[metric]) && subject[metric] > 0, `${where}.${metric} = ${subject[metric]}`);
  // Every subject also reports events/s, so any two can be compared with the driver ceiling.
  assert.ok(Number.isFinite(subject.eventsPerSecond) && subject.eventsPerSecond > 0, `${where}.eventsPerSecond`);
  assert.ok(subject.repetitions >= 1, `${where} has no repetitions`);
  assert.ok(subject.warmups >= 1, `${where} had no warm-up`);
  assert.equal(subject.wallMsSamples.length, subject.repetitions);
  assert.ok(subject.events > 0, `${where} ran no events`);
}

/** A fixed-seed simulated subject: the warm-up and every repetition ran the very same execution. */
function assertFingerprintsRepeat(subject, where) {
  const fingerprints = subject.fingerprints;
  assert.ok(Array.isArray(fingerprints), `${where} reported no fingerprints`);
  assert.equal(fingerprints.length, subject.warmups + subject.repetitions);
  assert.match(fingerprints[0], /^[0-9a-f]{16}$/);
  assert.deepEqual(new Set(fingerprints), new Set([fingerprints[0]]), `${where} fingerprints differ: ${fingerprints}`);
  assert.equal(subject.fingerprintConsistent, true);
}

describe('bench/run.mjs --quick (seed 0xbe7c4)', function () {
  // Spawns a few node processes (figures 5 and 6 run the explorer, a dozen processes more);
  // generous for a loaded CI machine (at load 20 on 2 cores the quick run took over 240 s), and
  // no timing is asserted.
  this.timeout(480_000);

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

    // For each figure: the simulator's metric, its variants and baselines with their own
    // metrics, the number of goals and of goal-less comparisons.
    const events = 'eventsPerSecond';
    const virtualSpeed = 'virtualSecondsPerWallSecond';
    const roundTrips = 'roundTripsPerSecond';
    const expected = {
      timerThroughput: { metric: events, variants: {}, baselines: { driverCeiling: events, workloadFloor: events, fakeTimers: events }, goals: 2, comparisons: 2 },
      virtualSpeed: { metric: virtualSpeed, variants: {}, baselines: { workloadFloor: virtualSpeed, fakeTimers: virtualSpeed }, goals: 1, comparisons: 2 },
      tcpRoundTrips: { metric: roundTrips, variants: { concurrent: roundTrips }, baselines: { driverCeiling: events }, goals: 0, comparisons: 2 },
      udpGossip: { metric: virtualSpeed, variants: {}, baselines: { driverCeiling: events, interval: virtualSpeed }, goals: 0, comparisons: 2 },
      exploreSeeds: { metric: 'seedsPerSecond', variants: {}, baselines: { oneJob: 'seedsPerSecond', twoExplorers: 'seedsPerSecond' }, goals: 1, comparisons: 4 },
      programSeeds: { metric: 'seedsPerSecond', variants: {}, baselines: { processPerSeed: 'seedsPerSecond' }, goals: 1, comparisons: 0 },
      tlsRequests: { metric: roundTrips, variants: { handshakes: roundTrips }, baselines: { tcpRequests: roundTrips, tcpConnects: roundTrips }, goals: 0, comparisons: 2 },
      kvReload: { metric: 'cpuMsPerLoad', variants: {}, baselines: { firstLoad: 'cpuMsPerLoad', noCodeCache: 'cpuMsPerLoad', noResolutionCache: 'cpuMsPerLoad' }, goals: 1, comparisons: 2 },
      registerStartup: { metric: 'wallMsPerStart', variants: {}, baselines: { node: 'wallMsPerStart' }, goals: 1, comparisons: 0 },
    };
    // Figures 10 and 11 boot mqtt.js and aedes, which the bench installs into bench/npm-hosts from
    // the registry: without it, both are skipped with npm's reason.
    const expectedSkipped = [];
    if (json.skipped.mqttReload === undefined) {
      expected.mqttReload = { metric: 'cpuMsPerLoad', variants: {}, baselines: { firstLoad: 'cpuMsPerLoad', noCodeCache: 'cpuMsPerLoad', noResolutionCache: 'cpuMsPerLoad' }, goals: 1, comparisons: 2 };
      expected.mqttSeeds = { metric: 'seedsPerSecond', variants: {}, baselines: { noCodeCache: 'seedsPerSecond' }, goals: 0, comparisons: 1 };
    } else {
      expectedSkipped.push('mqttReload', 'mqttSeeds');
      assert.match(stdout, /skipped {2}10\. host re-load vs first load: mqtt\.js .*: mqtt\.js and aedes could not be installed into bench\/npm-hosts \(npm ci: /);
    }
    // Figure 6 needs PGlite (examples/postgres; CI installs it): without it, skipped with the reason.
    if (existsSync(path.join(ROOT_DIR, 'examples', 'postgres', 'node_modules', '@electric-sql', 'pglite-socket'))) {
      expected.postgresSeeds = { metric: 'seedsPerSecond', variants: {}, baselines: { plainNode: 'seedsPerSecond' }, goals: 0, comparisons: 1 };
    } else {
      expectedSkipped.unshift('postgresSeeds');
      assert.match(stdout, /skipped {2}7\. Postgres bank demo, seeds\/s: PGlite is not installed in examples\/postgres/);
    }
    assert.deepEqual(Object.keys(json.skipped), expectedSkipped);
    assert.deepEqual(Object.keys(json.figures).sort(), Object.keys(expected).sort());
    for (const [id, want] of Object.entries(expected)) {
      const figure = json.figures[id];
      assert.equal(figure.metric, want.metric);
      assertSubject(figure.simulator, want.metric, `${id}.simulator`);
      assertFingerprintsRepeat(figure.simulator, `${id}.simulator`);
      assert.deepEqual(Object.keys(figure.variants).sort(), Object.keys(want.variants).sort());
      for (const [name, metric] of Object.entries(want.variants)) {
        assertSubject(figure.variants[name], metric, `${id}.variants.${name}`);
        assertFingerprintsRepeat(figure.variants[name], `${id}.variants.${name}`);
      }
      assert.deepEqual(Object.keys(figure.baselines).sort(), Object.keys(want.baselines).sort());
      for (const [name, metric] of Object.entries(want.baselines)) {
        const baseline = figure.baselines[name];
        assertSubject(baseline, metric, `${id}.baselines.${name}`);
        if (baseline.fingerprints !== undefined) assertFingerprintsRepeat(baseline, `${id}.baselines.${name}`);
      }
      assert.equal(figure.goals.length, want.goals);
      for (const goal of figure.goals) {
        assert.ok(Number.isFinite(goal.ratio) && goal.ratio > 0, `${id} goal ${goal.id} ratio = ${goal.ratio}`);
        assert.ok(Number.isFinite(goal.ratioByCpu) && goal.ratioByCpu > 0, `${id} goal ${goal.id} ratioByCpu`);
        assert.ok(goal.target > 0);
        // A cost goal (figure 9's added start-up) is met at or below its target, by CPU time.
        assert.equal(goal.met, goal.atMost === true ? goal.ratioByCpu <= goal.target : goal.ratio >= goal.target);
      }
      assert.equal(figure.comparisons.length, want.comparisons);
      for (const comparison of figure.comparisons) {
        assert.ok(Number.isFinite(comparison.ratio) && comparison.ratio > 0, `${id} comparison ${comparison.id} ratio = ${comparison.ratio}`);
        assert.ok(Number.isFinite(comparison.ratioByCpu) && comparison.ratioByCpu > 0, `${id} comparison ${comparison.id} ratioByCpu`);
        assert.equal(comparison.goal, 'no goal');
        assert.equal(comparison.target, undefined, `${id} comparison ${comparison.id} has a target`);
      }
    }

    // Every figure that compares with the driver ceiling measures that very baseline.
    for (const id of ['tcpRoundTrips', 'udpGossip']) {
      assert.equal(json.figures[id].baselines.driverCeiling.case, json.figures.timerThroughput.baselines.driverCeiling.case);
    }
    // The TCP figure counts its round trips: every request was answered, in both variants.
    const tcp = json.figures.tcpRoundTrips;
    assert.equal(tcp.simulator.roundTrips, tcp.workload.sequential.roundTrips);
    assert.equal(tcp.variants.concurrent.roundTrips, tcp.workload.concurrent.roundTrips);
    assert.ok(tcp.workload.concurrent.connections > 1);
    assert.notEqual(tcp.simulator.fingerprint, tcp.variants.concurrent.fingerprint);
    // The gossip figure's interval baseline is figure 2's case, run in another process: same fingerprint.
    const gossip = json.figures.udpGossip;
    assert.equal(gossip.baselines.interval.case, json.figures.virtualSpeed.simulator.case);
    assert.equal(gossip.baselines.interval.fingerprint, json.figures.virtualSpeed.simulator.fingerprint);

    // Figure 5's three subjects explore the same seeds (two explorers of half the seeds each
    // included), so they digest to the same fingerprint.
    const explore = json.figures.exploreSeeds;
    assert.equal(explore.baselines.oneJob.fingerprint, explore.simulator.fingerprint);
    assert.equal(explore.baselines.twoExplorers.fingerprint, explore.simulator.fingerprint);

    assert.equal(json.fingerprintsConsistent, true);
    assert.match(stdout, /fingerprints/);
    assert.match(stdout, /no goal {2}simulator events\/s \(1 connection\) \/ driver ceiling: /);
    assert.match(stdout, /no goal {2}simulator events\/s \(UDP gossip\) \/ driver ceiling: /);
    for (const caseName of ['sim-tcp-sequential', 'sim-tcp-concurrent', 'sim-gossip']) {
      assert.match(stdout, new RegExp(`same {7}${caseName}: [0-9a-f]{16} \\(\\d+ runs\\)`));
    }
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

  it('checks the fingerprints of every simulated subject, variants included', async () => {
    // Arrange: the same switch puts one really random timer into both TCP runs.
    const env = { DST_BENCH_NONDETERMINISM: '1' };

    // Act
    const { code, stderr, json } = await runBench(['--quick', '--only', 'tcpRoundTrips'], env);

    // Assert
    assert.equal(code, 1);
    assert.match(stderr, /FAILED: a simulated run with a fixed seed produced different fingerprints/);
    assert.equal(json.fingerprintsConsistent, false);
    assert.equal(json.figures.tcpRoundTrips.simulator.fingerprintConsistent, false);
    assert.equal(json.figures.tcpRoundTrips.variants.concurrent.fingerprintConsistent, false);
  });
});
