import assert from 'node:assert/strict';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { Sim, STARTUP_MS } from 'dst-runtime';

// Timers and immediates are their own queue entries (re-armed in place, stale places skipped),
// and events enter their host's context without als.run() on the hot path. These pin the
// behaviours those shortcuts must keep.

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('queue entries and event contexts (seed 0x51)', () => {
  it('a paused host\'s timers wait in order; one cleared or refreshed meanwhile does not run from its old place', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x51 });
    let t2;
    let t3;
    sim.host('a', () => {
      setTimeout(() => log.push(`t1 ${performance.now()}`), 10);
      t2 = setTimeout(() => log.push(`t2 ${performance.now()}`), 10);
      t3 = setTimeout(() => log.push(`t3 ${performance.now()}`), 10);
      setTimeout(() => log.push(`t4 ${performance.now()}`), 10);
    });
    sim.client('control', async () => {
      await sleep(5);
      sim.pause('a');
      await sleep(10); // t = 15: a's four timers came due at 10 and wait
      clearTimeout(t2);
      t3.refresh(); // due again at 25
      sim.resume('a');
      await sleep(20);
    });
    await sim.run();
    assert.deepEqual(log, [`t1 ${STARTUP_MS + 15}`, `t4 ${STARTUP_MS + 15}`, `t3 ${STARTUP_MS + 25}`]);
  });

  it('refresh() and an interval re-arm move a timer without running it twice', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x51 });
    sim.client('a', async () => {
      const t = setTimeout(() => log.push(`t ${performance.now()}`), 10);
      await sleep(4);
      t.refresh(); // due at 14
      await sleep(4);
      t.refresh(); // due at 18
      let n = 0;
      const iv = setInterval(() => {
        log.push(`iv ${performance.now()}`);
        if (++n === 3) clearInterval(iv);
      }, 7);
      await sleep(30);
    });
    await sim.run();
    assert.deepEqual(log, [15, 18, 22, 29].map((ms, i) => `${i === 1 ? 't' : 'iv'} ${STARTUP_MS + ms}`));
  });

  it('code bound to another host\'s context (AsyncResource.bind) runs as that host, inside any event', async () => {
    const seen = [];
    let bound;
    const sim = new Sim({ seed: 0x51 });
    sim.host('a', () => {
      bound = AsyncResource.bind(() => Date.now());
    });
    sim.host('b', () => {
      setTimeout(() => seen.push(Date.now() - bound()), 10);
    }, { skewMs: 5000 });
    await sim.run();
    assert.deepEqual(seen, [5000]);
  });

  it('a store entered by a timer callback reaches its continuations but not the host\'s other timers', async () => {
    const als = new AsyncLocalStorage();
    const log = [];
    const sim = new Sim({ seed: 0x51 });
    sim.host('a', () => {
      setTimeout(() => {
        als.enterWith('x');
        Promise.resolve().then(() => log.push(`t1 continuation ${als.getStore()}`));
        log.push(`t1 ${als.getStore()}`);
      }, 10);
      setTimeout(() => log.push(`t2 ${als.getStore()}`), 20);
      setTimeout(() => setImmediate(() => log.push(`immediate ${als.getStore()}`)), 30);
    });
    await sim.run();
    assert.deepEqual(log, ['t1 x', 't1 continuation x', 't2 undefined', 'immediate undefined']);
  });

  it('a store entered in one host never shows in another host\'s events', async () => {
    const als = new AsyncLocalStorage();
    const log = [];
    const sim = new Sim({ seed: 0x51 });
    sim.host('a', () => {
      setTimeout(() => als.enterWith('from a'), 10);
      setTimeout(() => log.push(`a ${als.getStore()}`), 30);
    });
    sim.host('b', () => {
      setTimeout(() => log.push(`b ${als.getStore()}`), 20);
      als.run('b own', () => setTimeout(() => log.push(`b run ${als.getStore()}`), 25));
    });
    await sim.run();
    assert.deepEqual(log, ['b undefined', 'b run b own', 'a undefined']);
  });
});
