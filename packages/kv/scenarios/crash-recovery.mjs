// Three replicas and three clients over five keys; replicas crash, bounce and get partitioned,
// and clients crash mid-transaction (leaving 'unknown' outcomes in the history).
//   node cli/dst.mjs explore packages/kv/scenarios/crash-recovery.mjs --seeds 200 --jobs 2
//   DST_KV_BUG=noLongestLog node cli/dst.mjs explore packages/kv/scenarios/crash-recovery.mjs --seeds 200 --jobs 2
import { kvScenario } from './lib/kv-scenario.mjs';

/** The scenario; `bugs` overrides DST_KV_BUG. */
export const crashRecovery = ({ bugs } = {}) =>
  kvScenario({
    bugs,
    name: 'kv crash-recovery',
    clients: 3,
    keys: ['k1', 'k2', 'k3', 'k4', 'k5'],
    load: { readWrite: 0.5, readOnly: 0.25, thinkMs: 20 },
    faults: { crashPerSecond: 0.5, bouncePerSecond: 0.3, partitionPerSecond: 0.5, clientCrashPerSecond: 0.2 },
  });

export default crashRecovery();
