import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// A delay computed in floating point (bench figure 1's `1 + uint32 % 10`) arrives as a heap
// number; stored as one in _idleTimeout, it cost a new 16-byte box per setTimeout. The shim keeps
// the value and stores a whole number of ms as a small integer. Checked in a child with V8's
// natives syntax (%IsSmi), which no test process should run with. Only whole delays: once any
// Timeout of the process holds a fraction, V8 gives the field a double representation and every
// Timeout, old or new, keeps it in a box (docs/notes/node-facts.md). Fractions keep their value:
// test/compliance/programs/16-delay-coercion-values.mjs.

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

const PROGRAM = `
import { Sim } from 'dst-runtime';
const whole = new Float64Array([10])[0];   // a heap number in the interpreter (checked below)
const out = {};
const sim = new Sim({ seed: 0x5a11 });
sim.client('c', async () => {
  const a = setTimeout(() => {}, whole);
  const c = setInterval(() => {}, whole);
  clearInterval(c);
  out.inputIsSmi = %IsSmi(whole);
  out.wholeIsSmi = %IsSmi(a._idleTimeout);
  out.whole = a._idleTimeout;
  out.repeatIsSmi = %IsSmi(c._repeat);
});
await sim.run();
console.log(JSON.stringify(out));
`;

describe('timers: delay representation (seed 0x5a11)', () => {
  it('stores a whole-number delay given as a heap number as a small integer, in a process that never used a fractional delay', () => {
    // Arrange / Act
    const stdout = execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', PROGRAM], { cwd: ROOT, encoding: 'utf8' });
    const out = JSON.parse(stdout.trim().split('\n').pop());
    // Assert: the precondition (the delay really was a heap number), then the representation.
    assert.equal(out.inputIsSmi, false, 'the test delay must reach setTimeout as a heap number');
    assert.equal(out.whole, 10);
    assert.equal(out.wholeIsSmi, true);
    assert.equal(out.repeatIsSmi, true);
  });
});
