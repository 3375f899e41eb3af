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

  for (const [which, code] of [['none', 0], ['code', 3], ['exit', 4], ['throw', 1], ['explicit', 5]]) {
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

  it('the hook is not an enumerable property of process', () => {
    const child = spawnSync(process.execPath, ['--import', REGISTER_MJS, '--input-type=module', '-e', "console.log(Object.keys(process).includes('emit'))"], {
      env: { ...process.env, DST_SEED: '0x1', DST_QUIET: '1' },
      encoding: 'utf8',
    });
    assert.equal(child.stdout.trim(), 'false', child.stderr);
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
