import assert from 'node:assert/strict';
import { checkLinearizable, formatCheckResult, registerModel, txnsToRegisterOps, UsageError } from 'dst-runtime/check';

let nextId = 0;
/** A register op: ok when `completeNs` is a number, unknown when it is null. */
function op(process, f, value, invokeNs, completeNs, extra = {}) {
  const o = { id: nextId++, process, invokeNs, status: completeNs === null ? 'unknown' : 'ok', f, key: 'x', value, ...extra };
  if (completeNs !== null) o.completeNs = completeNs;
  return o;
}
const w = (p, v, i, c, extra) => op(p, 'write', v, i, c, extra);
const r = (p, v, i, c, extra) => op(p, 'read', v, i, c, extra);
const cas = (p, expected, v, i, c, extra) => op(p, 'cas', v, i, c, { expected, ...extra });

describe('checkLinearizable: register histories', () => {
  it('accepts an empty history and a sequential write-then-read', () => {
    assert.equal(checkLinearizable([]).valid, true);
    const result = checkLinearizable([w('c1', 1, 0, 10), r('c2', 1, 20, 30), r('c1', 1, 40, 50)]);
    assert.equal(result.valid, true, formatCheckResult(result));
    assert.deepEqual({ operations: result.stats.operations, keys: result.stats.keys }, { operations: 3, keys: 1 });
  });

  it('a read of the initial value sees null (absent)', () => {
    assert.equal(checkLinearizable([r('c1', null, 0, 5), w('c2', 1, 10, 20)]).valid, true);
    assert.equal(checkLinearizable([w('c2', 1, 0, 5), r('c1', null, 10, 20)]).valid, false);
  });

  it('rejects a stale read after a completed write, naming the key, the prefix and the read', () => {
    const history = [w('c1', 1, 0, 10), w('c2', 2, 20, 30), r('c3', 1, 40, 50)];
    const result = checkLinearizable(history);
    assert.equal(result.valid, false);
    assert.equal(result.anomalies.length, 1);
    const [anomaly] = result.anomalies;
    assert.equal(anomaly.key, 'x');
    assert.deepEqual(
      anomaly.prefix.map((o) => o.description),
      ['write 1', 'write 2'],
    );
    assert.equal(anomaly.stateAfterPrefix, '2');
    assert.equal(anomaly.unplaced[0].op.description, 'read 1');
    assert.equal(anomaly.unplaced[0].op.process, 'c3');
    assert.match(anomaly.unplaced[0].why, /read 1 but the register holds 2/);
    assert.match(result.message, /key "x".*read 1 by process c3 could not be placed/);
  });

  it('accepts concurrent operations that can be ordered (reads on both sides of a long write)', () => {
    const history = [w('c1', 1, 0, 100), r('c2', null, 5, 15), r('c3', 1, 10, 20), r('c4', 1, 30, 40)];
    assert.equal(checkLinearizable(history).valid, true);
  });

  it('rejects reads that see a write and then not see it (new-old inversion)', () => {
    // c3 saw 1, then c4 (starting after c3 ended) saw the old null while the write was still running.
    const history = [w('c1', 1, 0, 100), r('c3', 1, 10, 20), r('c4', null, 30, 40)];
    const result = checkLinearizable(history);
    assert.equal(result.valid, false);
    assert.equal(result.anomalies[0].unplaced.some((u) => u.op.process === 'c4'), true);
  });

  it('treats an op completing at t and one invoked at t as concurrent', () => {
    assert.equal(checkLinearizable([w('c1', 1, 0, 10), r('c2', null, 10, 20)]).valid, true);
    assert.equal(checkLinearizable([w('c1', 1, 0, 10), r('c2', null, 11, 20)]).valid, false);
  });

  it('accepts a cas chain and rejects a cas that swapped from a value the register did not hold', () => {
    const chain = [w('c1', 0, 0, 10), cas('c2', 0, 1, 20, 30), cas('c3', 1, 2, 40, 50), r('c1', 2, 60, 70)];
    assert.equal(checkLinearizable(chain).valid, true);
    const concurrentChain = [w('c1', 0, 0, 10), cas('c3', 1, 2, 20, 60), cas('c2', 0, 1, 25, 55), r('c1', 2, 70, 80)];
    assert.equal(checkLinearizable(concurrentChain).valid, true, 'the two cas overlap, so 0->1 may go first');
    const broken = [w('c1', 0, 0, 10), cas('c2', 1, 2, 20, 30)];
    const result = checkLinearizable(broken);
    assert.equal(result.valid, false);
    assert.match(result.anomalies[0].unplaced[0].why, /cas expected 1 but the register holds 0/);
  });

  it('drops failed ops: a value written only by a failed write must not be read', () => {
    const failed = { ...w('c1', 7, 0, 10), status: 'fail' };
    assert.equal(checkLinearizable([failed, r('c2', null, 20, 30)]).valid, true);
    assert.equal(checkLinearizable([failed, r('c2', 7, 20, 30)]).valid, false);
  });

  it('compares values structurally (object keys in any order)', () => {
    const history = [w('c1', { a: 1, b: [2] }, 0, 10), r('c2', { b: [2], a: 1 }, 20, 30)];
    assert.equal(checkLinearizable(history).valid, true);
    assert.equal(checkLinearizable([w('c1', 1, 0, 10), r('c2', '1', 20, 30)]).valid, false, 'the number 1 is not the string "1"');
  });
});

