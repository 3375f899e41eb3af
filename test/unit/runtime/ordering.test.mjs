import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { Sim, SimulationError, STARTUP_MS } from 'dst-runtime';

async function inSim(fn, options = {}) {
  const sim = new Sim({ seed: 0x5eed, ...options });
  let value;
  sim.client('c', async () => {
    value = await fn();
  });
  const result = await sim.run();
  return { value, result };
}

describe('virtual time and event order (seed 0x5eed)', () => {
  it('orders same-time timers by creation and immediates before a 1 ms timer', async () => {
    const { value } = await inSim(async () => {
      const log = [];
      await new Promise((resolve) => {
        setTimeout(() => log.push('t10-a'), 10);
        setTimeout(() => log.push('t5'), 5);
        setTimeout(() => log.push('t10-b'), 10);
        setTimeout(() => {
          setTimeout(() => log.push('timeout0'), 0);
          setImmediate(() => log.push('immediate'));
        }, 20);
        setTimeout(resolve, 30);
      });
      return log;
    });
    assert.deepEqual(value, ['t5', 't10-a', 't10-b', 'immediate', 'timeout0']);
  });

  it('drains nextTicks and microtasks between events, and a 50-deep await chain finishes before the next event', async () => {
    const { value } = await inSim(async () => {
      const log = [];
      await new Promise((resolve) => {
        setTimeout(async () => {
          for (let i = 0; i < 50; i++) await null;
          log.push('chain done');
        }, 1);
        setTimeout(() => {
          log.push('next timer');
          resolve();
        }, 1);
      });
      return log;
    });
    assert.deepEqual(value, ['chain done', 'next timer']);
  });

  it('moves time only between events', async () => {
    const { value, result } = await inSim(async () => {
      const t0 = performance.now();
      for (let i = 0; i < 1e5; i++);
      const t1 = performance.now();
      await new Promise((r) => setTimeout(r, 1234));
      return [t0, t1, performance.now()];
    });
    assert.deepEqual(value, [STARTUP_MS, STARTUP_MS, STARTUP_MS + 1234]);
    assert.equal(result.elapsedNs, 1234e6);
  });

  it('ends when only unref\'d work remains', async () => {
    const fired = [];
    const sim = new Sim({ seed: 3 });
    sim.host('h', () => {
      setTimeout(() => fired.push('unref'), 100).unref();
      setTimeout(() => fired.push('ref'), 50);
    });
    const result = await sim.run();
    assert.deepEqual(fired, ['ref']);
    assert.equal(result.stopReason, 'quiescent');
    assert.equal(result.elapsedNs, 50e6);
  });

  it('stops at durationMs for a host that never goes idle', async () => {
    let ticks = 0;
    const sim = new Sim({ seed: 3, durationMs: 1000 });
    sim.host('h', () => {
      setInterval(() => ticks++, 10);
    });
    const result = await sim.run();
    assert.equal(result.stopReason, 'duration');
    assert.equal(ticks, 100);
    assert.equal(result.elapsedNs, 1000e6);
  });

  it('fails with the seed, time, event and host when host code throws', async () => {
    const sim = new Sim({ seed: 0xbad });
    sim.host('kv-2', () => {
      setTimeout(() => {
        throw new Error('lease observed from the future');
      }, 12);
    });
    await assert.rejects(sim.run(), (error) => {
      assert.ok(error instanceof SimulationError);
      assert.equal(error.report.seed, '0xbad');
      assert.equal(error.report.host, 'kv-2');
      assert.equal(error.report.timeNs, 12e6);
      assert.equal(error.report.event, 2);
      assert.match(error.message, /host "kv-2" crashed with an uncaught exception: Error: lease observed from the future/);
      assert.match(error.message, /seed {5}0xbad/);
      assert.match(error.message, /replay {3}new Sim\(\{ seed: 0xbad \}\)/);
      return true;
    });
  });

  it('reports an unhandled rejection in a host as a failure', async () => {
    const sim = new Sim({ seed: 4 });
    sim.host('h', () => {
      setTimeout(() => {
        Promise.reject(new Error('nobody listens'));
      }, 5);
    });
    await assert.rejects(sim.run(), /crashed with an unhandled rejection: Error: nobody listens/);
  });

  it('names the runaway timer when the event limit trips', async () => {
    const sim = new Sim({ seed: 5, eventsMax: 10_000 });
    sim.host('h', () => {
      const spin = () => setTimeout(spin, 1);
      spin();
    });
    await assert.rejects(sim.run(), (error) => {
      assert.equal(error.report.kind, 'limit');
      assert.match(error.message, /event limit of 10,000 events reached/);
      assert.match(error.message, /busiest source near the limit: timeout scheduled at test\/unit\/runtime\/ordering\.test\.mjs:\d+:\d+/);
      return true;
    });
  });

  it('names the interval that drives the traffic, not the network arrivals it causes, when the time limit trips', async () => {
    // Found by a probe (2026-12-05): a ws heartbeat interval kept a hung run alive, and the
    // report named "net scheduled at an unknown place" (arrivals have no place, and outnumbered it).
    const sim = new Sim({ seed: 5, timeLimitMs: 2_000 });
    sim.host('h', async () => {
      const server = dgram.createSocket('udp4');
      await new Promise((resolve) => server.bind(7000, resolve));
      const client = dgram.createSocket('udp4');
      server.on('message', (message, from) => server.send(message, from.port, from.address));
      client.on('message', () => {});
      setInterval(() => {
        for (let i = 0; i < 5; i++) client.send('ping', 7000, '127.0.0.1');
      }, 100);
    });
    await assert.rejects(sim.run(), (error) => {
      assert.equal(error.report.kind, 'limit');
      assert.match(error.message, /busiest source near the limit: interval scheduled at test\/unit\/runtime\/ordering\.test\.mjs:\d+:\d+/);
      return true;
    });
  });

  it('gives the test runner real timers while a simulation runs', async () => {
    const sim = new Sim({ seed: 6 });
    sim.client('c', () => new Promise((r) => setTimeout(r, 10_000_000)));
    const real = new Promise((resolve) => setTimeout(() => resolve(Date.now()), 1));
    const [result, when] = await Promise.all([sim.run(), real]);
    assert.equal(result.elapsedNs, 10_000_000e6);
    assert.ok(Math.abs(when - Date.now()) < 60_000, 'the runner saw the real clock');
  });
});
