import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ExitCode, FAILURE_EXIT_CODES, exitCodeOfFailure, failureKindOfExitCode } from 'dst-runtime';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Every FailureKind (runtime/failure.ts) with the code register mode and the CLI both exit with. */
const EXPECTED = {
  crash: ExitCode.hostCrash,
  'unhandled-rejection': ExitCode.hostCrash,
  limit: ExitCode.limit,
  safety: ExitCode.safety,
  liveness: ExitCode.liveness,
  nondeterminism: ExitCode.nondeterminism,
  escape: ExitCode.escape,
  idle: ExitCode.idle,
  aborted: ExitCode.aborted,
};

describe('exit codes of failure kinds (shared by register mode and the dst CLI)', () => {
  it('maps every failure kind to its documented code, all of them distinct from ok and usage', () => {
    for (const [kind, code] of Object.entries(EXPECTED)) {
      assert.equal(exitCodeOfFailure(kind), code, kind);
      assert.notEqual(code, ExitCode.ok);
      assert.notEqual(code, ExitCode.usage);
    }
  });

  it('reads a code back as its kind (1 as a crash), and a program\'s own code as no kind', () => {
    for (const [kind, code] of Object.entries(EXPECTED)) {
      assert.equal(failureKindOfExitCode(code), kind === 'unhandled-rejection' ? 'crash' : kind);
    }
    assert.equal(failureKindOfExitCode(0), undefined);
    assert.equal(failureKindOfExitCode(3), undefined);
    assert.equal(failureKindOfExitCode(ExitCode.usage), undefined);
  });

  it('is one exported table, gravest kind first, that the dst CLI and the docs follow', () => {
    assert.deepEqual(Object.keys(FAILURE_EXIT_CODES).sort(), Object.keys(EXPECTED).sort());
    for (const [kind, code] of Object.entries(FAILURE_EXIT_CODES)) assert.equal(code, EXPECTED[kind], kind);
    assert.ok(Object.isFrozen(FAILURE_EXIT_CODES));
    assert.deepEqual(Object.keys(FAILURE_EXIT_CODES).slice(0, 3), ['nondeterminism', 'safety', 'liveness']);
    const usage = spawnSync(process.execPath, [`${ROOT}cli/dst.mjs`], { encoding: 'utf8' });
    assert.equal(usage.status, ExitCode.usage);
    // `dst --help` lists every code of ExitCode, each with what it means, in ExitCode's order.
    const help = spawnSync(process.execPath, [`${ROOT}cli/dst.mjs`, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, ExitCode.ok);
    const block = help.stdout.slice(help.stdout.indexOf('exit codes:\n'));
    const listed = [...block.matchAll(/^ {2}(\d+) +(.+)$/gm)].map((m) => [Number(m[1]), m[2]]);
    assert.deepEqual(listed.map(([code]) => code), Object.values(ExitCode));
    for (const [code, meaning] of listed) {
      const name = Object.keys(ExitCode).find((n) => ExitCode[n] === code);
      assert.notEqual(meaning, name, `exit code ${code} is explained, not only named`);
    }
    const readme = /Exit codes: ([^#]*?)\n\n/.exec(readFileSync(`${ROOT}README.md`, 'utf8'))?.[1] ?? '';
    const guide = /Exit codes \(all commands\): ([^#]*?)\n\n/.exec(readFileSync(`${ROOT}docs/guide.md`, 'utf8'))?.[1] ?? '';
    for (const code of Object.values(ExitCode)) {
      assert.match(readme, new RegExp(`\\b${code}\\b`), `README.md's exit codes name ${code}`);
      assert.match(guide, new RegExp(`\\b${code}\\b`), `docs/guide.md's exit codes name ${code}`);
    }
  });
});
