/**
 * Determinism: a run is a pure function of its seed. The same seed must give the same
 * fingerprint, the same trace (byte for byte) and the same observations, whether it runs twice in
 * one process (with other runs in between), in two fresh processes, or as an unmodified program
 * under register mode; different seeds must give different executions.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sim, STARTUP_MS } from 'dst-runtime';
import { HOST_NAMES, runWorkload } from './fixtures/workload.mjs';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const REGISTER = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
const EPOCH_MS = Date.UTC(2025, 0, 1);
const SKEW_MS = { alpha: 0, bravo: 250, charlie: -1_000, delta: 86_400_000 };

/**
 * `count` seeds: small consecutive integers (neighbouring seeds must still give unrelated
 * streams), the extremes, and 64-bit values from a fixed LCG, as decimal and 0x-hex strings.
 */
function seedList(count) {
  const seeds = [0, 1, 2, 3, '0xffffffffffffffff', '0x9f3c1a22'];
  let x = 0x243f6a8885a308d3n;
  for (let i = 0; seeds.length < count; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    if (i % 3 === 0) seeds.push(4 + i);
    else if (i % 3 === 1) seeds.push(`0x${(x >> BigInt(i % 40)).toString(16)}`);
    else seeds.push((x >> 16n).toString());
  }
  return seeds;
}

function sha256(data) {
  return createHash('sha256').update(data).digest('hex');
}

/** The first line where two texts differ, for messages that point at the divergence. */
function firstDifference(a, b) {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return `line ${i + 1}:\n  first:  ${la[i]}\n  second: ${lb[i]}`;
  }
  return 'no difference';
}

