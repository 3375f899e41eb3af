import assert from 'node:assert/strict';
import { checkLinearizable, checkSerializable, formatCheckResult } from 'dst-runtime/check';
import { prng } from './prng.mjs';


/** Every ordering of `items` (small inputs only). */
function* permutations(items) {
  if (items.length <= 1) {
    yield items;
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const tail of permutations(rest)) yield [items[i], ...tail];
  }
}

/** Every subset of `items`. */
function* subsets(items) {
  for (let mask = 0; mask < 1 << items.length; mask++) yield items.filter((_, i) => mask & (1 << i));
}

/**
 * Linearizability by definition, on one register: some order of the ok ops plus a subset of
 * the unknown ones respects real time (a before b when a completed strictly before b began)
 * and the register spec.
 */
function bruteLinearizable(ops) {
  const live = ops.filter((o) => o.status !== 'fail' && !(o.status === 'unknown' && o.f === 'read'));
  const ok = live.filter((o) => o.status === 'ok');
  const unknown = live.filter((o) => o.status === 'unknown');
  for (const extra of subsets(unknown)) {
    for (const order of permutations([...ok, ...extra])) {
      let state = null;
      let fine = true;
      for (let i = 0; i < order.length && fine; i++) {
        const o = order[i];
        for (let j = i + 1; j < order.length; j++) if (order[j].status === 'ok' && order[j].completeNs < o.invokeNs) fine = false;
        if (o.f === 'read') fine &&= o.value === state;
        else if (o.f === 'write') state = o.value;
        else if (o.expected === state) state = o.value;
        else fine = false;
      }
      if (fine) return true;
    }
  }
  return false;
}

describe('cross-check: checkLinearizable against brute force on small random histories', () => {
  const seeds = Array.from({ length: 300 }, (_, i) => 1 + i);
  let valid = 0;
  let invalid = 0;
  for (const seed of seeds) {
    it(`seed ${seed}: same answer as enumerating every order`, () => {
      const rng = prng(seed);
      const ops = [];
      const count = 2 + rng.int(5);
      for (let i = 0; i < count; i++) {
        const f = rng.pick(['read', 'read', 'write', 'write', 'cas']);
        const invokeNs = rng.int(30);
        const status = rng.pick(['ok', 'ok', 'ok', 'ok', 'unknown', 'fail']);
        const op = { id: i, process: `p${i}`, key: 'x', f, invokeNs, status, value: rng.pick([null, 1, 2, 3]) };
        if (f !== 'read' && op.value === null) op.value = 1;
        if (f === 'cas') op.expected = rng.pick([null, 1, 2]);
        if (status !== 'unknown') op.completeNs = invokeNs + rng.int(15);
        ops.push(op);
      }
      const expected = bruteLinearizable(ops);
      const result = checkLinearizable(ops);
      assert.equal(result.valid, expected, `${JSON.stringify(ops)}\n${formatCheckResult(result)}`);
      if (expected) valid++;
      else invalid++;
    });
  }
  it('both answers occurred', () => {
    assert.ok(valid > 30 && invalid > 30, `valid ${valid}, invalid ${invalid}`);
  });
});

/**
 * Serializability by definition: some serial order of the ok txns plus a subset of the unknown
 * ones makes every ok txn's reads see what that order wrote.
 */
function bruteSerializable(history) {
  const ok = history.filter((t) => t.status === 'ok');
  const unknown = history.filter((t) => t.status === 'unknown');
  for (const extra of subsets(unknown)) {
    for (const order of permutations([...ok, ...extra])) {
      const state = new Map();
      let fine = true;
      for (const txn of order) {
        for (const op of txn.ops) {
          if (op.f === 'w') state.set(op.key, op.value);
          else if (txn.status === 'ok' && (state.get(op.key) ?? null) !== op.value) fine = false;
        }
        if (!fine) break;
      }
      if (fine) return true;
    }
  }
  return false;
}

describe('cross-check: checkSerializable against brute force on small random histories', () => {
  const seeds = Array.from({ length: 300 }, (_, i) => 1000 + i);
  let flagged = 0;
  let agreedValid = 0;
  for (const seed of seeds) {
    it(`seed ${seed}: an anomaly is reported only when no serial order exists`, () => {
      const rng = prng(seed);
      const history = [];
      const written = { x: [], y: [] };
      const count = 2 + rng.int(4);
      for (let i = 0; i < count; i++) {
        const status = rng.pick(['ok', 'ok', 'ok', 'unknown', 'fail']);
        const ops = [];
        for (let j = 0; j < 1 + rng.int(3); j++) {
          const key = rng.pick(['x', 'y']);
          if (rng.next() < 0.5) {
            const value = i * 10 + j + 1;
            written[key].push(value);
            ops.push({ f: 'w', key, value });
          } else {
            ops.push({ f: 'r', key, value: undefined });
          }
        }
        history.push({ id: i, process: `c${i}`, invokeNs: i, status, ops });
      }
      // Reads see the initial state or some value written to the key (possibly impossible ones).
      for (const txn of history) {
        if (txn.status === 'ok') txn.completeNs = txn.invokeNs + 1;
        for (const op of txn.ops) if (op.f === 'r' && txn.status === 'ok') op.value = rng.pick([null, ...written[op.key]]);
      }
      const result = checkSerializable(history);
      const possible = bruteSerializable(history);
      if (result.valid === false) {
        flagged++;
        assert.equal(possible, false, `checker reported an anomaly but a serial order exists\n${JSON.stringify(history)}\n${formatCheckResult(result)}`);
      } else if (possible) {
        agreedValid++;
      }
    });
  }
  it('both answers occurred', () => {
    assert.ok(flagged > 30 && agreedValid > 30, `flagged ${flagged}, agreed valid ${agreedValid}`);
  });
});
