// The KV scenarios under runScenario: the correct store passes a seed; a planted bug fails one,
// identically on replay. The history checker (dst-runtime/check) runs at the end of each seed.
import assert from 'node:assert/strict';
import { runScenario } from 'dst-runtime';

const { crashRecovery } = await import('../../packages/kv/scenarios/crash-recovery.mjs');
const { tlsCrashRecovery } = await import('../../packages/kv/scenarios/tls-crash-recovery.mjs');

describe('kv scenarios', function () {
  this.timeout(120_000);

  it('crash-recovery passes with the correct store (seed 0x1) and replays identically', async () => {
    const scenario = crashRecovery({ bugs: {} });
    const [a, b] = [await runScenario(scenario, 1), await runScenario(scenario, 1)];
    assert.equal(a.ok, true, JSON.stringify(a.failure));
    assert.equal(a.fingerprint, b.fingerprint);
    assert.ok(a.coverage.some((c) => c.message === 'a restarted replica recovered' && c.hits > 0));
  });

  it('crash-recovery finds the noLongestLog bug (seed 0x2), identically on replay', async () => {
    const scenario = crashRecovery({ bugs: { noLongestLog: true } });
    const [a, b] = [await runScenario(scenario, 2), await runScenario(scenario, 2)];
    assert.equal(a.ok, false);
    assert.equal(a.failure.kind, 'safety');
    assert.match(a.failure.message, /CommittedNeverRegresses|CommittedLogAgrees|AckedCommitsSurvive/);
    assert.equal(a.fingerprint, b.fingerprint);
  });

  it('the history checker finds the staleReads bug (seed 0x1): a G-single read skew, at the end', async () => {
    const scenario = crashRecovery({ bugs: { staleReads: true } });
    const [a, b] = [await runScenario(scenario, 1), await runScenario(scenario, 1)];
    assert.equal(a.ok, false);
    assert.equal(a.failure.kind, 'liveness');
    assert.match(a.failure.message, /Serializable: .*G-single/s);
    assert.equal(a.fingerprint, b.fingerprint);
  });

  it('crash-recovery over TLS (mTLS between every replica and client) passes seed 0x1 and replays identically', async () => {
    const scenario = tlsCrashRecovery({ bugs: {} });
    const [a, b] = [await runScenario(scenario, 1), await runScenario(scenario, 1)];
    assert.equal(a.ok, true, JSON.stringify(a.failure));
    assert.equal(a.fingerprint, b.fingerprint);
    assert.equal(a.events, b.events);
    assert.ok(a.coverage.some((c) => c.message === 'a restarted replica recovered' && c.hits > 0));
    // Not the plain scenario under another name: TLS adds handshakes, so the run differs.
    const plain = await runScenario(crashRecovery({ bugs: {} }), 1);
    assert.notEqual(plain.fingerprint, a.fingerprint);
  });
});
