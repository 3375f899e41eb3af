import assert from 'node:assert/strict';
import { checkLinearizable, checkSerializable, formatCheckResult } from 'dst-runtime/check';

const ms = 1e6;
const write = (id, value, invokeMs, completeMs) => ({ id, process: `c${id}`, invokeNs: invokeMs * ms, completeNs: completeMs * ms, status: 'ok', f: 'write', key: 'x', value });
const read = (id, value, invokeMs, completeMs) => ({ ...write(id, value, invokeMs, completeMs), f: 'read' });

describe('formatCheckResult', () => {
  it('one line for a valid answer and for an undecided one', () => {
    assert.equal(formatCheckResult(checkLinearizable([write(1, 1, 0, 1), read(2, 1, 2, 3)])), 'linearizability: valid (2 operations on 1 key)');
    assert.equal(formatCheckResult(checkSerializable([])), 'serializability: valid (0 transactions on 0 keys)');
    const concurrent = Array.from({ length: 10 }, (_, i) => write(i, i + 1, 0, 100));
    const text = formatCheckResult(checkLinearizable([...concurrent, read(99, 42, 200, 201)], { stepsMax: 100 }));
    assert.match(text, /^linearizability: unknown \(11 operations on 1 key\): too large: key "x"/);
    assert.equal(text.split('\n').length, 1);
  });

  it('prints only the tail of a long prefix, saying how much it left out', () => {
    const history = [];
    for (let i = 0; i < 20; i++) history.push(write(i, i + 1, i * 10, i * 10 + 5));
    history.push(read(100, 3, 300, 305));
    const result = checkLinearizable(history);
    assert.equal(result.anomalies[0].prefix.length, 20, 'the result keeps the whole prefix');
    const text = formatCheckResult(result, { prefixShownMax: 3 });
    assert.match(text, /longest linearizable prefix \(20 operations, last 3 shown\):\n {4}\.\.\. 17 earlier operations\n {4}write 18 by process c17 \[170ms, 175ms\] \(id 17\)/);
    assert.match(text, /state after the prefix: 20\n  could not be placed next:\n {4}read 3 by process c100 \[300ms, 305ms\] \(id 100\): read 3 but the register holds 20/);
  });
});
