import assert from 'node:assert/strict';
import util from 'node:util';
import { Sim } from 'dst-runtime';

// console.log(setTimeout(...)) printed the simulator's fields with Node's: the timer's host, and
// through it the whole World, its seed included (135 lines for one timer; found by a probe,
// 2026-12-05). util.inspect shows Node's keys, as Node shows them (test/compliance has no
// program for it: the async ids and _idleStart differ from plain Node's; Node 24 prints symbol keys
// without brackets).
describe('timers: what util.inspect shows of a simulated Timeout and Immediate (seed 0x1ce)', () => {
  it("shows Node's keys and a pending timer's TimersList, not the simulator's fields", async () => {
    const seen = {};
    const sim = new Sim({ seed: 0x1ce });
    sim.client('c', () => {
      const timer = setTimeout(() => {}, 1);
      seen.pending = util.inspect(timer);
      clearTimeout(timer);
      seen.cleared = util.inspect(timer);
      const immediate = setImmediate(() => {});
      seen.immediate = util.inspect(immediate);
    });
    await sim.run();
    for (const text of Object.values(seen)) {
      assert.doesNotMatch(text, /dst\.|World|Host|seed/, text);
      assert.ok(text.split('\n').length <= 14, text);
    }
    assert.match(seen.pending, /^Timeout \{\n {2}_idleTimeout: 1,\n {2}_idlePrev: \[TimersList\],\n {2}_idleNext: \[TimersList\],\n/);
    assert.match(seen.pending, /\[?Symbol\(refed\)\]?: true,\n {2}\[?Symbol\(kHasPrimitive\)\]?: false,\n {2}\[?Symbol\(asyncId\)\]?: \d+\n\}$/);
    assert.match(seen.cleared, /_idleTimeout: -1,\n {2}_idlePrev: null,\n {2}_idleNext: null,/);
    assert.match(seen.cleared, /_destroyed: true,/);
    assert.match(seen.immediate, /^Immediate \{\n {2}_idleNext: null,\n {2}_idlePrev: null,\n {2}_onImmediate: \[Function \(anonymous\)\],\n {2}_argv: undefined,\n {2}_destroyed: false,\n {2}\[?Symbol\(refed\)\]?: true\n\}$/);
  });
});