describe('checkLinearizable: operations of unknown outcome', () => {
  it('an unknown write may take effect after it was invoked, making a later read valid', () => {
    const history = [w('c1', 1, 0, 10), w('c2', 2, 5, null), r('c3', 2, 20, 30), r('c3', 2, 40, 50)];
    assert.equal(checkLinearizable(history).valid, true);
    // Without the timed-out write, the same reads are impossible.
    assert.equal(checkLinearizable([history[0], history[2], history[3]]).valid, false);
  });

  it('an unknown write may take effect long after its invocation (return time is +infinity)', () => {
    const history = [w('c2', 2, 5, null), w('c1', 1, 10, 20), r('c3', 1, 30, 40), r('c3', 2, 50, 60)];
    assert.equal(checkLinearizable(history).valid, true);
  });

  it('an unknown write may never take effect', () => {
    const history = [w('c1', 1, 0, 10), w('c2', 2, 5, null), r('c3', 1, 20, 30), r('c3', 1, 1e9, 1e9 + 1)];
    assert.equal(checkLinearizable(history).valid, true);
  });

  it('an unknown write cannot take effect before it was invoked', () => {
    const history = [w('c1', 1, 0, 10), r('c3', 2, 20, 30), w('c2', 2, 40, null)];
    const result = checkLinearizable(history);
    assert.equal(result.valid, false);
    assert.equal(result.anomalies[0].unplaced[0].op.description, 'read 2');
  });

  it('an unknown write cannot explain a read that flips back (it takes effect at most once)', () => {
    const history = [w('c1', 1, 0, 10), w('c2', 2, 5, null), r('c3', 2, 20, 30), r('c3', 1, 40, 50), r('c3', 2, 60, 70)];
    assert.equal(checkLinearizable(history).valid, false);
  });

  it('unknown reads are dropped; an unknown cas may or may not have swapped', () => {
    const unknownRead = r('c9', 42, 0, null);
    assert.equal(checkLinearizable([unknownRead, w('c1', 1, 0, 10)]).valid, true);
    const maybeSwapped = [w('c1', 0, 0, 10), cas('c2', 0, 1, 20, null), r('c3', 1, 30, 40)];
    assert.equal(checkLinearizable(maybeSwapped).valid, true);
    const notSwapped = [w('c1', 0, 0, 10), cas('c2', 0, 1, 20, null), r('c3', 0, 30, 40)];
    assert.equal(checkLinearizable(notSwapped).valid, true);
  });

  it('reports unknown completion as null and formats it as ∞', () => {
    const history = [w('c2', 2, 5, null), r('c3', 3, 20, 30)];
    const result = checkLinearizable(history);
    assert.equal(result.valid, false);
    const [unknown] = result.anomalies[0].prefix;
    assert.equal(unknown.status, 'unknown');
    assert.equal(unknown.completeNs, null);
    assert.match(formatCheckResult(result), /write 2 by process c2 \[0\.000005ms, ∞\] \(unknown outcome\)/);
  });
});

