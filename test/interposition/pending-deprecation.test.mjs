/**
 * `--pending-deprecation` wraps process.binding in a once-only DEP0111 warning. The shims take
 * Node's bindings through it (shims/node-binding.ts); the program must see exactly what plain
 * Node shows: one warning at its own first call, none at startup, and with
 * `--throw-deprecation` no crash before its code runs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childEnv, runProgram } from '../support/programs.mjs';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const PROGRAM = 'pending-deprecation.mjs';

function both(env) {
  const plain = runProgram(FIXTURES, PROGRAM, { env });
  const simulated = runProgram(FIXTURES, PROGRAM, { seed: '0x5eed', env });
  const context = `\n--- plain stderr ---\n${plain.stderr}\n--- simulated stderr ---\n${simulated.stderr}`;
  return { plain, simulated, context };
}

describe('--pending-deprecation: the shims take their bindings without a warning of their own', function () {
  it('NODE_PENDING_DEPRECATION=1: one DEP0111 warning, at the program\'s first process.binding call', function () {
    const { plain, simulated, context } = both({ NODE_PENDING_DEPRECATION: '1' });
    assert.match(plain.stdout, /first call returned the fs binding: true\nsecond call done\nwarning event: DeprecationWarning DEP0111/);
    assert.equal(plain.warnings.length, 1, plain.stderr);
    assert.equal(simulated.stdout, plain.stdout, context);
    assert.deepEqual(simulated.warnings, plain.warnings, context);
    assert.equal(simulated.status, plain.status, context);
  });

  it('--pending-deprecation --throw-deprecation: the program runs, and its own first call throws', function () {
    const { plain, simulated, context } = both({ NODE_OPTIONS: '--pending-deprecation --throw-deprecation' });
    assert.equal(plain.status, 1, plain.stderr);
    assert.match(plain.stderr, /DeprecationWarning: process\.binding\(\) is deprecated/);
    assert.equal(simulated.stdout, plain.stdout, context);
    assert.equal(simulated.status, plain.status, context);
    assert.match(simulated.stderr, /DeprecationWarning: process\.binding\(\) is deprecated/);
  });

  it('--trace-deprecation: the warning\'s stack starts at the program\'s call', function () {
    const env = { NODE_OPTIONS: '--pending-deprecation --trace-deprecation' };
    const { plain, simulated, context } = both(env);
    const firstFrame = (stderr) => stderr.split('\n').find((line) => /^\s+at /.test(line))?.trim();
    assert.match(firstFrame(plain.stderr) ?? '', /pending-deprecation\.mjs:6:/, plain.stderr);
    assert.equal(firstFrame(simulated.stderr), firstFrame(plain.stderr), context);
  });

  it('library mode: importing dst-runtime warns of nothing, and process.binding is untouched without the flag', function () {
    const script = `
      const before = process.binding;
      const { Sim } = await import('dst-runtime');
      const sim = new Sim({ seed: 1 });
      sim.client('c', () => new Promise((resolve) => setTimeout(resolve, 10)));
      await sim.run();
      console.log(JSON.stringify({ same: process.binding === before }));
    `;
    const run = (env) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: childEnv(env), encoding: 'utf8' });
    const flagged = run({ NODE_PENDING_DEPRECATION: '1' });
    assert.equal(flagged.status, 0, flagged.stderr);
    assert.doesNotMatch(flagged.stderr, /DEP0111/);
    const plain = run({});
    assert.equal(plain.status, 0, plain.stderr);
    assert.deepEqual(JSON.parse(plain.stdout), { same: true });
  });

  it('without flags: the program\'s own process.binding(\'crypto\') calls warn as plainly, process.binding(\'fs\') not at all', function () {
    const plain = runProgram(FIXTURES, 'binding-crypto.mjs', {});
    const simulated = runProgram(FIXTURES, 'binding-crypto.mjs', { seed: '0x5eed' });
    const context = `\n--- plain stderr ---\n${plain.stderr}\n--- simulated stderr ---\n${simulated.stderr}`;
    assert.match(plain.stdout, /done\n$/);
    assert.equal(simulated.stdout, plain.stdout, context);
    assert.deepEqual(simulated.warnings, plain.warnings, context);
  });
});
