import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { defineScenario, runScenario, swarmFaults, UsageError } from 'dst-runtime';

/** Two hosts; `a` runs a 10 ms timer chain and records how late each tick is, and pings `b` over UDP. */
function tickScenario(faults) {
  return defineScenario({
    name: 'ticks',
    hosts(sim, ctx) {
      ctx.state.lateMs = [];
      sim.host('a', () => {
        const socket = dgram.createSocket('udp4');
        socket.bind(7000);
        let due = performance.now() + 10;
        const tick = () => {
          ctx.state.lateMs.push(performance.now() - due);
          socket.send('ping', 7000, 'b');
          due = performance.now() + 10;
          setTimeout(tick, 10);
        };
        setTimeout(tick, 10);
      });
      sim.host('b', () => {
        const socket = dgram.createSocket('udp4');
        socket.bind(7000);
      });
    },
    targets: ['a'],
    durationMs: 2_000,
    faults,
    invariants: { safety: [(ctx) => ctx.state.lateMs.every((ms) => ms > -1e-9) || `a timer fired early: ${Math.min(...ctx.state.lateMs)} ms`] },
  });
}

describe('scenario fault profile: stallPerSecond and lagPerSecond', () => {
  let state;
  const capture = (scenario) => defineScenario({ ...scenario, invariants: { ...scenario.invariants, liveness: [(ctx) => ((state = ctx.state), true)] } });

  it('without them, every tick is on time (seed 0x31)', async () => {
    const result = await runScenario(capture(tickScenario({})), 0x31);
    assert.equal(result.ok, true, JSON.stringify(result.failure));
    assert.ok(state.lateMs.every((ms) => Math.abs(ms) < 1e-6));
  });

  it('stalls make ticks late, never early; the same seed gives the same run (seed 0x32)', async () => {
    const scenario = capture(tickScenario({ stallPerSecond: 5, stallMs: [50, 80] }));
    const a = await runScenario(scenario, 0x32);
    const lateA = state.lateMs;
    const b = await runScenario(scenario, 0x32);
    assert.equal(a.ok, true, JSON.stringify(a.failure));
    assert.equal(a.fingerprint, b.fingerprint);
    assert.deepEqual(state.lateMs, lateA);
    const late = lateA.filter((ms) => ms > 1e-6);
    assert.ok(late.length > 0, 'no tick was late');
    // A tick due during a stall runs when it ends: late by less than the stall (stalls that
    // follow one another add up, so only the smallest lateness is bounded by one).
    assert.ok(Math.min(...late) < 80, `every late tick was ${Math.min(...late)} ms late or more`);
  });

  it('lag bursts make ticks late, never early (seed 0x33)', async () => {
    const result = await runScenario(capture(tickScenario({ lagPerSecond: 5, lagEventMsMax: 50 })), 0x33);
    assert.equal(result.ok, true, JSON.stringify(result.failure));
    assert.ok(state.lateMs.some((ms) => ms > 1e-6), 'no tick was late');
  });

  it('swarm mode draws them like every other rate', () => {
    const mix = swarmFaults({ stallPerSecond: 1, lagPerSecond: 2 }, 0x34);
    assert.deepEqual(Object.keys(mix), ['lagPerSecond', 'stallPerSecond']);
  });

  it('defineScenario validates stallMs and lagEventMsMax', () => {
    assert.throws(() => tickScenario({ stallMs: [0, 10] }), (e) => e instanceof UsageError && /faults.stallMs must be \[minMs, maxMs\] with 0 < minMs <= maxMs/.test(e.message));
    assert.throws(() => tickScenario({ lagEventMsMax: 0 }), (e) => e instanceof UsageError && /faults.lagEventMsMax must be a positive number of ms/.test(e.message));
  });
});
