import assert from 'node:assert/strict';
import { ExitCode, exitCodeOfFailure, failureKindOfExitCode } from 'dst-runtime';

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
});
