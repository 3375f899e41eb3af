// The KV store under the simulator: replicas as function hosts, clients as sim clients.
import assert from 'node:assert/strict';
import { format } from 'node:util';
import { Sim } from 'dst-runtime';
import { KvClient, KvUnknownError, startReplica } from '../../packages/kv/src/index.mjs';

const NAMES = ['r1', 'r2', 'r3'];
const REPLICAS = NAMES.map((id) => ({ id, host: id, port: 7000 }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A simulation with three replica hosts; `state[name]` is the current incarnation's replica. */
function cluster(seed, options = {}) {
  const sim = new Sim({ seed, durationMs: options.durationMs ?? 60_000 });
  const state = {};
  const boots = {};
  for (const [index, id] of NAMES.entries()) {
    sim.host(id, () => {
      boots[id] = (boots[id] ?? 0) + 1;
      state[id] = startReplica({ id, index, replicas: REPLICAS, port: 7000, recover: boots[id] > 1 });
    });
  }
  return { sim, state, boots };
}

const statuses = (state) => NAMES.map((n) => state[n].status());

describe('kv under the simulator', function () {
  this.timeout(120_000);

  it('a transaction commits with all replicas up (seed 0x1)', async () => {
    const { sim, state } = cluster(1);
    let outcome;
    sim.client('c1', async () => {
      const kv = new KvClient({ replicas: REPLICAS });
      await kv.transaction((tx) => tx.put('a', 'c1-1'));
      outcome = await kv.transaction(async (tx) => {
        const a = await tx.get('a');
        tx.put('a', `${a}+c1-2`);
      });
      await sleep(500);
      kv.close();
    });
    const result = await sim.run();
    assert.equal(result.stopReason, 'clients-done');
    assert.equal(outcome.committed, true);
    assert.equal(outcome.ts, 2);
    for (const s of statuses(state)) assert.deepEqual([s.status, s.view, s.commitNumber, s.commits], ['normal', 0, 2, 2]);
  });

  it('a crashed and restarted replica recovers and rejoins (seed 0x2)', async () => {
    const { sim, state, boots } = cluster(2);
    const outcomes = [];
    let during;
    sim.client('c1', async () => {
      const kv = new KvClient({ replicas: REPLICAS });
      const txn = (n) => kv.transaction(async (tx) => tx.put(`k${n % 3}`, `c1-${n}`));
      for (let n = 0; n < 5; n++) outcomes.push(await txn(n));
      sim.crash('r2');
      for (let n = 5; n < 10; n++) outcomes.push(await txn(n));
      sim.restart('r2');
      await sleep(50);
      during = state.r2.status().status;
      for (let n = 10; n < 15; n++) outcomes.push(await txn(n));
      await sleep(1000);
      kv.close();
    });
    await sim.run();
    assert.equal(boots.r2, 2);
    assert.ok(outcomes.every((o) => o.committed));
    assert.ok(['recovering', 'normal'].includes(during));
    const all = statuses(state);
    for (const s of all) assert.equal(s.status, 'normal', JSON.stringify(all));
    assert.deepEqual(new Set(all.map((s) => s.commitNumber)), new Set([15]));
    assert.deepEqual(new Set(all.map((s) => s.commits)), new Set([15]));
  });

  it('with 2 of 3 replicas cut off, a commit does not succeed within its deadline: KV_UNKNOWN (seed 0x3)', async () => {
    const { sim, state } = cluster(3);
    let before;
    let error;
    let readOnly;
    sim.client('c1', async () => {
      const kv = new KvClient({ replicas: REPLICAS, deadlineMs: 2000 });
      before = await kv.transaction((tx) => tx.put('a', 1));
      sim.partition('r2');
      sim.partition('r3');
      const started = performance.now();
      try {
        await kv.transaction(async (tx) => tx.put('a', (await tx.get('a')) + 1));
      } catch (e) {
        error = e;
        error.after = performance.now() - started;
      }
      // A read-only transaction cannot commit either (it is validated through VR too).
      try {
        readOnly = await kv.transaction((tx) => tx.get('a'), { deadlineMs: 1000 });
      } catch (e) {
        readOnly = e;
      }
      sim.repair('r2');
      sim.repair('r3');
      await sleep(3000);
      kv.close();
    });
    await sim.run();
    assert.equal(before.committed, true);
    assert.ok(error instanceof KvUnknownError, String(error));
    assert.equal(error.code, 'KV_UNKNOWN');
    assert.ok(error.after >= 2000 && error.after < 2100, String(error.after));
    assert.ok(readOnly instanceof KvUnknownError || readOnly.committed === false, String(readOnly));
    // After the repair every replica is normal again and agrees.
    const all = statuses(state);
    for (const s of all) assert.equal(s.status, 'normal', JSON.stringify(all));
    assert.equal(new Set(all.map((s) => `${s.view}/${s.commitNumber}`)).size, 1, JSON.stringify(all));
  });

  it('a view change follows a crash of the primary; commits go on in the new view (seed 0x4)', async () => {
    const { sim, state } = cluster(4);
    const outcomes = [];
    sim.client('c1', async () => {
      const kv = new KvClient({ replicas: REPLICAS });
      for (let n = 0; n < 3; n++) outcomes.push(await kv.transaction((tx) => tx.put('a', `c1-${n}`)));
      sim.crash('r1');
      for (let n = 3; n < 6; n++) outcomes.push(await kv.transaction(async (tx) => tx.put('a', `${await tx.get('a')}|c1-${n}`)));
      await sleep(300);
      kv.close();
    });
    await sim.run();
    assert.ok(outcomes.every((o) => o.committed), JSON.stringify(outcomes));
    const [r2, r3] = [state.r2.status(), state.r3.status()];
    assert.equal(r2.status, 'normal');
    assert.equal(r3.status, 'normal');
    assert.ok(r2.view >= 1 && r2.view % 3 !== 0, JSON.stringify(r2));
    assert.equal(r2.view, r3.view);
    assert.equal(r2.commitNumber, 6);
    assert.equal(r3.commitNumber, 6);
  });

  it('five replicas tolerate two crashed at once, and both recover (seed 0x7)', async () => {
    const names = ['r1', 'r2', 'r3', 'r4', 'r5'];
    const replicas = names.map((id) => ({ id, host: id, port: 7000 }));
    const sim = new Sim({ seed: 7, durationMs: 60_000 });
    const state = {};
    const boots = {};
    for (const [index, id] of names.entries()) {
      sim.host(id, () => {
        boots[id] = (boots[id] ?? 0) + 1;
        state[id] = startReplica({ id, index, replicas, port: 7000, recover: boots[id] > 1 });
      });
    }
    const outcomes = [];
    sim.client('c1', async () => {
      const kv = new KvClient({ replicas });
      const txn = (n) => kv.transaction(async (tx) => tx.put('a', `${await tx.get('a')}|${n}`));
      for (let n = 0; n < 3; n++) outcomes.push(await txn(n));
      sim.crash('r1'); // the primary
      sim.crash('r3');
      for (let n = 3; n < 6; n++) outcomes.push(await txn(n));
      sim.restart('r1');
      sim.restart('r3');
      await sleep(1000);
      for (let n = 6; n < 9; n++) outcomes.push(await txn(n));
      await sleep(500);
      kv.close();
    });
    await sim.run();
    assert.ok(outcomes.every((o) => o.committed), JSON.stringify(outcomes));
    const all = names.map((n) => state[n].status());
    for (const s of all) assert.equal(s.status, 'normal', JSON.stringify(all));
    assert.equal(new Set(all.map((s) => `${s.view}/${s.commitNumber}/${s.commits}`)).size, 1, JSON.stringify(all));
    assert.equal(all[0].commits, 9);
  });

  it('the unmodified replica program runs as module hosts (seed 0x6)', async () => {
    const sim = new Sim({ seed: 6, durationMs: 10_000 });
    const list = REPLICAS.map((r) => `${r.id}@${r.host}:${r.port}`).join(',');
    const main = new URL('../../packages/kv/bin/replica.mjs', import.meta.url).pathname;
    for (const id of NAMES) sim.host(id, { main, env: { KV_ID: id, KV_REPLICAS: list } });
    let outcome;
    sim.client('c1', async () => {
      const kv = new KvClient({ replicas: REPLICAS });
      await kv.transaction((tx) => tx.put('a', 1));
      outcome = await kv.transaction(async (tx) => tx.put('a', (await tx.get('a')) + 1));
      kv.close();
    });
    // The replica program announces itself on stdout, as in a terminal: the hosts share this
    // process's console, so the lines are caught here (and checked) instead of landing between
    // mocha's. A replica started with an IPC channel reports over it instead, and the hosts see
    // this process's process.send, which exists in a worker of mocha --parallel: it is hidden
    // for the run, so the program takes the terminal's path in both modes.
    const printed = [];
    const realLog = console.log;
    const realSend = process.send;
    console.log = (...args) => printed.push(format(...args));
    process.send = undefined;
    try {
      await sim.run();
    } finally {
      console.log = realLog;
      if (realSend === undefined) delete process.send;
      else process.send = realSend;
    }
    assert.deepEqual({ committed: outcome.committed, ts: outcome.ts }, { committed: true, ts: 2 });
    assert.deepEqual([...printed].sort(), NAMES.map((id) => `kv replica ${id} listening on 7000`));
  });

  it('the same seed twice gives the same fingerprint (seed 0x5)', async () => {
    const once = async () => {
      const { sim } = cluster(5, { durationMs: 5_000 });
      sim.client('c1', async () => {
        const kv = new KvClient({ replicas: REPLICAS });
        for (let n = 0; n < 20; n++) await kv.transaction(async (tx) => tx.put('a', `${await tx.get('a')}|${n}`));
        sim.bounce('r1');
        for (let n = 20; n < 30; n++) await kv.transaction(async (tx) => tx.put('a', `${await tx.get('a')}|${n}`));
        kv.close();
      });
      return sim.run();
    };
    const [a, b] = [await once(), await once()];
    assert.equal(a.fingerprint, b.fingerprint);
    assert.equal(a.events, b.events);
  });
});
