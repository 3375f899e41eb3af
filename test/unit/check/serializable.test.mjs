import assert from 'node:assert/strict';
import { checkSerializable, formatCheckResult, UsageError } from 'dst-runtime/check';

/** Parses `r x 1, w y 2` (nil = absent) into micro-ops. */
function parse(text) {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const [f, key, raw] = part.trim().split(/\s+/);
    const value = raw === 'nil' ? null : raw === '?' ? undefined : Number(raw);
    return { f, key, value };
  });
}
let clock = 0;
/** A transaction; times increase with each call so history order is real-time order. */
function txn(id, ops, status = 'ok', extra = {}) {
  const t = { id, process: `c${id}`, invokeNs: clock, status, ops: parse(ops), ...extra };
  if (status !== 'unknown') t.completeNs = clock + 5;
  clock += 10;
  return t;
}
const types = (result) => (result.valid === false ? result.anomalies.map((a) => a.type) : []);
const cycleIds = (anomaly) => anomaly.txns.map((t) => t.id).sort();

describe('checkSerializable: valid histories', () => {
  it('accepts an empty history and a chain of reads and writes', () => {
    assert.equal(checkSerializable([]).valid, true);
    const history = [txn(1, 'w x 1'), txn(2, 'r x 1, w y 2'), txn(3, 'r y 2, r x 1'), txn(4, 'r x 1, w x 3'), txn(5, 'r x 3, r y 2')];
    const result = checkSerializable(history);
    assert.equal(result.valid, true, formatCheckResult(result));
    assert.equal(result.stats.keys, 2);
  });

  it('accepts reads of the initial (absent) state that serialize first', () => {
    const history = [txn(1, 'r x nil, r y nil'), txn(2, 'w x 1, w y 1'), txn(3, 'r x 1, r y 1')];
    assert.equal(checkSerializable(history).valid, true);
  });

  it('accepts a stale read that a serial order still explains (serializability is not recency)', () => {
    // T3 runs after T2 in real time but may serialize before it.
    const history = [txn(1, 'w x 1'), txn(2, 'r x 1, w x 2'), txn(3, 'r x 1')];
    assert.equal(checkSerializable(history).valid, true);
  });

  it('accepts unknown transactions: observed ones count as committed, unobserved ones may not have happened', () => {
    const history = [
      txn(1, 'w x 1', 'unknown'),
      txn(2, 'r x 1, w x 2'),
      txn(3, 'w x 3', 'unknown'),
      txn(4, 'r x 2'),
      txn(5, 'r x ?, w y 5', 'unknown'),
      txn(6, 'r y 5, r x 2'),
    ];
    const result = checkSerializable(history);
    assert.equal(result.valid, true, formatCheckResult(result));
  });

  it('ignores the reads of unknown and failed transactions (their results were never seen)', () => {
    const history = [txn(1, 'r x 77', 'unknown'), txn(2, 'r x 88', 'fail'), txn(3, 'w x 1')];
    assert.equal(checkSerializable(history).valid, true);
  });
});

