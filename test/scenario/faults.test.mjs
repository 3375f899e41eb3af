import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { defineScenario, formatFaultMix, runScenario, Sim, STARTUP_MS, swarmFaults, UsageError } from 'dst-runtime';

/** Two hosts ping each other over UDP every 20 ms; the state records the slowest round trip. */
function pingScenario(faults, extra = {}) {
  return defineScenario({
    name: 'ping',
    hosts(sim, ctx) {
      ctx.state.maxRttMs = 0;
      ctx.state.pongs = 0;
      ctx.state.rtts = [];
      sim.host('a', () => {
        const socket = dgram.createSocket('udp4');
        const sent = new Map();
        let id = 0;
        socket.on('message', (buffer) => {
          const at = sent.get(Number(buffer));
          if (at === undefined) return;
          ctx.state.pongs++;
          ctx.state.maxRttMs = Math.max(ctx.state.maxRttMs, performance.now() - at);
          ctx.state.rtts.push([at, performance.now() - at]);
        });
        socket.bind(7000, () => setInterval(() => {
          sent.set(++id, performance.now());
          socket.send(String(id), 7000, 'b');
        }, 20));
      });
      sim.host('b', () => {
        const socket = dgram.createSocket('udp4');
        socket.on('message', (buffer, from) => socket.send(buffer, from.port, from.address));
        socket.bind(7000);
      });
    },
    durationMs: 2_000,
    faults,
    ...extra,
  });
}