function mkTemp(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

describe('determinism: the multi-host workload in one process (200 seeds, each run twice)', function () {
  this.timeout(120_000);
  const seeds = seedList(200);
  let dir;
  /** seed key -> { first, second } where each is { result, output, outputHash, trace } */
  const runs = new Map();

  before(async function () {
    // Arrange / Act: every seed once in order, then every seed again in reverse order, so the
    // two runs of one seed are separated by the other 199 runs and their leftovers.
    dir = mkTemp('dst-determinism-');
    for (const seed of seeds) {
      const trace = path.join(dir, `first-${seed}.jsonl`);
      const run = await runWorkload(seed, { trace });
      runs.set(String(seed), { first: { ...run, trace } });
    }
    for (const seed of [...seeds].reverse()) {
      const trace = path.join(dir, `second-${seed}.jsonl`);
      const run = await runWorkload(seed, { trace });
      runs.get(String(seed)).second = { ...run, trace };
    }
  });

  after(function () {
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs 200 distinct seeds', function () {
    assert.equal(runs.size, 200);
    const printed = new Set([...runs.values()].map((r) => r.first.result.seed));
    assert.equal(printed.size, 200, 'two seeds of the list parse to the same value');
  });

  it('gives each seed the same fingerprint, event count and end time on both runs', function () {
    const mismatches = [];
    for (const [seed, { first, second }] of runs) {
      const a = first.result;
      const b = second.result;
      if (a.fingerprint !== b.fingerprint || a.events !== b.events || a.elapsedNs !== b.elapsedNs || a.seed !== b.seed) {
        mismatches.push({ seed, first: a, second: b });
      }
    }
    assert.deepEqual(mismatches.slice(0, 3), [], `${mismatches.length} of 200 seeds ran differently the second time`);
  });

  it('writes byte-identical traces for both runs of each seed', function () {
    const mismatches = [];
    for (const [seed, { first, second }] of runs) {
      const a = fs.readFileSync(first.trace, 'utf8');
      const b = fs.readFileSync(second.trace, 'utf8');
      if (a !== b) mismatches.push(`seed ${seed}: ${firstDifference(a, b)}`);
    }
    assert.deepEqual(mismatches.slice(0, 3), [], `${mismatches.length} of 200 seeds wrote different traces`);
  });

  it('gives each host identical observations (clocks, random values, messages, order) on both runs', function () {
    const mismatches = [];
    for (const [seed, { first, second }] of runs) {
      if (first.outputHash === second.outputHash) continue;
      const a = JSON.stringify(first.output, null, 1);
      const b = JSON.stringify(second.output, null, 1);
      mismatches.push(`seed ${seed}: ${firstDifference(a, b)}`);
    }
    assert.deepEqual(mismatches.slice(0, 3), [], `${mismatches.length} of 200 seeds observed different things`);
  });

  it('gives 200 different seeds 200 different fingerprints and 200 different outputs', function () {
    const fingerprints = new Set([...runs.values()].map((r) => r.first.result.fingerprint));
    const outputs = new Set([...runs.values()].map((r) => r.first.outputHash));
    assert.equal(fingerprints.size, 200);
    assert.equal(outputs.size, 200);
  });

  it('draws different random values on different hosts and seeds (no shared or constant stream)', function () {
    // The boot line of each host holds two UUIDs drawn from that host's crypto stream.
    const uuids = [];
    for (const { first } of runs.values()) {
      for (const name of HOST_NAMES) {
        const boot = first.output.hosts[name][0];
        const m = /^boot uuid=(\S+) web=(\S+) /.exec(boot);
        assert.ok(m, `unexpected first line of ${name}: ${boot}`);
        uuids.push(m[1], m[2]);
      }
    }
    for (const uuid of uuids) assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(new Set(uuids).size, uuids.length, 'a UUID repeated across hosts or seeds');
  });

  it('lets every host finish its work, and the run end because nothing is left', function () {
    for (const [seed, { first }] of runs) {
      assert.equal(first.result.stopReason, 'quiescent', `seed ${seed}`);
      for (const name of HOST_NAMES) {
        const log = first.output.hosts[name];
        assert.match(log.at(-1), /^done received=\d+ ticks=\d+ /, `seed ${seed} host ${name}`);
      }
      // Values really travelled between hosts.
      const received = HOST_NAMES.flatMap((n) => first.output.hosts[n]).filter((l) => l.startsWith('recv '));
      const sent = first.output.order.filter((o) => o.includes('->'));
      assert.ok(sent.length > 0, `seed ${seed}: no message was sent`);
      assert.equal(received.length, sent.length, `seed ${seed}: every message sent is received by the end`);
    }
  });

  it("records virtual time: each host's Date, performance.now, hrtime and uptime agree with one another", function () {
    // Date = epoch + skew + floor(elapsed ms); performance.now = ms since the process started
    // (STARTUP_MS before the boot); hrtime advances by exactly the elapsed nanoseconds; uptime =
    // performance.now in seconds.
    const clock = /p=(\S+) d=(\S+) h=(\d+) u=(\S+)$/;
    for (const [seed, { first }] of runs) {
      for (const name of HOST_NAMES) {
        const log = first.output.hosts[name];
        const [, , , h0] = clock.exec(log[0]);
        let lastP = 0;
        for (const line of log) {
          const m = clock.exec(line);
          assert.ok(m, `seed ${seed} ${name}: no clocks in "${line}"`);
          const p = Number(m[1]);
          assert.ok(p >= lastP, `seed ${seed} ${name}: performance.now went backwards at "${line}"`);
          lastP = p;
          const elapsedNs = Math.round(p * 1e6) - STARTUP_MS * 1e6;
          assert.equal(Number(m[2]), EPOCH_MS + SKEW_MS[name] + Math.floor(elapsedNs / 1e6), `seed ${seed} ${name}: Date vs performance.now in "${line}"`);
          assert.equal(BigInt(m[3]) - BigInt(h0), BigInt(elapsedNs), `seed ${seed} ${name}: hrtime vs performance.now in "${line}"`);
          assert.equal(Number(m[4]), Math.round(p * 1e6) / 1e9, `seed ${seed} ${name}: uptime vs performance.now in "${line}"`);
        }
        assert.ok(lastP > STARTUP_MS, `seed ${seed} ${name}: virtual time never advanced`);
      }
    }
  });

  it('writes one trace line per event, in (time, event number) order, naming only workload hosts', function () {
    const hosts = new Set(HOST_NAMES);
    for (const [seed, { first }] of runs) {
      // Events carry a seq; the header (kind run) and annotations (stall, ...) do not.
      const records = fs.readFileSync(first.trace, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
      assert.equal(records[0].kind, 'run', `seed ${seed}: the header comes first`);
      const events = records.filter((r) => r.seq !== undefined);
      assert.equal(events.length, first.result.events, `seed ${seed}`);
      let lastT = 0;
      events.forEach((e, i) => {
        assert.equal(e.n, i + 1, `seed ${seed}`);
        assert.ok(e.tNs >= lastT, `seed ${seed}: trace time went backwards at event ${e.n}`);
        lastT = e.tNs;
        assert.ok(hosts.has(e.host), `seed ${seed}: unknown host ${e.host}`);
        assert.equal(e.boot, 1);
        assert.ok(['boot', 'timeout', 'interval', 'immediate'].includes(e.kind), `seed ${seed}: kind ${e.kind}`);
      });
      assert.equal(lastT, first.result.elapsedNs, `seed ${seed}: the last event is at the end time`);
    }
  });

  it('names user code as the site of every traced event, never a file of dst-runtime', function () {
    // The site is the first frame outside dst-runtime where the event was scheduled: for a boot,
    // the caller of sim.run(); for timers and immediates, the workload line that created them.
    // Sites are relative to the working directory.
    const workload = path.relative(process.cwd(), path.join(FIXTURES, 'workload.mjs'));
    const wrong = new Map();
    for (const [seed, { first }] of runs) {
      for (const line of fs.readFileSync(first.trace, 'utf8').trimEnd().split('\n')) {
        const e = JSON.parse(line);
        if (e.seq === undefined) continue; // the header and annotations: no event of their own
        const site = e.site ?? '';
        if (!(site.startsWith(`${workload}:`) && /:\d+:\d+$/.test(site))) {
          const key = `${e.kind} at ${e.site}`;
          if (!wrong.has(key)) wrong.set(key, `seed ${seed} event ${e.n}`);
        }
      }
    }
    assert.deepEqual(Object.fromEntries(wrong), {});
  });

  it("gives timers the same numeric ids on every run of a seed (ids do not depend on earlier runs)", async function () {
    // A program may log a timer's id or use it as a key: it is part of what the program sees.
    const idsOf = async () => {
      const sim = new Sim({ seed: '0x1d5' });
      let ids;
      sim.client('c', () => {
        const timeout = setTimeout(() => {}, 1);
        const interval = setInterval(() => {}, 1);
        ids = [Number(timeout), Number(interval)];
        clearInterval(interval);
      });
      await sim.run();
      return ids;
    };
    const first = await idsOf();
    const second = await idsOf();
    assert.deepEqual(second, first);
  });

  it('notices a program that leaks real randomness (the checks above can fail)', async function () {
    // Arrange / Act: one host sleeps for a delay taken from the real Math.random.
    const a = await runWorkload('0x5eed', { leak: true });
    const b = await runWorkload('0x5eed', { leak: true });
    // Assert: the leak shows in the fingerprint and in the observations.
    assert.notEqual(a.result.fingerprint, b.result.fingerprint);
    assert.notEqual(a.outputHash, b.outputHash);
  });
});

describe('determinism across processes (20 seeds, two fresh child processes)', function () {
  this.timeout(60_000);
  const seeds = seedList(200).filter((_, i) => i % 10 === 3); // 20 seeds spread over the list
  let dir;

  before(function () {
    dir = mkTemp('dst-determinism-child-');
  });
  after(function () {
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });

  function runChild(args) {
    const child = spawnSync(process.execPath, [path.join(FIXTURES, 'run-seeds.mjs'), '--trace-dir', dir, ...args], {
      cwd: process.cwd(),
      encoding: 'utf8',
      timeout: 50_000,
    });
    assert.equal(child.status, 0, `child failed (status ${child.status}, signal ${child.signal}):\n${child.stderr}`);
    const bySeed = new Map();
    for (const line of child.stdout.trim().split('\n')) {
      const record = JSON.parse(line);
      bySeed.set(record.seed, record);
    }
    return bySeed;
  }

  it('gives each seed the same fingerprint, output and trace in two processes and in this one', async function () {
    // Arrange: the reference, in this process.
    assert.equal(seeds.length, 20);
    const local = new Map();
    for (const seed of seeds) {
      const trace = path.join(dir, `local-${seed}.jsonl`);
      const { result, outputHash } = await runWorkload(seed, { trace });
      local.set(result.seed, {
        seed: result.seed,
        fingerprint: result.fingerprint,
        events: result.events,
        elapsedNs: result.elapsedNs,
        outputHash,
        traceHash: sha256(fs.readFileSync(trace)),
      });
    }
    // Act: two children, one given the seeds in order, the other in reverse after a warm-up.
    const childA = runChild(seeds.map(String));
    const childB = runChild(['--warmup', ...[...seeds].reverse().map(String)]);
    // Assert
    assert.equal(local.size, 20);
    assert.deepEqual([...childA.keys()].sort(), [...local.keys()].sort());
    for (const [seed, expected] of local) {
      assert.deepEqual(childA.get(seed), expected, `seed ${seed}: first child vs this process`);
      assert.deepEqual(childB.get(seed), expected, `seed ${seed}: second child vs this process`);
    }
  });
});

describe('determinism in register mode (an unmodified program under --import register)', function () {
  this.timeout(60_000);
  let dir;
  before(function () {
    dir = mkTemp('dst-determinism-register-');
  });
  after(function () {
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the register-mode app under `seed`; returns its report, stdout record and trace. */
  function runApp(seed, name, { quiet = true } = {}) {
    const report = path.join(dir, `${name}.report.json`);
    const trace = path.join(dir, `${name}.trace.jsonl`);
    const env = { ...process.env, DST_SEED: seed, DST_REPORT: report, DST_TRACE: trace };
    delete env.DST_QUIET;
    if (quiet) env.DST_QUIET = '1';
    const child = spawnSync(process.execPath, ['--import', REGISTER, path.join(FIXTURES, 'register-app.mjs')], {
      cwd: process.cwd(),
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(child.status, 0, `app failed under DST_SEED=${seed} (status ${child.status}):\n${child.stderr}`);
    return {
      report: JSON.parse(fs.readFileSync(report, 'utf8')),
      stdout: JSON.parse(child.stdout),
      trace: fs.readFileSync(trace, 'utf8'),
      stderr: child.stderr,
    };
  }

  it('gives one DST_SEED the same fingerprint, output and trace twice, and another seed a different run', function () {
    // Act
    const a = runApp('0x2a', 'a');
    const b = runApp('0x2a', 'b');
    const decimal = runApp('42', 'decimal');
    const other = runApp('0x2b', 'other');
    // Assert: same seed, same run.
    assert.equal(a.report.seed, '0x2a');
    assert.equal(a.report.exitCode, 0);
    assert.match(a.report.fingerprint, /^[0-9a-f]{16}$/);
    assert.ok(a.report.events > 50, `only ${a.report.events} events: the workload did not run`);
    assert.ok(a.stdout.lines > 50);
    assert.deepEqual(b.report, a.report);
    assert.deepEqual(b.stdout, a.stdout);
    assert.equal(b.trace, a.trace, firstDifference(a.trace, b.trace));
    assert.equal(a.trace.trimEnd().split('\n').filter((line) => JSON.parse(line).seq !== undefined).length, a.report.events);
    // DST_SEED=42 is the same seed as 0x2a.
    assert.equal(decimal.report.seed, '0x2a');
    assert.equal(decimal.report.fingerprint, a.report.fingerprint);
    assert.deepEqual(decimal.stdout, a.stdout);
    // A different seed, a different run.
    assert.equal(other.report.seed, '0x2b');
    assert.notEqual(other.report.fingerprint, a.report.fingerprint);
    assert.notEqual(other.stdout.outputHash, a.stdout.outputHash);
    // DST_QUIET=1 suppresses the summary line.
    assert.doesNotMatch(a.stderr, /dst: seed/);
  });

  it('prints a summary line whose seed and fingerprint match the report', function () {
    const loud = runApp('0x2a', 'loud', { quiet: false });
    const m = /^dst: seed (0x[0-9a-f]+)\s+fingerprint ([0-9a-f]{16})\s+virtual [\d.]+ s\s+events (\d+)\s+exit 0$/m.exec(loud.stderr);
    assert.ok(m, `no summary line in stderr:\n${loud.stderr}`);
    assert.equal(m[1], loud.report.seed);
    assert.equal(m[2], loud.report.fingerprint);
    assert.equal(Number(m[3]), loud.report.events);
  });
});
