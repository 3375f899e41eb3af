// Contention: four clients without think time on two keys, so most transactions conflict;
// validation must abort exactly the ones whose reads went stale, across crashes and partitions.
//   node cli/dst.mjs explore packages/kv/scenarios/contention.mjs --seeds 200 --jobs 2
import { kvScenario } from './lib/kv-scenario.mjs';

/** The scenario; `bugs` overrides DST_KV_BUG. */
export const contention = ({ bugs } = {}) =>
  kvScenario({
    bugs,
    name: 'kv contention',
    clients: 4,
    keys: ['x', 'y'],
    load: { readWrite: 0.6, readOnly: 0.3, thinkMs: 0 },
    faults: { crashPerSecond: 0.3, bouncePerSecond: 0.2, partitionPerSecond: 0.3 },
    durationMs: 20_000,
    healMs: 5_000,
  });

export default contention();
