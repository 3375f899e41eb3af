// The CLI explains itself (issue 22, item 5): help and version, flag syntax and ownership,
// errors before any seed runs, stacks without dst-runtime's frames, pasteable replay lines.
import assert from 'node:assert/strict';
import Module from 'node:module';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExitCode } from 'dst-runtime';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COUNTER = 'examples/scenarios/replicated-counter.mjs';
const CRASH = 'test/scenario/fixtures/crash.mjs';
const REGISTER = path.join(ROOT, 'dist', 'register.mjs');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dst-usage-'));
const PKG = JSON.parse((await import('node:fs')).readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

function run(args, { env = {}, cwd = ROOT, node = [] } = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, [...node, ...args], { cwd, env: { ...process.env, DST_COUNTER_BUG: '', DST_DEBUG: '', ...env } }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}
const dst = (args, options) => run([path.join(ROOT, 'cli/dst.mjs'), ...args], options);

describe('dst explains itself', function () {
  this.timeout(120_000);

  it('help, -h, --help, help <command>, <command> --help and --version print to stdout and exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const r = await dst(args);
      assert.equal(r.code, 0, args.join(' '));
      assert.equal(r.stderr, '');
      for (const command of ['run', 'explore', 'check', 'replay', 'merge-reports', 'shrink', 'view', 'trace export']) assert.match(r.stdout, new RegExp(`dst ${command} `));
      for (const code of [0, 1, 64, 70, 71, 72, 73, 74, 75]) assert.match(r.stdout, new RegExp(`^  ${code} +\\S`, 'm'), `exit code ${code} listed`);
    }
    for (const args of [['run', '--help'], ['help', 'run'], ['run', 'x.mjs', '-h']]) {
      const r = await dst(args);
      assert.equal(r.code, 0);
      assert.match(r.stdout, /^usage: dst run <file>/);
      assert.match(r.stdout, /--schedule s\.json/);
      assert.match(r.stdout, /^ {2}75 /m);
    }
    const version = await dst(['--version']);
    assert.deepEqual([version.code, version.stdout.trim()], [0, PKG.version]);
  });

  it('takes --seed=5 as --seed 5; a flag of another command is an error; --seeds is required', async () => {
    const env = { env: { DST_COUNTER_BUG: '1' } };
    const [spaced, joined] = [await dst(['run', COUNTER, '--seed', '0x6'], env), await dst(['run', COUNTER, '--seed=0x6'], env)];
    assert.equal(joined.code, ExitCode.safety);
    assert.equal(joined.stdout, spaced.stdout);
    const foreign = await dst(['run', COUNTER, '--seeds', '5']);
    assert.equal(foreign.code, ExitCode.usage);
    assert.match(foreign.stderr, /--seeds is not a flag of dst run \(it belongs to dst explore\)/);
    const missing = await dst(['explore', COUNTER]);
    assert.equal(missing.code, ExitCode.usage);
    assert.match(missing.stderr, /--seeds is required/);
    const unknown = await dst(['frobnicate']);
    assert.equal(unknown.code, ExitCode.usage);
    assert.match(unknown.stderr, /unknown command frobnicate/);
  });

  it('an unwritable --report or --out fails with 64 before any seed runs', async () => {
    const nowhere = path.join(tmp, 'no', 'such', 'dir', 'r.json');
    const explore = await dst(['explore', COUNTER, '--seeds', '50', '--report', nowhere]);
    assert.equal(explore.code, ExitCode.usage);
    assert.match(explore.stderr, /Failed to write --report .*r\.json: no such directory/);
    assert.doesNotMatch(explore.stderr, /seeds\/s/);
    const merge = await dst(['merge-reports', 'a.json', '--out', nowhere]);
    assert.equal(merge.code, ExitCode.usage);
    assert.match(merge.stderr, /Failed to write --out/);
    const register = await run([path.join(ROOT, CRASH)], { node: ['--import', REGISTER], env: { DST_REPORT: nowhere } });
    assert.equal(register.code, ExitCode.usage);
    assert.match(register.stderr, /^dst: Failed to write DST_REPORT=.*: no such directory\n$/);
  });

  it('DST_STRICT takes 0 or 1 only; an empty DST_SEED is unset (a fresh seed, printed)', async () => {
    const strict = await dst(['run', COUNTER], { env: { DST_STRICT: 'no' } });
    assert.equal(strict.code, ExitCode.usage);
    assert.match(strict.stderr, /Failed to parse DST_STRICT: "no" is not 0 or 1/);
    const program = path.join(tmp, 'hello.mjs');
    writeFileSync(program, 'console.log("hello");\n');
    const strictRegister = await run([program], { node: ['--import', REGISTER], env: { DST_STRICT: 'true' } });
    assert.equal(strictRegister.code, ExitCode.usage);
    const empty = await run([program], { node: ['--import', REGISTER], env: { DST_SEED: '' } });
    assert.equal(empty.code, 0);
    assert.match(empty.stderr, /^dst: seed 0x[0-9a-f]+ {2}fingerprint/m);
  });

  it('a missing program in register mode is one clean line, as dst run says it', async () => {
    const missing = path.join(tmp, 'missing.mjs');
    const register = await run([missing], { node: ['--import', REGISTER] });
    assert.equal(register.code, ExitCode.usage);
    assert.equal(register.stderr, `dst: Failed to load ${missing}: no such file\n`);
    const cli = await dst(['run', missing]);
    assert.equal(cli.code, ExitCode.usage);
    assert.match(cli.stderr, new RegExp(`^dst: Failed to load ${missing}: no such file\\n`));
  });

  it('a host crash shows its stack, without dst-runtime\'s own frames unless DST_DEBUG=1', async () => {
    const plain = await dst(['run', CRASH]);
    assert.equal(plain.code, ExitCode.hostCrash);
    assert.match(plain.stdout, /FAILED +crash: Error: boom\n/);
    assert.match(plain.stdout, /^ {4}at Timeout\._onTimeout \(.*test\/scenario\/fixtures\/crash\.mjs:7:\d+\)$/m);
    assert.doesNotMatch(plain.stdout, /dist\/|World\.invoke|Driver\.step/);
    const debug = await dst(['run', CRASH], { env: { DST_DEBUG: '1' } });
    assert.match(debug.stdout, /at World\.invoke \(.*dist\//);
    // Register mode: Node's own report of the uncaught exception, and the seed block.
    const program = path.join(tmp, 'boom.mjs');
    writeFileSync(program, 'setTimeout(() => { throw new Error("boom"); }, 5);\n');
    const register = await run([program], { node: ['--import', REGISTER], env: { DST_SEED: '1' } });
    assert.equal(register.code, 1);
    assert.match(register.stderr, /at Timeout\._onTimeout \(file:.*boom\.mjs:1:\d+\)/);
    assert.doesNotMatch(register.stderr, /dist\/chunks|World\.invoke|Driver\.step/);
  });

  it('replay lines are pasteable where printed: node cli/dst.mjs inside the checkout, dst-runtime/register in a dst run child', async () => {
    const program = path.join(tmp, 'boom.mjs');
    const r = await dst(['run', program, '--seed', '0x1']);
    assert.equal(r.code, 1);
    // The child's own seed block: the package's register entry, not the build's file:// path.
    // Where loader hooks run on a thread of their own (Node 20), dst run holds dynamic imports, and says so.
    const held = typeof Module.registerHooks === 'function' ? '' : 'DST_HELD_IMPORTS=1 ';
    assert.match(r.stderr, new RegExp(`replay +DST_SEED=0x1 ${held}node --import dst-runtime/register ${program}\\n`));
    assert.match(r.stdout, new RegExp(`replay +node cli/dst\\.mjs run ${program} --seed 0x1$`, 'm'));
    // From another directory: the path to the CLI as it can be run from there.
    const elsewhere = await dst(['run', path.join(ROOT, COUNTER), '--seed', '0x6'], { cwd: tmp, env: { DST_COUNTER_BUG: '1' } });
    assert.match(elsewhere.stdout, new RegExp(`replay +DST_COUNTER_BUG=1 node ${path.join(ROOT, 'cli/dst.mjs')} run ${path.join(ROOT, COUNTER)} --seed 0x6$`, 'm'));
    assert.ok(existsSync(path.join(ROOT, 'cli/dst.mjs')));
  });

  it('dst replay counts failing seeds from 0, as --index does', async () => {
    const report = path.join(tmp, 'r.json');
    const explore = await dst(['explore', COUNTER, '--seeds', '16', '--jobs', '2', '--report', report], { env: { DST_COUNTER_BUG: '1' } });
    assert.equal(explore.code, ExitCode.safety);
    assert.ok(JSON.parse((await import('node:fs')).readFileSync(report, 'utf8')).failing.length >= 2);
    const first = await dst(['replay', report]);
    assert.match(first.stdout, /\(--index 0: the first of the \d+ failing seed\(s\) in .*r\.json, counted from 0\)/);
    const second = await dst(['replay', report, '--index=1']);
    assert.match(second.stdout, /\(--index 1: the second of the \d+ failing seed\(s\)/);
    const out = await dst(['replay', report, '--index', '99']);
    assert.equal(out.code, ExitCode.usage);
    assert.match(out.stderr, /--index must be an integer in \[0, \d+\]/);
  });
});