describe('checkSerializable: anomalies', () => {
  it('G0 (write cycle) from a supplied version order', () => {
    const history = [txn(1, 'w x 1, w y 1'), txn(2, 'w x 2, w y 2')];
    assert.equal(checkSerializable(history).valid, true, 'blind writes alone give no version order');
    const result = checkSerializable(history, { versionOrder: { x: [1, 2], y: [2, 1] } });
    assert.deepEqual(types(result), ['G0']);
    assert.deepEqual(cycleIds(result.anomalies[0]), [1, 2]);
    assert.ok(result.anomalies[0].edges.every((e) => e.type === 'ww'));
  });

  it('G1a (aborted read): reading a value written only by a failed transaction', () => {
    const history = [txn(1, 'w x 1', 'fail'), txn(2, 'r x 1')];
    const result = checkSerializable(history);
    assert.deepEqual(types(result), ['G1a']);
    assert.match(result.anomalies[0].explanation, /T2 reads x=1, written only by failed T1/);
  });

  it('G1b (intermediate read): reading a value its writer overwrote within itself', () => {
    const history = [txn(1, 'w x 1, w x 2'), txn(2, 'r x 1')];
    const result = checkSerializable(history);
    assert.deepEqual(types(result), ['G1b']);
    assert.match(result.anomalies[0].explanation, /T2 reads x=1, which T1 overwrote within itself with x=2/);
    assert.equal(checkSerializable([txn(1, 'w x 1, w x 2'), txn(2, 'r x 2')]).valid, true);
  });

  it('G1c (circular information flow): each transaction reads the other\'s write', () => {
    const history = [txn(1, 'w x 1, r y 1'), txn(2, 'w y 1, r x 1')];
    const result = checkSerializable(history);
    assert.deepEqual(types(result), ['G1c']);
    assert.deepEqual(cycleIds(result.anomalies[0]), [1, 2]);
    assert.ok(result.anomalies[0].edges.every((e) => e.type === 'wr'));
  });

  it('G-single (read skew): a reader sees the new x and the old y of one writer', () => {
    const history = [txn(0, 'w x 1, w y 1'), txn(1, 'r x 1, w x 2, r y 1, w y 2'), txn(2, 'r x 2, r y 1')];
    const result = checkSerializable(history);
    assert.deepEqual(types(result), ['G-single']);
    const [anomaly] = result.anomalies;
    assert.deepEqual(cycleIds(anomaly), [1, 2]);
    assert.deepEqual(anomaly.edges.map((e) => e.type).sort(), ['rw', 'wr']);
  });

  it('G2 (write skew): two transactions each miss the other\'s write', () => {
    const history = [txn(1, 'r x nil, r y nil, w x 1'), txn(2, 'r x nil, r y nil, w y 2')];
    const result = checkSerializable(history);
    assert.deepEqual(types(result), ['G2']);
    assert.deepEqual(
      result.anomalies[0].edges.map((e) => e.type),
      ['rw', 'rw'],
    );
  });

  it('internal inconsistency: a read that differs from the transaction\'s own earlier write or read', () => {
    const history = [txn(1, 'w x 2'), txn(2, 'w x 1, r x 2'), txn(3, 'r y nil, r y 5'), txn(4, 'w y 5')];
    const result = checkSerializable(history);
    assert.deepEqual(types(result), ['internal', 'internal']);
    assert.match(result.anomalies[0].explanation, /T2 reads x=2 after writing x=1 itself/);
    assert.match(result.anomalies[1].explanation, /T3 reads y=5 after reading y=nil itself/);
  });

  it('a read of a value nobody wrote (garbage read), and a read of its own later write', () => {
    assert.deepEqual(types(checkSerializable([txn(1, 'r x 9')])), ['garbage-read']);
    assert.deepEqual(types(checkSerializable([txn(1, 'r x 9, w x 9')])), ['internal']);
  });

  it('lost update through an unknown writer that was observed', () => {
    const history = [txn(0, 'w x 1', 'unknown'), txn(1, 'r x 1, w x 2'), txn(2, 'r x 1, w x 3')];
    const result = checkSerializable(history);
    assert.deepEqual(types(result), ['G2']);
    assert.deepEqual(cycleIds(result.anomalies[0]), [1, 2]);
    // The same writer failed: reading its value is an aborted read.
    const failed = [{ ...history[0], status: 'fail', completeNs: 1 }, history[1], history[2]];
    assert.ok(types(checkSerializable(failed)).includes('G1a'));
    // One increment alone is fine.
    assert.equal(checkSerializable(history.slice(0, 2)).valid, true);
  });

  it('caps the anomalies reported with anomaliesMax and says so', () => {
    const history = [];
    for (let i = 0; i < 5; i++) history.push(txn(`f${i}`, `w k${i} 1`, 'fail'), txn(`r${i}`, `r k${i} 1`));
    const result = checkSerializable(history, { anomaliesMax: 2 });
    assert.equal(result.anomalies.length, 2);
    assert.match(result.message, /first 2 reported/);
  });
});

