// The retry example without de-duplication (see retry.mjs): found by
// dst explore examples/faults/retry-buggy.mjs --seeds 300 --swarm
import { main } from './retry.mjs';

await main({ dedup: false });
