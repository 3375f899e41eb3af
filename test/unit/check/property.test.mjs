import assert from 'node:assert/strict';
import { checkLinearizable, checkSerializable, formatCheckResult } from 'dst-runtime/check';
import { prng } from './prng.mjs';


/**
 * A concurrent register history that is linearizable by construction: every op gets a
 * linearization point inside [invoke, complete], the ops that take effect are applied in that
 * order to the true registers, and reads return what the registers held. Some ops time out
 * (unknown: they took effect or not), some fail (did not take effect); a cas that did not
 * swap is recorded as failed.
 */
function registerHistory(seed, { processes = 4, opsPerProcess = 10, keys = ['a', 'b'] } = {}) {
  const rng = prng(seed);
  const ops = [];
  let id = 0;
  for (let p = 0; p < processes; p++) {
    let t = rng.int(20);
    for (let i = 0; i < opsPerProcess; i++) {
      const invokeNs = t + rng.int(15);
      const completeNs = invokeNs + 1 + rng.int(40);
      const roll = rng.next();
      const f = roll < 0.5 ? 'read' : roll < 0.85 ? 'write' : 'cas';
      const outcome = rng.next();
      const status = outcome < 0.8 ? 'ok' : outcome < 0.9 ? 'unknown' : 'fail';
      ops.push({
        id: id++,
        process: `p${p}`,
        key: rng.pick(keys),
        f,
        invokeNs,
        completeNs,
        linNs: invokeNs + rng.int(completeNs - invokeNs + 1),
        status,
        applies: status === 'ok' || (status === 'unknown' && rng.next() < 0.5),
        expectedPick: rng.next(),
      });
      t = completeNs + 1;
    }
  }
  const state = new Map();
  const writtenSoFar = new Map();
  for (const op of [...ops].sort((x, y) => x.linNs - y.linNs || x.id - y.id)) {
    const current = state.has(op.key) ? state.get(op.key) : null;
    if (op.f === 'read') op.value = current;
    if (op.f === 'write') op.value = 1000 + op.id;
    if (op.f === 'cas') {
      // Half the time expect the current value, otherwise an old one (which will not swap).
      const old = writtenSoFar.get(op.key) ?? [null];
      op.expected = op.expectedPick < 0.5 ? current : old[Math.floor(op.expectedPick * old.length)];
      op.value = 1000 + op.id;
      if (op.status === 'ok' && op.expected !== current) op.status = 'fail';
      if (op.expected !== current) op.applies = false;
    }
    if (op.applies && op.f !== 'read') {
      state.set(op.key, op.value);
      writtenSoFar.set(op.key, [...(writtenSoFar.get(op.key) ?? []), op.value]);
    }
  }
  return ops.map(({ linNs, applies, expectedPick, ...op }) => {
    if (op.status === 'unknown') delete op.completeNs;
    if (op.f !== 'cas') delete op.expected;
    return op;
  });
}

/**
 * Makes one ok read stale where that must be a violation: it returns u although a definite
 * write W' of the same key completed before the read began, and u's write (or the initial
 * state, for u = null) completed before W' began. Values are unique, so nothing else can
 * explain u. Returns undefined when the history has no such read.
 */
function staleRead(ops, rng) {
  const definiteWrites = ops.filter((o) => o.status === 'ok' && o.f !== 'read');
  const candidates = [];
  for (const read of ops) {
    if (read.f !== 'read' || read.status !== 'ok') continue;
    for (const later of definiteWrites) {
      if (later.key !== read.key || !(later.completeNs < read.invokeNs)) continue;
      candidates.push({ read, value: null });
      for (const earlier of definiteWrites) {
        if (earlier.key === read.key && earlier.completeNs < later.invokeNs) candidates.push({ read, value: earlier.value });
      }
    }
  }
  if (candidates.length === 0) return undefined;
  const { read, value } = rng.pick(candidates);
  return { ops: ops.map((o) => (o === read ? { ...o, value } : o)), read };
}

describe('property: register histories from a linearizable execution', () => {
  const seeds = Array.from({ length: 40 }, (_, i) => 0x5eed + i * 7919);
  let mutated = 0;

  for (const seed of seeds) {
    it(`seed 0x${seed.toString(16)}: valid as generated; a forced stale read is a violation on its key`, () => {
      const ops = registerHistory(seed);
      const result = checkLinearizable(ops);
      assert.equal(result.valid, true, `seed 0x${seed.toString(16)}\n${formatCheckResult(result)}`);
      const stale = staleRead(ops, prng(seed ^ 0xabc));
      if (stale === undefined) return;
      mutated++;
      const broken = checkLinearizable(stale.ops);
      assert.equal(broken.valid, false, `seed 0x${seed.toString(16)}: stale read id ${stale.read.id} not found`);
      assert.deepEqual(
        broken.anomalies.map((a) => a.key),
        [stale.read.key],
      );
    });
  }

  it('the mutation found a stale read to force in most seeds (the property is exercised)', () => {
    assert.ok(mutated >= seeds.length / 2, `only ${mutated} of ${seeds.length} seeds were mutated`);
  });
});

