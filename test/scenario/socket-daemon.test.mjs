// examples/scenarios/socket-daemon.mjs: a daemon on a unix socket under crash and kill faults,
// on a simulated disk. The fixed daemon (it unlinks a stale socket file before listening) passes;
// the planted bug (it listens over the file a crash left) dies with EADDRINUSE at its next boot,
// and that failure replays exactly. Regression seed 0x1 pinned.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { runScenario } from 'dst-runtime';
import { socketDaemonScenario } from '../../examples/scenarios/socket-daemon.mjs';

describe('a unix-socket daemon under crashes (examples/scenarios/socket-daemon.mjs)', function () {
  this.timeout(120_000);

  it('the fixed daemon serves again after every crash and kill (seeds 1-10)', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const result = await runScenario(socketDaemonScenario({ bug: false }), seed);
      assert.equal(result.ok, true, `seed ${seed}: ${JSON.stringify(result.failure)}`);
    }
  });

  it('the planted bug fails with listen EADDRINUSE on the stale socket file, the same way twice (seed 0x1)', async () => {
    const buggy = socketDaemonScenario({ bug: true });
    const runs = [await runScenario(buggy, 1), await runScenario(buggy, 1)];
    for (const run of runs) {
      assert.equal(run.ok, false);
      assert.equal(run.failure.kind, 'crash');
      assert.match(run.failure.message, /listen EADDRINUSE: address already in use run\/daemon\.sock/);
      assert.equal(run.fingerprint, runs[0].fingerprint);
    }
    // The socket's file lived on the simulated disk only.
    assert.equal(fs.existsSync('run/daemon.sock'), false);
  });
});
