// Register mode keeps each failure kind's exit code: an always() violation in a plain program is
// a safety failure (71), not a limit (70), so `dst run app.mjs` reports it as one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ExitCode } from 'dst-runtime';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('register mode exit codes per failure kind', () => {
  it('an always() violation exits with ExitCode.safety and prints the seed block (seed 7)', () => {
    const run = spawnSync(process.execPath, ['--import', 'dst-runtime/register', 'test/scenario/fixtures/app-always.mjs'], {
      cwd: root,
      env: { ...process.env, DST_SEED: '7' },
      encoding: 'utf8',
    });
    assert.equal(run.status, ExitCode.safety, run.stderr);
    assert.match(run.stderr, /SafetyViolation: always: x must hold/);
    assert.match(run.stderr, /seed {5}0x7/);
    assert.match(run.stderr, /replay {3}DST_SEED=0x7 /);
  });
});