/**
 * Transactions executed one after another (serial order = real-time order = commitTs order),
 * with unique written values. Failed txns take no effect; unknown txns take effect or not and
 * their reads are not recorded.
 */
function serialHistory(seed, { txns = 40, keys = ['x', 'y', 'z'] } = {}) {
  const rng = prng(seed);
  const state = new Map();
  const history = [];
  for (let i = 0; i < txns; i++) {
    const outcome = rng.next();
    const status = outcome < 0.8 ? 'ok' : outcome < 0.9 ? 'unknown' : 'fail';
    const applies = status === 'ok' || (status === 'unknown' && rng.next() < 0.5);
    const local = new Map(state);
    const ops = [];
    const count = 1 + rng.int(4);
    for (let j = 0; j < count; j++) {
      const key = rng.pick(keys);
      if (rng.next() < 0.5) {
        ops.push({ f: 'r', key, value: status === 'ok' ? (local.get(key) ?? null) : undefined });
      } else {
        const value = i * 10 + j + 1;
        local.set(key, value);
        ops.push({ f: 'w', key, value });
      }
    }
    if (applies) for (const [k, v] of local) state.set(k, v);
    const txn = { id: i, process: `c${rng.int(5)}`, invokeNs: i * 10, status, ops };
    if (status !== 'unknown') txn.completeNs = i * 10 + 5;
    if (status === 'ok') txn.commitTs = i;
    history.push(txn);
  }
  return history;
}

/**
 * Makes one external read of an ok txn stale where strict timestamp order must object: it
 * returns u (initial or an ok txn's final write) although another ok txn committed a version
 * of that key between u and the reader. Returns undefined when there is no such read.
 */
function staleTxnRead(history, rng) {
  const finals = []; // { ts, key, value } of ok txns' last write per key
  for (const txn of history) {
    if (txn.status !== 'ok') continue;
    const last = new Map();
    for (const op of txn.ops) if (op.f === 'w') last.set(op.key, op.value);
    for (const [key, value] of last) finals.push({ ts: txn.commitTs, key, value });
  }
  const candidates = [];
  for (const txn of history) {
    if (txn.status !== 'ok') continue;
    const seen = new Set();
    txn.ops.forEach((op, index) => {
      if (seen.has(op.key)) return;
      seen.add(op.key);
      if (op.f !== 'r') return;
      const before = finals.filter((f) => f.key === op.key && f.ts < txn.commitTs);
      for (const u of [{ ts: -Infinity, value: null }, ...before]) {
        if (before.some((v) => v.ts > u.ts) && u.value !== op.value) candidates.push({ txn, index, value: u.value });
      }
    });
  }
  if (candidates.length === 0) return undefined;
  const { txn, index, value } = rng.pick(candidates);
  const mutated = { ...txn, ops: txn.ops.map((op, i) => (i === index ? { ...op, value } : op)) };
  return { history: history.map((t) => (t === txn ? mutated : t)), txn: mutated };
}

describe('property: transaction histories from a serial execution', () => {
  const seeds = Array.from({ length: 40 }, (_, i) => 0x7a11 + i * 104729);
  let mutated = 0;

  for (const seed of seeds) {
    it(`seed 0x${seed.toString(16)}: serializable (also under strict commitTs, and without timestamps); a forced stale read violates strict order`, () => {
      const history = serialHistory(seed);
      for (const options of [{}, { strictCommitTs: true }, { commitTsVersionOrder: false }]) {
        const result = checkSerializable(history, options);
        assert.equal(result.valid, true, `seed 0x${seed.toString(16)} ${JSON.stringify(options)}\n${formatCheckResult(result)}`);
      }
      const stale = staleTxnRead(history, prng(seed ^ 0xdef));
      if (stale === undefined) return;
      mutated++;
      const broken = checkSerializable(stale.history, { strictCommitTs: true });
      assert.equal(broken.valid, false, `seed 0x${seed.toString(16)}: stale read in T${stale.txn.id} not found`);
      assert.ok(
        broken.anomalies.some((a) => a.txns.some((t) => t.id === stale.txn.id)),
        `seed 0x${seed.toString(16)}: no anomaly names T${stale.txn.id}\n${formatCheckResult(broken)}`,
      );
    });
  }

  it('the mutation found a stale read to force in most seeds (the property is exercised)', () => {
    assert.ok(mutated >= seeds.length / 2, `only ${mutated} of ${seeds.length} seeds were mutated`);
  });
});