describe('scenario fault profile additions', () => {
  it('latency spikes raise a link latency into latencySpikeMs, then restore it (seed 0x11)', async () => {
    const calm = await runScenario(pingScenario({}), 0x11);
    const spiky = pingScenario({ latencySpikePerSecond: 5, latencySpikeMs: [300, 300], downMsMin: 100, downMsMax: 100 });
    let maxRttMs;
    const result = await runScenario(
      defineScenario({
        ...spiky,
        invariants: { liveness: [(ctx) => ((maxRttMs = ctx.state.maxRttMs), true)] },
      }),
      0x11,
    );
    assert.equal(calm.ok, true);
    assert.equal(result.ok, true, JSON.stringify(result.failure));
    // Default latency is 1-5 ms each way; one leg of a spiked round trip takes 300 ms.
    assert.ok(maxRttMs >= 300 && maxRttMs < 700, `slowest round trip ${maxRttMs} ms`);
    assert.notEqual(calm.fingerprint, result.fingerprint);
  });

  it('latency spikes: the heal phase restores every spiked link (seed 0x12)', async () => {
    // Spikes that would outlast the run: only the heal phase (at 2 s) ends them.
    const scenario = pingScenario(
      { latencySpikePerSecond: 50, latencySpikeMs: [400, 400], downMsMin: 5000, downMsMax: 5000 },
      {
        durationMs: 3_000,
        healMs: 1_000,
        invariants: {
          liveness: [
            (ctx) => {
              // Sent at the pinger's performance.now(), which counts its process's start-up too.
              const during = ctx.state.rtts.filter(([at]) => at - STARTUP_MS < 1_900).map(([, rtt]) => rtt);
              const after = ctx.state.rtts.filter(([at]) => at - STARTUP_MS > 2_000).map(([, rtt]) => rtt);
              if (Math.max(...during) < 400) return `no spike during the fault phase (max ${Math.max(...during)} ms)`;
              return (after.length > 20 && Math.max(...after) < 11) || `after healing: ${after.length} pongs, max rtt ${Math.max(...after)} ms`;
            },
          ],
        },
      },
    );
    const result = await runScenario(scenario, 0x12);
    assert.equal(result.ok, true, JSON.stringify(result.failure));
  });

  it('client crashes crash a client and restart it after its downtime; the run lasts its budget (seed 0x13)', async () => {
    let boots;
    const scenario = defineScenario({
      name: 'clients',
      hosts(sim, ctx) {
        ctx.state.boots = { c1: 0, c2: 0 };
        sim.host('server', () => setInterval(() => {}, 1000));
        for (const name of ['c1', 'c2']) {
          sim.client(name, async () => {
            ctx.state.boots[name]++;
            await new Promise((r) => setTimeout(r, 300)); // a short client: done long before the budget
          });
        }
      },
      durationMs: 2_000,
      faults: { clientCrashPerSecond: 20, downMsMin: 10, downMsMax: 20 },
      invariants: { liveness: [(ctx) => ((boots = { ...ctx.state.boots }), true)] },
    });
    const result = await runScenario(scenario, 0x13);
    assert.equal(result.ok, true, JSON.stringify(result.failure));
    assert.equal(result.elapsedNs, 1_999_000_000); // liveness judged 1 ms before the budget: the run went the distance
    assert.ok(boots.c1 + boots.c2 > 2, `boots ${JSON.stringify(boots)}`);
  });

  it('clients: only the listed clients are crashed', async () => {
    let boots;
    const scenario = defineScenario({
      name: 'clients-listed',
      hosts(sim, ctx) {
        ctx.state.boots = { c1: 0, c2: 0 };
        for (const name of ['c1', 'c2']) sim.client(name, () => void ctx.state.boots[name]++);
      },
      clients: ['c2'],
      durationMs: 1_000,
      faults: { clientCrashPerSecond: 50, downMsMin: 10, downMsMax: 20 },
      invariants: { liveness: [(ctx) => ((boots = { ...ctx.state.boots }), true)] },
    });
    // A client whose main already settled is still running (its incarnation is up): it can crash.
    const result = await runScenario(scenario, 0x14);
    assert.equal(result.ok, true, JSON.stringify(result.failure));
    assert.equal(boots.c1, 1);
    assert.ok(boots.c2 > 1);
  });

  const hasSetClock = typeof Sim.prototype.setClock === 'function';
  it(`skew jumps: ${hasSetClock ? 'jump a target clock via sim.setClock' : 'without Sim.setClock, defineScenario names the missing API'}`, async () => {
    const define = () =>
      defineScenario({
        name: 'skew',
        hosts(sim, ctx) {
          // Date.now() read every 10 ms of virtual time: without jumps consecutive reads differ by 10.
          ctx.state.steps = new Set();
          sim.host('a', () => {
            let last = Date.now();
            setInterval(() => {
              ctx.state.steps.add(Date.now() - last);
              last = Date.now();
            }, 10);
          });
        },
        targets: ['a'],
        durationMs: 1_000,
        faults: { skewJumpPerSecond: 20, skewJumpMsMax: 2_000 },
        invariants: { liveness: [(ctx) => ctx.state.steps.size > 1 || `the clock never jumped: steps ${[...ctx.state.steps]}`] },
      });
    if (!hasSetClock) {
      assert.throws(define, (e) => e instanceof UsageError && /skewJumpPerSecond needs Sim\.setClock\(name, \{ skewMs \}\)/.test(e.message));
      return;
    }
    const result = await runScenario(define(), 0x15);
    assert.equal(result.ok, true, JSON.stringify(result.failure));
  });

  it('skew jumps call sim.setClock(target, { skewMs }) with whole ms in [-max, max] (a stub when Sim has none; seed 0x16)', async () => {
    const calls = [];
    const original = Object.getOwnPropertyDescriptor(Sim.prototype, 'setClock');
    Sim.prototype.setClock = function (name, clock) {
      calls.push([name, clock]);
    };
    try {
      const scenario = defineScenario({
        name: 'skew-calls',
        hosts: (sim) => ['a', 'b'].forEach((n) => sim.host(n, () => setInterval(() => {}, 100))),
        durationMs: 1_000,
        faults: { skewJumpPerSecond: 20, skewJumpMsMax: 300 },
      });
      const result = await runScenario(scenario, 0x16);
      assert.equal(result.ok, true);
    } finally {
      if (original === undefined) delete Sim.prototype.setClock;
      else Object.defineProperty(Sim.prototype, 'setClock', original);
    }
    assert.ok(calls.length > 4 && calls.length < 40, `${calls.length} jumps`);
    for (const [name, clock] of calls) {
      assert.ok(name === 'a' || name === 'b');
      assert.deepEqual(Object.keys(clock), ['skewMs']);
      assert.ok(Number.isInteger(clock.skewMs) && Math.abs(clock.skewMs) <= 300);
    }
  });

  it('defineScenario validates the new fields', () => {
    assert.throws(() => pingScenario({ latencySpikeMs: [5, 1] }), (e) => e instanceof UsageError && /latencySpikeMs/.test(e.message));
    assert.throws(() => pingScenario({ skewJumpMsMax: -3 }), /skewJumpMsMax/);
    assert.throws(() => pingScenario({}, { clients: 'c1' }), /clients must be an array/);
  });
});

