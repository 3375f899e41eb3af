// crash-recovery with every link over TLS: replicas and clients authenticate each other with
// certificates from the run's seed (mTLS, tlsCertificates()), while replicas crash, bounce and
// get partitioned and clients crash mid-transaction. Handshakes are redone after every
// reconnect, so faults land in the middle of them too.
//   node cli/dst.mjs explore packages/kv/scenarios/tls-crash-recovery.mjs --seeds 50 --jobs 2
import { kvScenario } from './lib/kv-scenario.mjs';

/** The scenario; `bugs` overrides DST_KV_BUG. */
export const tlsCrashRecovery = ({ bugs } = {}) =>
  kvScenario({
    bugs,
    tls: true,
    name: 'kv crash-recovery over TLS',
    clients: 3,
    keys: ['k1', 'k2', 'k3', 'k4', 'k5'],
    load: { readWrite: 0.5, readOnly: 0.25, thinkMs: 20 },
    faults: { crashPerSecond: 0.5, bouncePerSecond: 0.3, partitionPerSecond: 0.5, clientCrashPerSecond: 0.2 },
  });

export default tlsCrashRecovery();
