/**
 * Node command-line flags that change what the shims can do: the program either runs as it does
 * plainly, or the run stops at once with a message that names the flag and what to do instead.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runProgram } from '../support/programs.mjs';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const PROGRAM = 'node-flags.mjs';
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

function simulated(nodeOptions) {
  return runProgram(FIXTURES, PROGRAM, { seed: '0x1', env: { NODE_OPTIONS: nodeOptions } });
}

describe('Node flags under the simulator', function () {
  it('--jitless (no WebAssembly, so no fetch in Node 20/22): the program runs as it does plainly', function () {
    const plain = runProgram(FIXTURES, PROGRAM, { env: { NODE_OPTIONS: '--jitless' } });
    const sim = simulated('--jitless');
    assert.equal(plain.status, 0, plain.stderr);
    assert.match(plain.stdout, /^timer number string number function object\ncaught\n$/);
    assert.equal(sim.stdout, plain.stdout, sim.stderr);
    assert.equal(sim.status, plain.status, sim.stderr);
  });

  it('--frozen-intrinsics: a usage error (exit 64) naming the flag, before the program runs', function () {
    const sim = simulated('--frozen-intrinsics');
    assert.equal(sim.status, 64, sim.stderr);
    assert.equal(sim.stdout, '');
    assert.match(sim.stderr, /^dst: Failed to install dst-runtime: the JavaScript intrinsics are frozen \(--frozen-intrinsics\).*Run the simulation without --frozen-intrinsics\.$/m);
  });

  it("the permission model: dst-runtime fails to load with a message naming it, before the program runs", function () {
    const flag = NODE_MAJOR >= 23 ? '--permission' : '--experimental-permission';
    const sim = simulated(`${flag} --allow-fs-read=*`);
    assert.equal(sim.status, 1, sim.stderr);
    assert.equal(sim.stdout, '');
    assert.match(sim.stderr, /UsageError: Failed to load dst-runtime: Node's permission model \(--permission or --experimental-permission\) denies process\.binding\('\w+'\).*Run the simulation without the permission model\./);
  });
});
