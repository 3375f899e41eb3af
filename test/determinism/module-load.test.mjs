/**
 * Determinism of real work a module host starts while its modules load (issue 20 item 1): its
 * completions must reach the host in the same order in every fresh process.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

describe('determinism: real work started while module hosts load (fresh processes)', function () {
  this.timeout(240_000);
  it('holds the real work a host starts while modules load, in every fresh process (seed 0x7, issue 20 item 1)', () => {
    // Three CommonJS module hosts start an fs.stat, an fs.promises.readFile, a gzip, a pbkdf2, a
    // dns lookup and a WebAssembly compile at their top level, with a MessagePort message in
    // flight. Such calls were left to the real machine whenever anything else held the
    // simulation (the message; the next host's graph loading): their callbacks then ran at a
    // real, machine-dependent moment, and four processes gave two fingerprints.
    const runner = fileURLToPath(new URL('../hosts/fixtures/load-time-work/run.mjs', import.meta.url));
    const outputs = [];
    for (let i = 0; i < 4; i++) {
      const result = spawnSync(process.execPath, [runner, '7'], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(result.status, 0, result.stderr);
      outputs.push(JSON.parse(result.stdout));
    }
    for (const output of outputs.slice(1)) assert.deepEqual(output, outputs[0], 'the same seed, another fresh process');
    // Every completion reached its host as an io event (stat 1, readFile's open, fstat, reads
    // and close, gzip, pbkdf2 and the compile: 10 on Node 20, 22 and 24).
    assert.deepEqual(outputs[0].io, { a: 10, b: 10, c: 10 });
    assert.equal(outputs[0].log.length, 3 * 8);
  });

});