describe('checkLinearizable: keys, limits and input', () => {
  it('checks each key independently and names the key that fails', () => {
    const history = [
      { ...w('c1', 1, 0, 10), key: 'a' },
      { ...w('c1', 1, 0, 10), key: 'b' },
      { ...r('c2', 1, 20, 30), key: 'a' },
      { ...r('c2', null, 20, 30), key: 'b' },
    ];
    const result = checkLinearizable(history);
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.anomalies.map((a) => a.key),
      ['b'],
    );
    assert.equal(result.stats.keys, 2);
  });

  /** `writers` fully concurrent writes, then a read of a value nobody wrote: every subset is explored. */
  function hardHistory(writers, readValue) {
    const ops = [];
    for (let i = 0; i < writers; i++) ops.push(w(`c${i}`, i + 1, 0, 100));
    ops.push(r('reader', readValue, 200, 210));
    return ops;
  }

  it('answers unknown ("too large") once stepsMax search steps are spent, and not before', () => {
    const result = checkLinearizable(hardHistory(12, 99), { stepsMax: 1000 });
    assert.equal(result.valid, 'unknown');
    assert.match(result.reason, /^too large: key "x" \(13 operations\) needed more than stepsMax=1000 search steps/);
    assert.ok(result.stats.steps <= 1000, `steps ${result.stats.steps}`);
    // An easy history of the same size (the depth-first order works at once) is decided within the same bound.
    assert.equal(checkLinearizable(hardHistory(12, 12), { stepsMax: 1000 }).valid, true);
  });

  it('with the default bound, a history too large to search is answered unknown (2^20 subsets of concurrent writes)', () => {
    const result = checkLinearizable(hardHistory(20, 99));
    assert.equal(result.valid, 'unknown');
    assert.match(result.reason, /stepsMax=1000000/);
    assert.ok(result.stats.steps <= 1_000_000);
  });

  it('memoization decides a history that a plain search could not: 12 concurrent writes and an impossible read', () => {
    // 12! orders, but only 2^12 * 12 distinct (set, state) configurations.
    const result = checkLinearizable(hardHistory(12, 99), { stepsMax: 500_000 });
    assert.equal(result.valid, false);
    assert.ok(result.stats.steps < 500_000);
  });

  it('a violation on one key wins over another key that is too large', () => {
    const big = hardHistory(12, 99).map((o) => ({ ...o, key: 'big' }));
    const bad = [{ ...w('c1', 1, 0, 10), key: 'bad' }, { ...r('c2', 2, 20, 30), key: 'bad' }];
    const result = checkLinearizable([...big, ...bad], { stepsMax: 1000 });
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.anomalies.map((a) => a.key),
      ['bad'],
    );
    assert.match(result.message, /undecided: key "big"/);
  });

  it('refuses bad input with messages that say what to change', () => {
    assert.throws(() => checkLinearizable([], { maxSteps: 10 }), (e) => e instanceof UsageError && /did you mean stepsMax/.test(e.message));
    assert.throws(() => checkLinearizable([], { stepsMax: 0 }), /stepsMax must be a positive integer/);
    assert.throws(() => checkLinearizable([{ ...w('c1', 1, 0, 10), status: 'done' }]), /use 'ok', 'fail' or 'unknown'/);
    assert.throws(() => checkLinearizable([{ ...w('c1', 1, 0, 10), completeNs: undefined }]), /record completeNs, or mark the op 'unknown'/);
    assert.throws(() => checkLinearizable([{ ...w('c1', 1, 0, 10), f: 'append' }]), /use 'read', 'write' or 'cas'/);
    assert.throws(() => checkLinearizable([r('c1', undefined, 0, 10)]), /use null for an absent key/);
    assert.throws(() => checkLinearizable('x'), UsageError);
    assert.throws(() => checkLinearizable([], { model: { init: () => 0 } }), /the model lacks step, hash, describeState, describeOperation/);
  });
});

