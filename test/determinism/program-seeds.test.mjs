/**
 * `dst explore` runs many seeds of a plain program in one worker process
 * (shims/program-seeds.ts). Each seed there must give exactly what it gives alone, as
 * `DST_SEED=N node --import dst-runtime/register app` runs it: the same fingerprint, virtual
 * time, event count and exit code, also after seeds that left globals, process listeners, an
 * exit code, module state, timers and servers behind, and after seeds that exited, crashed or
 * never settled their top-level await.
 */
import assert from 'node:assert/strict';
import { fork, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('./fixtures/program-seeds/', import.meta.url));
const REGISTER = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../cli/dst.mjs', import.meta.url));
const SEEDS = Array.from({ length: 12 }, (_, i) => `0x${(i + 1).toString(16)}`);

/**
 * Every seed through the explorer's worker (`dst __app-worker`), replaced when it says it must be.
 * A worker that says the program's seeds must each run alone (`alone`) is not asked again: that
 * seed's and every later seed's result come from `runAlone(seed)`, as `dst explore` takes them.
 */
async function inWorkers(file, seeds, runAlone) {
  const results = [];
  let child;
  let workers = 0;
  let exited;
  let aloneReason;
  for (const seed of seeds) {
    if (aloneReason !== undefined) {
      results.push(runAlone(seed));
      continue;
    }
    if (child === undefined) {
      child = fork(CLI, ['__app-worker', file], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
      exited = new Promise((resolve) => child.once('exit', resolve));
      workers++;
    }
    let died;
    const answer = await new Promise((resolve, reject) => {
      died = (code) => reject(new Error(`the worker exited with code ${code} during seed ${seed}`));
      child.once('message', resolve);
      child.once('exit', died);
      child.send({ type: 'seed', seed });
    });
    // Only this listener: `exited` must still see the exit of a worker that is not reusable.
    child.off('exit', died);
    if (answer.alone !== undefined) {
      aloneReason = answer.alone;
      results.push(runAlone(seed));
    } else {
      results.push(answer.result);
    }
    if (!answer.reusable) {
      await exited;
      child = undefined;
    }
  }
  if (child !== undefined) {
    child.send({ type: 'stop' });
    await exited;
  }
  return { results, workers, aloneReason };
}

/** One seed alone, under register mode, read from its DST_REPORT. */
function alone(file, seed, dir) {
  const report = path.join(dir, `report-${seed}.json`);
  const run = spawnSync(process.execPath, ['--import', REGISTER, file], {
    // As `dst run` runs it: every dynamic import() held on Node's loader thread (Node 20;
    // shims/register-mode.ts), and its runner's own variables set.
    env: { ...process.env, DST_SEED: seed, DST_QUIET: '1', DST_REPORT: report, ...(typeof Module.registerHooks === 'function' ? {} : { DST_HELD_IMPORTS: '1' }) },
    encoding: 'utf8',
  });
  const data = JSON.parse(fs.readFileSync(report, 'utf8'));
  return { exitCode: run.status, fingerprint: data.fingerprint, elapsedNs: data.elapsedNs, events: data.events };
}

/** What the worker's result says of a seed, in the terms of `alone`. */
function fromWorker(result) {
  const fingerprint = result.ok ? result.fingerprint : result.fingerprint.split(':').at(-1);
  return { exitCode: result.ok ? 0 : result.failure.exitCode, fingerprint, elapsedNs: result.elapsedNs, events: result.events };
}

describe('a plain program: many seeds in one worker process', function () {
  this.timeout(240_000);
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-program-seeds-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const name of ['leftovers.mjs', 'leftovers.cjs', 'exits.mjs', 'http-keepalive.mjs', 'ipc.mjs', 'top-level-throw.mjs', 'dynamic-import.mjs', 'dynamic-import.cjs', 'dynamic-import-tla.mjs', 'import-from-cjs.cjs', 'import-meta.mjs', 'require-esm.cjs', 'require-cache.cjs', 'http2-secure.mjs', 'process-view.mjs', 'own-listeners.mjs', 'ports-timeline.mjs', 'formdata.mjs', 'stack-frames.mjs', 'source-mapped-entry.mjs', 'cjs-namespace.mjs', 'async-hooks-leftover.mjs', 'reexports.mjs']) {
    it(`${name}: seeds ${SEEDS[0]}..${SEEDS.at(-1)} give in one worker what each gives alone`, async () => {
      const file = path.join(FIXTURES, name);
      const fresh = SEEDS.map((seed) => alone(file, seed, dir));
      const { results } = await inWorkers(file, SEEDS, (seed) => ({ fresh: fresh[SEEDS.indexOf(seed)] }));
      const worker = results.map((r) => r.fresh ?? fromWorker(r));
      for (let i = 0; i < SEEDS.length; i++) assert.deepEqual(worker[i], fresh[i], `seed ${SEEDS[i]} of ${name}`);
      // The seeds must not all run alike, or the comparison would prove little.
      assert.ok(new Set(fresh.map((r) => `${r.fingerprint}/${r.exitCode}`)).size > 1, `${name}: every seed ran alike`);
    });
  }

  for (const name of ['typescript.mts', 'typescript.cts']) {
    it(`${name} (types stripped by Node): seeds ${SEEDS[0]}..${SEEDS.at(-1)} give in one worker what each gives alone`, async function () {
      if (!process.features.typescript) this.skip(); // Node 20, and 22 before 22.18
      const file = path.join(FIXTURES, name);
      const fresh = SEEDS.map((seed) => alone(file, seed, dir));
      assert.deepEqual(fresh.filter((r) => r.exitCode !== 0), [], `${name} fails alone`);
      const { results } = await inWorkers(file, SEEDS, (seed) => ({ fresh: fresh[SEEDS.indexOf(seed)] }));
      const worker = results.map((r) => r.fresh ?? fromWorker(r));
      for (let i = 0; i < SEEDS.length; i++) assert.deepEqual(worker[i], fresh[i], `seed ${SEEDS[i]} of ${name}`);
      assert.ok(new Set(fresh.map((r) => r.fingerprint)).size > 1, `${name}: every seed ran alike`);
    });
  }

  it('require-esm.cjs: runs in one worker where the hooks run in-thread (Node 22.15+, 24), else each seed alone', async () => {
    // Regression (every seed after a worker's first): Node keys a require()d ES module by its
    // file's URL, so the worker's seeds shared one instance. With in-thread hooks it now gets the
    // host's own instance (a facade, module-graph.ts requiredInHostGraph); on a loader thread
    // Node 20 loads a require()d graph past the hooks, so the worker says so and every seed runs
    // alone, as its replay does.
    const file = path.join(FIXTURES, 'require-esm.cjs');
    const seeds = SEEDS.slice(0, 4);
    const { results, workers, aloneReason } = await inWorkers(file, seeds, (seed) => ({ fresh: { seed } }));
    if (typeof Module.registerHooks === 'function') {
      assert.equal(aloneReason, undefined);
      assert.equal(workers, 1, 'every seed ran in the one worker');
      for (const result of results) assert.ok(result.ok, `seed ${result.seed}: ${result.failure?.message}`);
    } else {
      assert.match(aloneReason ?? '', /require\(\)s an ES module \(.*require-esm-state\.mjs\)/);
      assert.deepEqual(results.map((r) => r.fresh?.seed), seeds, 'the first seed said so, and none ran in a worker after it');
    }
  });

  it('ipc.mjs: a program sees no IPC channel in a worker, as started plainly, and leaves the worker its own', async () => {
    // Regression: a worker is a forked process; the program saw process.send, and its
    // removeAllListeners('message') took the worker's own listener, which hung the explorer.
    const file = path.join(FIXTURES, 'ipc.mjs');
    const { results, workers } = await inWorkers(file, SEEDS);
    for (const result of results) assert.ok(result.ok, `seed ${result.seed}: ${result.failure?.message}`);
    assert.equal(workers, 1, 'every seed ran in the one worker');
    const plain = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    assert.equal(plain.status, 0, plain.stderr);
  });

  it("throw-ticks.mjs: the ticks a handled throw leaves behind run where Node runs them, alone and in a worker", async () => {
    // Regression: the simulator ran the next event before them, whatever its phase (compliance
    // 102 compares the whole order with plain Node). The fixture exits 3 when they ran elsewhere.
    const file = path.join(FIXTURES, 'throw-ticks.mjs');
    const plain = spawnSync(process.execPath, [file], { encoding: 'utf8' });
    assert.equal(plain.status, 0, `plain Node: ${plain.stdout}${plain.stderr}`);
    const seeds = SEEDS.slice(0, 6);
    const { results } = await inWorkers(file, seeds);
    const worker = results.map(fromWorker);
    const fresh = seeds.map((seed) => alone(file, seed, dir));
    for (let i = 0; i < seeds.length; i++) {
      assert.equal(fresh[i].exitCode, 0, `seed ${seeds[i]} alone`);
      assert.deepEqual(worker[i], fresh[i], `seed ${seeds[i]} in a worker`);
    }
  });

  /** `dst explore` of a fixture that fails on every seed, 4 seeds: each failure replays in a fresh process, and the seeds differ. */
  function exploreFailsAndReplays(fixture, message) {
    const report = path.join(dir, `${fixture}.json`);
    const run = spawnSync(process.execPath, [CLI, 'explore', path.join(FIXTURES, fixture), '--seeds', '4', '--jobs', '1', '--report', report], { encoding: 'utf8' });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    const { failing } = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(failing.length, 4);
    for (const f of failing) {
      assert.match(f.message, message);
      assert.equal(f.replays, true, `seed ${f.seed} did not replay: ${f.message}`);
    }
    assert.ok(new Set(failing.map((f) => f.fingerprint)).size > 1, 'every seed ran alike');
    return failing;
  }

  it('a program\'s worker that holds too much memory retires: the same failing seeds, fingerprints and messages (DST_WORKER_HEAP_MB)', () => {
    // A probe (2026-12-06): an aedes + mqtt.js program's workers grew to 4.6 GB and died one after
    // another. With a limit of 1 KiB every worker retires after one seed.
    const explore = (env) => {
      const report = path.join(dir, `retry-${Object.keys(env).length}.json`);
      const run = spawnSync(process.execPath, [CLI, 'explore', 'examples/faults/retry-buggy.mjs', '--swarm', '--seeds', '30', '--jobs', '2', '--report', report], {
        cwd: fileURLToPath(new URL('../../', import.meta.url)),
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
      assert.equal(run.status, 1, run.stdout + run.stderr);
      return JSON.parse(fs.readFileSync(report, 'utf8')).failing.map((f) => `${f.seed} ${f.fingerprint} ${f.replays} ${f.message}`).sort();
    };
    const kept = explore({});
    assert.ok(kept.length > 0);
    assert.deepEqual(explore({ DST_WORKER_HEAP_MB: '0.001' }), kept);
  });

  it('dynamic-import-lazy.mjs: a failure found in a worker replays where only a dependency imports lazily', () => {
    // Regression (seed 0x1 and every other): on Node 20 the worker held the dependency's import()
    // and `dst run` did not, so every failure of such a program was reported as not replaying
    // (one more 'io' event in the worker). The CLI now runs every register-mode seed with
    // DST_HELD_IMPORTS=1 there, and its replay commands carry it.
    exploreFailsAndReplays('dynamic-import-lazy.mjs', /failing on purpose after \d+ ticks/);
  });

  it('descriptor-numbers.mjs: a failure showing the descriptors it opened replays in a fresh process', () => {
    const failing = exploreFailsAndReplays('descriptor-numbers.mjs', /failing on purpose with descriptors \d+ \d+ \d+ after/);
    // Every seed numbers its descriptors alike: none is left open by the seed before it.
    assert.equal(new Set(failing.map((f) => /descriptors (\d+ \d+ \d+)/.exec(f.message)[1])).size, 1, failing.map((f) => f.message).join('\n'));
  });

  it('multiline-failure.mjs: a failure whose message spans lines replays, in the explorer and in `dst replay`', () => {
    const failing = exploreFailsAndReplays('multiline-failure.mjs', /loosely deep-equal:\n[\s\S]*should loosely deep-equal\n[\s\S]*3/);
    assert.ok(failing.every((f) => f.message.split('\n').length > 5), failing[0].message);
    const replay = spawnSync(process.execPath, [CLI, 'replay', path.join(dir, 'multiline-failure.mjs.json')], { encoding: 'utf8' });
    assert.equal(replay.status, 1, replay.stdout + replay.stderr);
    assert.match(replay.stdout, /reproduced +same failure, same fingerprint/);
  });

  it('argv0.mjs: a seed sees process.argv0 and process.title `node` in the explorer and in `dst run`, as in register mode', () => {
    // Found by a review (2026-12-06): `dst run` and the explorer started the program with this
    // Node's absolute path, so process.argv0 read `/usr/bin/node` there and `node` in the replay
    // line register mode prints.
    const failing = exploreFailsAndReplays('argv0.mjs', /failing on purpose as node titled node after/);
    // The replay line register mode prints: `DST_SEED=... node --import dst-runtime/register ...`.
    const plain = spawnSync(process.execPath, ['--import', REGISTER, path.join(FIXTURES, 'argv0.mjs')], { env: { ...process.env, DST_SEED: failing[0].seed }, encoding: 'utf8', argv0: 'node' });
    // The same failure, to the microsecond, as the worker found it.
    const what = (text) => /failing on purpose as \S+ titled \S+ after [\d.]+ ms/.exec(text)?.[0];
    assert.equal(what(plain.stderr), what(failing[0].message), plain.stderr);
  });

  it('require-esm.cjs: `dst explore` passes every seed, each run alone where a worker cannot isolate it', () => {
    // Without the facade (Node 22.15+, 24) the second seed's module counter read 2; without the
    // pool's rerun (Node 20) the worker's first seed saw two instances of one module (exit 3).
    const report = path.join(dir, 'require-esm.json');
    const run = spawnSync(process.execPath, [CLI, 'explore', path.join(FIXTURES, 'require-esm.cjs'), '--seeds', '4', '--jobs', '1', '--report', report], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const { ran, failing } = JSON.parse(fs.readFileSync(report, 'utf8'));
    assert.equal(ran.length, 4);
    assert.deepEqual(failing, []);
    const notice = /runs each seed in a process of its own \(slower\): it require\(\)s an ES module/;
    if (typeof Module.registerHooks === 'function') assert.doesNotMatch(run.stderr, notice);
    else assert.match(run.stderr, notice);
  });

  it('exits.mjs covers each way of ending, and a worker outlives them', async () => {
    const file = path.join(FIXTURES, 'exits.mjs');
    const { results, workers } = await inWorkers(file, SEEDS);
    const codes = new Set(results.map((r) => (r.ok ? 0 : r.failure.exitCode)));
    for (const code of [0, 1, 2, 4, 13]) assert.ok(codes.has(code), `no seed of ${SEEDS.length} exited with ${code}: ${[...codes]}`);
    assert.equal(workers, 1, 'seeds that exited or crashed cleanly left the worker fit for the next');
  });

  it('fs-callbacks.mjs on a simulated disk: every seed in one worker ends as alone', async () => {
    const file = path.join(FIXTURES, 'fs-callbacks.mjs');
    const before = process.env.DST_DISK;
    process.env.DST_DISK = 'simulated';
    try {
      const fresh = SEEDS.map((seed) => alone(file, seed, dir));
      const { results, workers } = await inWorkers(file, SEEDS);
      assert.deepEqual(results.map(fromWorker), fresh);
      assert.ok(new Set(fresh.map((r) => r.exitCode)).size > 1, 'every seed ran alike');
      assert.equal(workers, 1, 'every seed ran in the one worker');
    } finally {
      if (before === undefined) delete process.env.DST_DISK;
      else process.env.DST_DISK = before;
    }
  });

  it('exit-listener-throws.mjs: an exit listener that throws crashes the seed in a worker as alone, or goes to its handler', async () => {
    const file = path.join(FIXTURES, 'exit-listener-throws.mjs');
    const fresh = SEEDS.map((seed) => alone(file, seed, dir));
    const { results } = await inWorkers(file, SEEDS);
    assert.deepEqual(results.map(fromWorker), fresh);
    assert.deepEqual([...new Set(fresh.map((r) => r.exitCode))].sort(), [0, 1], 'seeds exit with 0 and with 1');
    const crashed = results.filter((r) => !r.ok && r.failure.exitCode === 1);
    assert.ok(crashed.length > 0 && crashed.every((r) => /thrown in an exit listener/.test(r.failure.message)), 'a crash names the error');
  });

  it('exit-in-async.mjs: an exit inside a promise job, caught by a handler that exits too, keeps the worker', async () => {
    const file = path.join(FIXTURES, 'exit-in-async.mjs');
    const fresh = SEEDS.map((seed) => alone(file, seed, dir));
    const { results, workers } = await inWorkers(file, SEEDS);
    assert.deepEqual(results.map(fromWorker), fresh);
    assert.deepEqual([...new Set(fresh.map((r) => r.exitCode))].sort(), [0, 3], 'seeds exit with 0 and with 3');
    assert.equal(workers, 1, 'every seed ran in the one worker');
  });
});