describe('swarm mode', () => {
  const profile = { crashPerSecond: 2, pausePerSecond: 0.5, partitionPerSecond: 1, holdPerSecond: 0, downMsMin: 20 };

  it('the drawn mix is a pure function of the seed: off with probability 1/2, else in (0, 2 x rate]', () => {
    assert.deepEqual(swarmFaults(profile, 7), swarmFaults(profile, '0x7'));
    assert.deepEqual(Object.keys(swarmFaults(profile, 7)), ['crashPerSecond', 'holdPerSecond', 'partitionPerSecond', 'pausePerSecond']);
    let off = 0;
    const seen = new Set();
    for (let seed = 1; seed <= 400; seed++) {
      const mix = swarmFaults(profile, seed);
      assert.equal(mix.holdPerSecond, 0);
      for (const key of ['crashPerSecond', 'pausePerSecond', 'partitionPerSecond']) {
        assert.ok(mix[key] >= 0 && mix[key] <= 2 * profile[key], `${key}=${mix[key]}`);
        if (mix[key] === 0) off++;
      }
      seen.add(formatFaultMix(mix));
    }
    assert.ok(off > 480 && off < 720, `${off} of 1200 rates off`);
    assert.ok(seen.size > 300);
    // Adding a rate does not change the draws of the others.
    const more = swarmFaults({ ...profile, stopPerSecond: 3 }, 7);
    assert.equal(more.crashPerSecond, swarmFaults(profile, 7).crashPerSecond);
  });

  it('runScenario({ swarm: true }) runs the drawn mix and reports it (seed 0x21)', async () => {
    const scenario = pingScenario({ crashPerSecond: 1, partitionPerSecond: 2 });
    const a = await runScenario(scenario, 0x21, { swarm: true });
    const b = await runScenario(scenario, 0x21, { swarm: true });
    assert.deepEqual(a.swarm, swarmFaults(scenario.faults, 0x21));
    assert.equal(a.fingerprint, b.fingerprint);
    assert.equal((await runScenario(scenario, 0x21)).swarm, undefined);
  });

  it('a stopped target whose SIGTERM handler outlasts its downtime is restarted once it exits, counts as down until then, and in the heal phase too', async () => {
    // Found by a probe: it was never restarted after its exit, no longer counted as down (a
    // crash then took the other target too), and one stopped just before the heal phase stayed
    // down to the end.
    const scenario = defineScenario({
      name: 'slow-stop',
      hosts(sim, ctx) {
        for (const name of ['a', 'b']) {
          sim.host(name, () => {
            (ctx.state.boots ??= []).push([name, Date.now()]); // a restarted host's performance.now() starts again
            const keep = setInterval(() => {}, 1000);
            process.on('SIGTERM', () => setTimeout(() => {
              clearInterval(keep);
              process.exit(0);
            }, 300));
          });
        }
      },
      durationMs: 3000,
      healMs: 1000,
      faults: { downMsMin: 20, downMsMax: 20 },
      invariants: {
        safety: [(ctx) => ['a', 'b'].some((h) => ctx.sim.status(h).state === 'running') || 'a and b are down at once'],
        liveness: [(ctx) => ['a', 'b'].every((h) => ctx.sim.status(h).state === 'running') || `at the end: a ${ctx.sim.status('a').state}, b ${ctx.sim.status('b').state}`],
      },
    });
    const bootsOf = async (schedule) => {
      let boots;
      const result = await runScenario(defineScenario({ ...scenario, invariants: { ...scenario.invariants, liveness: [...scenario.invariants.liveness, (ctx) => ((boots = ctx.state.boots), true)] } }), 1, { schedule });
      assert.ok(result.ok, result.failure?.message);
      return { boots: boots.map(([name, at]) => `${name} at ${at - boots[0][1]}`), applied: result.schedule.map((f) => `${f.fault} ${f.target} at ${f.atMs}`) };
    };
    // a exits at 400 (stop at 100 + 300 ms of draining) and is restarted then; the crash of b at
    // 200 is skipped, as a is still down.
    assert.deepEqual(await bootsOf([{ atMs: 100, fault: 'stop', target: 'a', downMs: 20 }, { atMs: 200, fault: 'crash', target: 'b', downMs: 20 }]), {
      boots: ['a at 0', 'b at 0', 'a at 400'],
      applied: ['stop a at 100'],
    });
    // Stopped at 1900, a exits at 2200, in the heal phase (from 2000): restarted then.
    assert.deepEqual(await bootsOf([{ atMs: 1900, fault: 'stop', target: 'a', downMs: 20 }]), { boots: ['a at 0', 'b at 0', 'a at 2200'], applied: ['stop a at 1900'] });
  });
});
