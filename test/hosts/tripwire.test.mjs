/**
 * Strict mode's report names where each escaped real timer came from: the creation site of a
 * real Timeout (program frames of its creation stack), the callback's location for a real
 * Immediate.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('./fixtures/tripwire/', import.meta.url));
const REGISTER_MJS = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));

function run(escape) {
  const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
  const child = spawnSync(process.execPath, ['--import', './early.mjs', '--import', REGISTER_MJS, 'app.mjs'], {
    cwd: FIXTURES,
    env: { ...cleanEnv, DST_SEED: '0x74', ESCAPE: escape },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

const show = (child) => `status ${child.status}\n--- stdout\n${child.stdout}--- stderr\n${child.stderr}`;

/** "file:line:col" of `call` on the line holding `marker`. */
function siteOf(file, marker, call) {
  const lines = fs.readFileSync(path.join(FIXTURES, file), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(marker));
  assert.ok(index >= 0, `${marker} not found in ${file}`);
  return `${file}:${index + 1}:${lines[index].indexOf(call) + 1}`;
}

describe('strict mode: the escape report says where each real timer came from (DST_SEED=0x74)', function () {
  this.timeout(120_000);

  it('a real Timeout made by library code: its creation site, then the program frames that led there', () => {
    const child = run('timeout');
    assert.equal(child.status, 74, show(child));
    assert.equal(child.stdout, '', 'neither the real nor the simulated timer ran');
    const lines = child.stderr.split('\n');
    const at = lines.findIndex((l) => l.includes('real Timeout (20 ms) created at'));
    assert.ok(at > 0, child.stderr);
    assert.equal(lines[at].trim(), `real Timeout (20 ms) created at ${siteOf('lib.mjs', '// LIB TIMEOUT', 'setTimeout(')}`);
    assert.equal(lines[at + 1].trim(), `from ${siteOf('app.mjs', '// APP POLL', 'poll(')}`);
    assert.match(child.stderr, /^ {2}seed {5}0x74$/m);
  });

  it('a real interval: its period and creation site', () => {
    const child = run('interval');
    assert.equal(child.status, 74, show(child));
    assert.match(child.stderr, new RegExp(`^ +real interval \\(every 1000 ms\\) created at ${siteOf('app.mjs', '// APP INTERVAL', 'setInterval(')}$`, 'm'));
  });

  it('a real Immediate: where its callback is defined (V8 puts a function at its parameter list)', () => {
    const child = run('immediate');
    assert.equal(child.status, 74, show(child));
    assert.doesNotMatch(child.stdout, /real immediate ran/);
    assert.match(child.stderr, /1 real immediate escaped the simulation/);
    assert.match(child.stderr, new RegExp(`^ +real Immediate whose callback is defined at ${siteOf('app.mjs', '// APP IMMEDIATE', '() {')} \\(where it was created is not recorded\\)$`, 'm'));
  });

  it('a real Immediate made in an event that leaves the driver idle mid-batch: its unused immediates do not hide it', () => {
    // Until 02a2339 the driver's queued immediates were subtracted twice at such a checkpoint (by
    // count, and again as dst-runtime's own in Node's list), which hid the escape there. This test
    // does not tell that build apart: classifying the program's callback the first time (an
    // inspector session) takes longer than the 5 ms idle check, which then caught the escape
    // before the real immediate ran. It pins the outcome, not which check got there first.
    const child = run('immediate-in-event');
    assert.equal(child.status, 74, show(child));
    assert.doesNotMatch(child.stdout, /real immediate ran/);
    assert.match(child.stderr, /1 real immediate escaped the simulation/);
    assert.match(child.stderr, new RegExp(`^ +real Immediate whose callback is defined at ${siteOf('app.mjs', '// APP EVENT IMMEDIATE', '() {')} `, 'm'));
  });

  it('Node fact: a Timeout.prototype accessor named _idleTimeout sees every real Timeout being built; own keys unchanged', () => {
    const program = `
      const t0 = setTimeout(() => {}, 1); const proto = Object.getPrototypeOf(t0); clearTimeout(t0);
      const plain = Reflect.ownKeys(setTimeout(() => {}, 1)).map(String);
      let seen = 0;
      Object.defineProperty(proto, '_idleTimeout', { configurable: true, get() {}, set(v) {
        Object.defineProperty(this, '_idleTimeout', { value: v, writable: true, enumerable: true, configurable: true });
        seen++;
      } });
      const a = setTimeout(() => {}, 1); const b = setInterval(() => clearInterval(b), 1);
      const same = JSON.stringify(Reflect.ownKeys(a).map(String)) === JSON.stringify(plain);
      console.log(seen, same, a._idleTimeout, Object.keys(a)[0]);`;
    const out = spawnSync(process.execPath, ['-e', program], { encoding: 'utf8' }).stdout.trim();
    assert.equal(out, '2 true 1 _idleTimeout');
  });
});