describe('checkSerializable: commit timestamps', () => {
  // T2 wrote x=2 after T1's x=1 (by timestamp), and T3 read T2's y but T1's x.
  const history = () => [
    txn(1, 'w x 1', 'ok', { commitTs: 1 }),
    txn(2, 'w x 2, w y 2', 'ok', { commitTs: 2 }),
    txn(3, 'r x 1, r y 2', 'ok', { commitTs: 3 }),
  ];

  it('orders versions by commitTs, which exposes read skew among blind writes', () => {
    const result = checkSerializable(history());
    assert.deepEqual(types(result), ['G-single']);
    assert.equal(checkSerializable(history(), { commitTsVersionOrder: false }).valid, true);
  });

  it('strictCommitTs: dependency edges must go forward in timestamp order', () => {
    const h = [txn(1, 'w x 1', 'ok', { commitTs: 5 }), txn(2, 'r x 1', 'ok', { commitTs: 6 })];
    assert.equal(checkSerializable(h, { strictCommitTs: true }).valid, true);
    // The reader committed "before" the write it read, though real time allowed it (they overlap).
    const backwards = [
      { id: 1, process: 'a', invokeNs: 0, completeNs: 100, status: 'ok', ops: parse('w x 1'), commitTs: 5 },
      { id: 2, process: 'b', invokeNs: 10, completeNs: 50, status: 'ok', ops: parse('r x 1'), commitTs: 4 },
    ];
    assert.equal(checkSerializable(backwards).valid, true, 'plain serializability ignores timestamps beyond version order');
    const result = checkSerializable(backwards, { strictCommitTs: true });
    assert.deepEqual(types(result), ['commit-ts-order']);
    assert.match(result.anomalies[0].explanation, /T1 -wr\(x\)-> T2 but commitTs 5 is not below 4/);
  });

  it('strictCommitTs: a transaction that completed before another began has the smaller timestamp', () => {
    const h = [txn(1, 'w x 1', 'ok', { commitTs: 9 }), txn(2, 'w y 2', 'ok', { commitTs: 3 })];
    assert.equal(checkSerializable(h).valid, true);
    const result = checkSerializable(h, { strictCommitTs: true });
    assert.deepEqual(types(result), ['commit-ts-order']);
    assert.match(result.anomalies[0].explanation, /T1 completed before T2 was invoked, but its commitTs 9 is not below 3/);
  });
});

describe('checkSerializable: report and input', () => {
  it('formats a cycle with clients, ops and labelled edges', () => {
    const history = [txn(0, 'w x 1, w y 1'), txn(1, 'r x 1, w x 2, r y 1, w y 2'), txn(2, 'r x 2, r y 1')];
    const text = formatCheckResult(checkSerializable(history));
    assert.match(text, /^serializability: INVALID \(3 transactions on 2 keys\)/);
    assert.match(text, /#1 G-single: read skew/);
    assert.match(text, /T2 \(client c2\) \[r x 2, r y 1\]  -rw\(y 1→2\)->/);
    assert.match(text, /T1 \(client c1\) \[r x 1, w x 2, r y 1, w y 2\]  -wr\(x=2\)->/);
  });

  it('refuses histories outside the model, saying what to change', () => {
    assert.throws(() => checkSerializable([txn(1, 'w x 1'), txn(2, 'w x 1')]), (e) => e instanceof UsageError && /written to key "x" twice \(transactions 1 and 2\).*unique/.test(e.message));
    assert.throws(() => checkSerializable([{ ...txn(1, ''), ops: [{ f: 'w', key: 'x', value: null }] }]), /null means "absent"/);
    assert.throws(() => checkSerializable([txn(1, 'r x ?')]), /use null for an absent key/);
    assert.throws(() => checkSerializable([], { maxAnomalies: 3 }), /unknown option "maxAnomalies"/);
    assert.throws(() => checkSerializable([{ ...txn(1, 'w x 1'), status: 'committed' }]), /use 'ok', 'fail' or 'unknown'/);
  });

  it('answers unknown when the dependency graph outgrows edgesMax', () => {
    const history = [];
    for (let i = 0; i < 10; i++) history.push(txn(`w${i}`, `w x ${i + 1}`), txn(`r${i}`, 'r x nil'));
    const result = checkSerializable(history, { edgesMax: 20 });
    assert.equal(result.valid, 'unknown');
    assert.match(result.reason, /^too large: the dependency graph grew past edgesMax=20 edges/);
    assert.equal(checkSerializable(history).valid, true);
  });
});