describe('checkLinearizable: custom models', () => {
  /** A counter: add(n) and read. */
  const counterModel = {
    name: 'counter',
    init: () => 0,
    step(state, input, output) {
      if (input.f === 'add') return { ok: true, state: state + input.n };
      if (output === undefined || output === state) return { ok: true, state };
      return { ok: false, why: `read ${output} but the counter is ${state}` };
    },
    hash: (state) => String(state),
    describeState: (state) => String(state),
    describeOperation: (input, output) => (input.f === 'add' ? `add ${input.n}` : `read ${output}`),
  };
  const mop = (process, input, output, invokeNs, completeNs) => ({
    id: nextId++,
    process,
    invokeNs,
    completeNs,
    status: 'ok',
    key: 'k',
    input,
    output,
  });

  it('checks ModelOps against a given model', () => {
    const good = [mop('a', { f: 'add', n: 2 }, undefined, 0, 10), mop('b', { f: 'add', n: 3 }, undefined, 0, 10), mop('c', { f: 'read' }, 5, 20, 30)];
    assert.equal(checkLinearizable(good, { model: counterModel }).valid, true);
    const bad = [mop('a', { f: 'add', n: 2 }, undefined, 0, 10), mop('c', { f: 'read' }, 3, 20, 30)];
    const result = checkLinearizable(bad, { model: counterModel });
    assert.equal(result.valid, false);
    assert.match(result.anomalies[0].unplaced[0].why, /read 3 but the counter is 2/);
  });

  it('registerModel is the documented register', () => {
    assert.equal(registerModel.init(), null);
    assert.deepEqual(registerModel.step(1, { f: 'write', value: 2 }, undefined), { ok: true, state: 2 });
    assert.equal(registerModel.step(1, { f: 'read' }, 2).ok, false);
    assert.equal(registerModel.step(1, { f: 'cas', expected: 1, value: 3 }, undefined).ok, true);
  });
});

describe('txnsToRegisterOps', () => {
  it('turns single-op transactions into register ops that checkLinearizable accepts or rejects', () => {
    const txns = [
      { id: 1, process: 'c1', invokeNs: 0, completeNs: 10, status: 'ok', ops: [{ f: 'w', key: 'x', value: 1 }] },
      { id: 2, process: 'c2', invokeNs: 5, status: 'unknown', ops: [{ f: 'w', key: 'x', value: 2 }] },
      { id: 3, process: 'c3', invokeNs: 20, completeNs: 30, status: 'ok', ops: [{ f: 'r', key: 'x', value: 2 }] },
    ];
    const ops = txnsToRegisterOps(txns);
    assert.deepEqual(ops[1], { id: 2, process: 'c2', invokeNs: 5, status: 'unknown', f: 'write', key: 'x', value: 2 });
    assert.equal(checkLinearizable(ops).valid, true);
    const stale = [...txns.slice(0, 2), { ...txns[2], ops: [{ f: 'r', key: 'x', value: null }] }];
    assert.equal(checkLinearizable(txnsToRegisterOps(stale)).valid, false);
  });

  it('refuses a multi-op transaction and says to use checkSerializable', () => {
    const txn = { id: 9, process: 'c1', invokeNs: 0, completeNs: 1, status: 'ok', ops: [{ f: 'w', key: 'x', value: 1 }, { f: 'r', key: 'y', value: null }] };
    assert.throws(() => txnsToRegisterOps([txn]), (e) => e instanceof UsageError && /transaction 9 .* has 2 operations.*checkSerializable/.test(e.message));
  });
});
