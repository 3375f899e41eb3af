// The failover example without a leader lease (see failover.mjs): found by
// dst explore examples/faults/failover-buggy.mjs --seeds 300 --swarm
import { main } from './failover.mjs';

await main({ leased: false });
