import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { defineScenario, runScenario, STARTUP_MS, UsageError } from 'dst-runtime';
import dgram from 'node:dgram';
import fs from 'node:fs';
import { durableLogScenario } from '../../examples/scenarios/durable-log.mjs';
import { counterScenario } from '../../examples/scenarios/replicated-counter.mjs';

const WORKER = new URL('./fixtures/module-worker/worker.mjs', import.meta.url).pathname;

describe('scenarios: topology network and host code in the scenario (issue 20 items 13, 14)', () => {
  it('sets the network in the scenario and per link in hosts(), before the run starts', async () => {
    const seen = {};
    const scenario = defineScenario({
      name: 'network-setup',
      durationMs: 2_000,
      network: { latency: { minMs: 20, maxMs: 20 } },
      hosts(sim) {
        for (const name of ['a', 'b', 'c']) {
          sim.host(name, () => dgram.createSocket('udp4').on('message', (m, r) => dgram.createSocket('udp4').send(m, r.port, r.address)).bind(9000));
        }
        sim.setLink('a', 'c', { latency: { minMs: 200, maxMs: 200 } });
        seen.addressOfC = sim.addressOf('c');
        sim.client('probe', async () => {
          for (const target of ['b', 'c']) {
            const socket = dgram.createSocket('udp4');
            const t0 = performance.now();
            await new Promise((resolve) => {
              socket.on('message', resolve);
              socket.send('ping', 9000, target);
            });
            seen[target] = performance.now() - t0;
            socket.close();
          }
        });
      },
    });
    const result = await runScenario(scenario, 1);
    assert.equal(result.ok, true, JSON.stringify(result.failure));
    assert.deepEqual(seen.addressOfC, { ipv4: '10.0.0.3', ipv6: 'fd00::3' });
    // probe -> b -> probe: 20 + 20 ms; to c the same, since the slow link is a <-> c only.
    assert.equal(Math.round(seen.b), 40);
    assert.equal(Math.round(seen.c), 40);
    assert.throws(
      () => defineScenario({ name: 'bad', durationMs: 1, hosts() {}, network: { lossRatio: 3 } }),
      (error) => error instanceof UsageError && /Failed to define scenario "bad": network: lossRatio must be a number between 0 and 1/.test(error.message),
    );
    const early = defineScenario({ name: 'early', durationMs: 10, hosts(sim) { sim.setLink('x', 'y', { lossRatio: 0.1 }); } });
    await assert.rejects(runScenario(early, 1), /Failed to configure the link of host "x": no such host \(known: none; add hosts before setting up their network\)/);
  });

  it('module hosts reach the scenario\'s state and phase through scenarioContext(), and their always() fails safety', async () => {
    const scenario = (plant) => defineScenario({
      name: 'module-worker',
      durationMs: 1_000,
      healMs: 300,
      hosts(sim) {
        sim.host('worker', { main: WORKER, env: { PLANT_BUG: plant ? '1' : '0' } });
      },
      invariants: {
        liveness: [
          (ctx) => ctx.state.ticks > 10 || `only ${ctx.state.ticks} ticks`,
          // The worker saw the heal phase begin (at 700 ms) and stopped its workload there (its
          // performance.now() counts its process's start-up, STARTUP_MS, too).
          (ctx) => (ctx.state.stoppedAt - STARTUP_MS >= 700 && ctx.state.stoppedAt - STARTUP_MS < 720) || `stopped at ${ctx.state.stoppedAt}`,
        ],
      },
    });
    const ok = await runScenario(scenario(false), 1);
    assert.equal(ok.ok, true, JSON.stringify(ok.failure));
    const buggy = await runScenario(scenario(true), 1);
    assert.equal(buggy.ok, false);
    assert.equal(buggy.failure.kind, 'safety');
    assert.match(buggy.failure.message, /always: the worker ticked 5 times/);
  });
});

