// Partitions dominate: two-way and one-way partitions and holds between replicas, a few crashes.
// One-way partitions are the nasty case for VR: a replica that hears the primary but cannot
// answer it, or the reverse, drives view changes the others must converge on.
//   node cli/dst.mjs explore packages/kv/scenarios/partition-heavy.mjs --seeds 200 --jobs 2
import { kvScenario } from './lib/kv-scenario.mjs';

/** The scenario; `bugs` overrides DST_KV_BUG. */
export const partitionHeavy = ({ bugs } = {}) =>
  kvScenario({
    bugs,
    name: 'kv partition-heavy',
    clients: 3,
    keys: ['k1', 'k2', 'k3', 'k4', 'k5'],
    load: { readWrite: 0.5, readOnly: 0.25, thinkMs: 20 },
    faults: { partitionPerSecond: 2, partitionOnewayPerSecond: 1, holdPerSecond: 0.5, crashPerSecond: 0.2, downMsMin: 50, downMsMax: 1_500 },
    minCommits: 30,
  });

export default partitionHeavy();
