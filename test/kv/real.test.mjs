// The KV store on real loopback: three in-process replicas on ephemeral ports.
import assert from 'node:assert/strict';
import { KvClient, startReplica } from '../../packages/kv/src/index.mjs';

async function cluster(n = 3) {
  const replicas = Array.from({ length: n }, (_, i) => ({ id: `r${i + 1}`, host: '127.0.0.1', port: 0 }));
  const started = replicas.map((r, index) => startReplica({ id: r.id, index, replicas, port: 0, listenHost: '127.0.0.1' }));
  const ports = await Promise.all(started.map((s) => s.listening));
  ports.forEach((port, i) => (replicas[i].port = port));
  return { replicas, started, close: () => Promise.all(started.map((s) => s.close())) };
}

describe('kv on real loopback', function () {
  this.timeout(30_000);
  let c;
  let clients = [];
  beforeEach(async () => {
    c = await cluster(3);
    clients = [];
  });
  afterEach(async () => {
    for (const client of clients) client.close();
    await c.close();
  });
  const client = (options = {}) => {
    const k = new KvClient({ replicas: c.replicas, ...options });
    clients.push(k);
    return k;
  };

  it('a transaction commits with all replicas up, and every replica executes it', async () => {
    const kv = client();
    const first = await kv.transaction(async (tx) => {
      assert.equal(await tx.get('a'), null);
      tx.put('a', 1);
      tx.put('b', 'x');
    });
    assert.equal(first.committed, true);
    assert.ok(first.ts >= 1);
    const second = await kv.transaction(async (tx) => {
      const a = await tx.get('a');
      tx.put('a', a + 1);
    });
    assert.equal(second.committed, true);
    assert.ok(second.ts > first.ts);
    const read = await kv.transaction(async (tx) => [await tx.get('a'), await tx.get('b')]);
    assert.equal(read.committed, true);
    assert.deepEqual([...read.reads], [['a', 2], ['b', 'x']]);
    // The backups learn the commits from the primary's next Commit heartbeat.
    await new Promise((r) => setTimeout(r, 300));
    for (const s of c.started) {
      const status = s.status();
      assert.equal(status.status, 'normal');
      assert.equal(status.view, 0);
      assert.equal(status.commitNumber, 3);
      assert.equal(status.commits, 3);
      assert.equal(status.committedTs, read.ts);
    }
  });

  it('a replica stopped and started again (no state) recovers from its peers', async () => {
    const kv = client();
    for (let n = 0; n < 5; n++) assert.equal((await kv.transaction((tx) => tx.put(`k${n}`, n))).committed, true);
    await c.started[2].close();
    for (let n = 5; n < 10; n++) assert.equal((await kv.transaction((tx) => tx.put(`k${n}`, n))).committed, true);
    // A fresh incarnation on a new ephemeral port; peers read the address at their next connect.
    c.started[2] = startReplica({ id: 'r3', index: 2, replicas: c.replicas, port: 0, listenHost: '127.0.0.1', recover: true });
    c.replicas[2].port = await c.started[2].listening;
    for (let i = 0; i < 100 && c.started[2].status().status !== 'normal'; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(c.started[2].status().status, 'normal');
    assert.equal((await kv.transaction((tx) => tx.put('k10', 10))).committed, true);
    await new Promise((r) => setTimeout(r, 300));
    const all = c.started.map((s) => s.status());
    assert.deepEqual(new Set(all.map((s) => `${s.status}/${s.view}/${s.commitNumber}/${s.commits}`)), new Set(['normal/0/11/11']), JSON.stringify(all));
  });

  it('of two conflicting transactions, one aborts', async () => {
    const a = client();
    const b = client();
    await a.transaction((tx) => tx.put('k', 0));
    // Both read k at the same version before either commits: each waits for the other's read.
    let release;
    const gate = new Promise((r) => (release = r));
    let reads = 0;
    const readThenWait = async (tx) => {
      const v = await tx.get('k');
      if (++reads === 2) release();
      await gate;
      return v;
    };
    const ta = a.transaction(async (tx) => tx.put('k', (await readThenWait(tx)) + 1));
    const tb = b.transaction(async (tx) => tx.put('k', (await readThenWait(tx)) + 10));
    const results = await Promise.all([ta, tb]);
    assert.deepEqual(results.map((r) => r.committed).sort(), [false, true]);
    const loser = results.find((r) => !r.committed);
    assert.match(loser.reason, /conflict: k/);
    const final = await a.transaction((tx) => tx.get('k'));
    assert.ok([1, 10].includes(final.reads.get('k')));
  });
});