describe('after a scenario run (issue 20 item 11)', () => {
  it('nothing of the run keeps the process alive: no handle or request is left once runScenario resolves', () => {
    // Two module hosts with servers, keep-alive agents, fetches and connects to names that do
    // not resolve, UDP, intervals and an hour-long timer, under crashes, kills, partitions and
    // resets. The child must exit by itself, with no active resource left.
    const runner = new URL('./fixtures/leftovers/run.mjs', import.meta.url).pathname;
    for (const seed of ['1', '2']) {
      const child = spawnSync(process.execPath, [runner, seed], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(child.signal, null, `seed ${seed}: the process did not exit by itself\n${child.stderr}`);
      assert.equal(child.status, 0, child.stderr);
      const report = JSON.parse(child.stdout.trim().split('\n').pop());
      assert.equal(report.ok, true);
      assert.ok(report.events > 100, `seed ${seed}: ${report.events} events`);
      // The child's stdio (pipes here) are the process's own, there before the run.
      assert.deepEqual(report.after.filter((kind) => kind !== 'PipeWrap' && kind !== 'TTYWrap'), [], `seed ${seed}: left behind`);
    }
  });
});

describe('runScenario', () => {
  it('the same seed twice gives the same fingerprint (seed 0x2a); another seed another one', async () => {
    const scenario = counterScenario({ bug: false });
    const first = await runScenario(scenario, 0x2a);
    const second = await runScenario(scenario, 0x2a);
    const other = await runScenario(scenario, 0x2b);
    assert.equal(first.ok, true, JSON.stringify(first.failure));
    assert.equal(first.fingerprint, second.fingerprint);
    assert.equal(first.events, second.events);
    assert.notEqual(first.fingerprint, other.fingerprint);
  });

  it('the planted bug fails safety, identically on each replay (seed 0x6)', async () => {
    const scenario = counterScenario({ bug: true });
    const runs = [await runScenario(scenario, 6), await runScenario(scenario, 6), await runScenario(scenario, 6)];
    for (const run of runs) {
      assert.equal(run.ok, false);
      assert.equal(run.failure.kind, 'safety');
      assert.equal(run.fingerprint, runs[0].fingerprint);
    }
    assert.match(runs[0].failure.message, /acknowledged but the replicas hold at most/);
  });

  it('a simulated disk: the durable log survives machine crashes on seeds 1-10; acking before fsync fails (seed 0x2)', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const result = await runScenario(durableLogScenario({ bug: false }), seed);
      assert.equal(result.ok, true, `seed ${seed}: ${JSON.stringify(result.failure)}`);
    }
    const buggy = durableLogScenario({ bug: true });
    const runs = [await runScenario(buggy, 2), await runScenario(buggy, 2)];
    for (const run of runs) {
      assert.equal(run.ok, false);
      assert.equal(run.failure.kind, 'safety');
      assert.equal(run.fingerprint, runs[0].fingerprint);
    }
    assert.match(runs[0].failure.message, /19 records acknowledged but the store recovered 18/);
    // The log lived on the simulated disk only.
    assert.equal(fs.existsSync('data/log'), false);
  });

  it('liveness is judged at the end, after the heal phase (seed 0x1)', async () => {
    const scenario = defineScenario({
      name: 'stuck',
      hosts: (sim) => sim.host('a', () => setInterval(() => {}, 100)),
      durationMs: 500,
      healMs: 100,
      invariants: { liveness: [(ctx) => ctx.phase === 'heal' && 'still stuck'] },
    });
    const result = await runScenario(scenario, 1);
    assert.equal(result.failure?.kind, 'liveness');
    assert.equal(result.failure.timeNs, 499_000_000);
    assert.match(result.failure.message, /still stuck/);
  });

  it('defineScenario rejects what it cannot run, saying what to change', () => {
    assert.throws(() => defineScenario({ name: 'x', hosts: () => {}, durationMs: 0 }), (e) => e instanceof UsageError && /durationMs/.test(e.message));
    assert.throws(() => defineScenario({ name: 'x', hosts: () => {}, durationMs: 100, healMs: 100 }), /healMs/);
    assert.throws(() => defineScenario({ name: 'x', hosts: () => {}, durationMs: 100, faults: { crashPerSecond: -1 } }), /crashPerSecond/);
  });

  it('defineScenario rejects keys it does not know and values the fault driver cannot use (a misspelt key ran with no faults or no checks)', () => {
    const define = (extra) => () => defineScenario({ name: 'x', hosts: () => {}, durationMs: 100, ...extra });
    const usage = (pattern) => (e) => e instanceof UsageError && pattern.test(e.message);
    assert.throws(define({ faults: { crashesPerSecond: 1 } }), usage(/unknown key faults\.crashesPerSecond; did you mean faults\.crashPerSecond\?/));
    assert.throws(define({ invariant: { safety: [] } }), usage(/unknown key invariant; did you mean invariants\?/));
    assert.throws(define({ faults: { zzz: 1 } }), usage(/unknown key faults\.zzz; the keys are faults\.crashPerSecond, /));
    assert.throws(define({ invariants: { safty: [] } }), usage(/unknown key invariants\.safty; did you mean invariants\.safety\?/));
    assert.throws(define({ invariants: { safety: [1] } }), usage(/invariants\.safety must be a list of functions/));
    assert.throws(define({ faults: { downMsMin: 500, downMsMax: 10 } }), usage(/downMsMin \(500\) must not exceed faults\.downMsMax \(10\)/));
    assert.throws(define({ faults: { downMsMin: -5 } }), usage(/downMsMin must be an integer >= 0, got -5/));
    assert.throws(define({ faults: { tickMs: 0 } }), usage(/tickMs must be an integer >= 1, got 0/));
    assert.throws(define({ faults: { downCountMax: 0 } }), usage(/downCountMax must be an integer >= 1/));
    assert.throws(define({ faults: { crashWhen: true } }), usage(/crashWhen must be a function/));
    assert.throws(define({ safetyEveryMs: 0 }), usage(/safetyEveryMs must be a positive number/));
    assert.throws(define({ targets: 'a' }), usage(/targets must be an array of host names/));
    assert.doesNotThrow(define({ faults: { crashPerSecond: 1, downMsMin: 10, downMsMax: 10, tickMs: 5, crashWhen: () => true }, safetyEveryMs: 5, invariants: { safety: [() => true] } }));
  });

  it('runScenario rejects targets and clients hosts() did not add, before the run', async () => {
    const scenario = defineScenario({ name: 'x', hosts: (sim) => sim.host('a', () => {}), targets: ['a', 'nope'], durationMs: 100 });
    await assert.rejects(runScenario(scenario, 1), (e) => e instanceof UsageError && /targets names "nope", which hosts\(\) did not add \(it added "a"\)/.test(e.message));
  });
});
