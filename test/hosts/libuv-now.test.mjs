// libuv's loop clock as Node's own tests read it, internalBinding('timers').getLibuvNow() through
// require('internal/test/binding') under --expose-internals (shims/clock/internals.ts,
// libuvNowShim): inside a host it is the host's clock in whole ms, as performance.now(), so Node's
// test-timers-ordering (each 1 ms timer of a chain reads a later loop time than the one before)
// holds simulated as it holds plainly. It read the real clock before: 67 ms twice.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STARTUP_MS } from 'dst-runtime';

const REGISTER = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));

const PROGRAM = String.raw`'use strict';
const assert = require('assert');
const { internalBinding } = require('internal/test/binding');
const binding = internalBinding('timers');
// Called on the binding, as Node 24's own test-timers-ordering does: V8's fast API call of
// Node 24's getLibuvNow reads its receiver's internal field, and a destructured call crashed
// plain Node 24 once its caller was optimized (FATAL ERROR: Internal field out of bounds).
const getLibuvNow = () => binding.getLibuvNow();
const seen = [];
let last = getLibuvNow();
const first = last;
function step(i) {
  const now = getLibuvNow();
  assert(now >= last + 1, 'loop time ' + now + ' after ' + last + ' across a 1 ms timer');
  last = now;
  seen.push([now, Math.floor(performance.now()), binding.getLibuvNow()]);
  if (i < 5) setTimeout(step, 1, i + 1);
  else {
    // A loop that waits on the loop clock ends, as it does in Node.
    while (getLibuvNow() < now + 3);
    seen.push([getLibuvNow() >= now + 3]);
    assert(internalBinding('timers') === binding, 'a second internalBinding gave another object');
    assert.strictEqual(typeof binding.scheduleTimer, 'function');
    console.log('ordered');
    if (process.env.SHOW === '1') console.log(JSON.stringify({ first, seen }));
  }
}
setTimeout(step, 1, 1);
`;

describe('internalBinding("timers").getLibuvNow() under --expose-internals reads the host clock', function () {
  this.timeout(30_000);
  let file;
  before(() => {
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dst-libuv-now-')), 'ordering.cjs');
    fs.writeFileSync(file, PROGRAM);
  });
  after(() => fs.rmSync(path.dirname(file), { recursive: true, force: true }));

  const run = (args, env = {}) => spawnSync(process.execPath, ['--expose-internals', ...args, file], { encoding: 'utf8', env: { ...process.env, DST_SEED: '0x1', DST_QUIET: '1', ...env } });

  it('a chain of 1 ms timers reads a later loop time each time, plainly and simulated', () => {
    const plain = run([]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(plain.stdout, 'ordered\n');
    const simulated = run(['--import', REGISTER]);
    assert.equal(simulated.status, 0, simulated.stderr);
    assert.equal(simulated.stdout, 'ordered\n');
  });

  it('simulated, it is the virtual ms since the process started (STARTUP_MS before the program), as performance.now() floors it', () => {
    const simulated = run(['--import', REGISTER], { SHOW: '1' });
    assert.equal(simulated.status, 0, simulated.stderr);
    const shown = JSON.parse(simulated.stdout.split('\n')[1]);
    const ms = (n) => STARTUP_MS + n;
    assert.deepEqual(shown, { first: ms(0), seen: [[ms(1), ms(1), ms(1)], [ms(2), ms(2), ms(2)], [ms(3), ms(3), ms(3)], [ms(4), ms(4), ms(4)], [ms(5), ms(5), ms(5)], [true]] });
  });
});
