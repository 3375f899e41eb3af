/**
 * Register mode's summary line and DST_REPORT carry the code the process really exits with,
 * including one the program's own 'exit' listeners set (process.exitCode = n, or process.exit(n)
 * from inside a listener, which exits at once). They used to carry the code 'exit' was emitted
 * with: dst-runtime's listener, registered at preload, ran before the program's.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const APP = fileURLToPath(new URL('./fixtures/exit-summary/app.mjs', import.meta.url));
const REGISTER_MJS = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));

function run(which, { register }) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-exit-'));
  const reportFile = path.join(dir, 'report.json');
  const args = register ? ['--import', REGISTER_MJS, APP] : [APP];
  const child = spawnSync(process.execPath, args, {
    env: { ...env, WHICH: which, DST_SEED: '0x1', DST_REPORT: reportFile },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const report = register ? JSON.parse(fs.readFileSync(reportFile, 'utf8')) : undefined;
  fs.rmSync(dir, { recursive: true, force: true });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr, report };
}

describe('register mode: the summary and DST_REPORT give the exit code the process exits with', function () {
  this.timeout(120_000);

  for (const [which, code] of [['none', 0], ['code', 3], ['exit', 4], ['throw', 1], ['explicit', 5], ['bare', 6], ['undefined', 0], ['string', 7]]) {
    it(`${which}: exit ${code}, as plainly`, () => {
      const plain = run(which, { register: false });
      const sim = run(which, { register: true });
      assert.equal(plain.status, code, plain.stderr);
      assert.equal(sim.status, code, sim.stderr);
      assert.equal(sim.stdout, plain.stdout, 'the listeners ran as plainly');
      assert.match(sim.stderr, new RegExp(`^dst: seed 0x1 .* exit ${code}$`, 'm'));
      assert.equal(sim.report.exitCode, code);
    });
  }

  it('the program sees only its own process listeners: counts, the leak warning, a handler added when there is none', () => {
    // dst-runtime's 'uncaughtExceptionMonitor' and 'beforeExit' handling were listeners: the
    // program counted 11 after adding 10, was warned of a leak, and saw a handler it had not added.
    const app = fileURLToPath(new URL('./fixtures/exit-summary/own-listeners.cjs', import.meta.url));
    const env = { ...process.env, DST_SEED: '0x1', DST_QUIET: '1' };
    const plain = spawnSync(process.execPath, [app], { env, encoding: 'utf8' });
    const sim = spawnSync(process.execPath, ['--import', REGISTER_MJS, app], { env, encoding: 'utf8' });
    assert.equal(plain.status, 3, plain.stderr);
    assert.equal(plain.stdout, 'at start 0 0 0 0\nafter 10 each 0 10 10 0\nhandled boom\n');
    assert.equal(sim.stdout, plain.stdout, sim.stderr);
    assert.equal(sim.status, 3);
  });

  it('the hook is not an enumerable property of process', () => {
    const child = spawnSync(process.execPath, ['--import', REGISTER_MJS, '--input-type=module', '-e', "console.log(Object.keys(process).includes('emit'))"], {
      env: { ...process.env, DST_SEED: '0x1', DST_QUIET: '1' },
      encoding: 'utf8',
    });
    assert.equal(child.stdout.trim(), 'false', child.stderr);
  });
});

describe('register mode: the runner\'s own variables are not the program\'s (DST_SEED=0x1)', function () {
  this.timeout(120_000);

  it('DST_REPORT, DST_TRACE and DST_QUIET are taken out of process.env: a child on the program\'s own options writes neither', () => {
    // A child started with process.execArgv is a register-mode run of its own on the same seed.
    // It used to inherit them: it wrote its report and trace over its parent's, and said nothing.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-outputs-'));
    const report = path.join(dir, 'report.json');
    const trace = path.join(dir, 'trace.jsonl');
    const app = fileURLToPath(new URL('./fixtures/exit-summary/spawns-itself.mjs', import.meta.url));
    const runs = [1, 2].map(() => {
      const child = spawnSync(process.execPath, ['--import', REGISTER_MJS, app], {
        env: { ...env, DST_SEED: '0x1', DST_REPORT: report, DST_TRACE: trace, DST_QUIET: '1' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      const data = JSON.parse(fs.readFileSync(report, 'utf8'));
      const events = fs.readFileSync(trace, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      return { child, data, events };
    });
    fs.rmSync(dir, { recursive: true, force: true });
    for (const { child, data, events } of runs) {
      assert.equal(child.status, 0, child.stderr);
      const lines = child.stdout.trim().split('\n');
      assert.equal(lines[0], 'parent: DST_REPORT=undefined DST_TRACE=undefined DST_QUIET=undefined');
      assert.match(lines[1], /^child: DST_REPORT=undefined DST_TRACE=undefined DST_QUIET=undefined random 0\.\d+$/);
      assert.equal(lines[2], 'child exit 0, its summary: dst: seed 0x1', 'the child is a simulation of its own, and not quiet');
      assert.equal(child.stderr, '', 'the parent is quiet');
      // The report and the trace are the parent's alone: one run, its events numbered in order.
      assert.equal(data.exitCode, 0);
      assert.equal(events.filter((e) => e.kind === 'run').length, 1);
      assert.deepEqual(events.map((e) => e.n), events.map((_, i) => i));
    }
    // The child runs on the same seed: its output replays.
    assert.equal(runs[0].child.stdout, runs[1].child.stdout);
    assert.equal(runs[0].data.fingerprint, runs[1].data.fingerprint);
  });
});

describe('register mode: a program whose modules do not load is reported as such (DST_SEED=0x1)', function () {
  this.timeout(120_000);
  const DIR = fileURLToPath(new URL('./fixtures/load-failure/', import.meta.url));
  const start = (file, register) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
    return spawnSync(process.execPath, [...(register ? ['--import', REGISTER_MJS] : []), file], { cwd: DIR, env: { ...env, DST_SEED: '0x1' }, encoding: 'utf8', timeout: 60_000 });
  };
  for (const [file, head] of [
    ['duplicate-import.mjs', 'could not load a module: SyntaxError: Identifier \'net\' has already been declared'],
    ['missing-import.mjs', 'could not load a module: Error: Cannot find module'],
    ['json-error.mjs', 'crashed with an unhandled rejection: SyntaxError'],
  ]) {
    it(`${file}: exit 1 as plainly, "${head.split(':')[0]}"`, () => {
      const plain = start(file, false);
      const sim = start(file, true);
      assert.equal(plain.status, 1, plain.stderr);
      assert.equal(sim.status, 1, sim.stderr);
      assert.ok(sim.stderr.includes(`dst: host "main" ${head}`), sim.stderr);
    });
  }
});
