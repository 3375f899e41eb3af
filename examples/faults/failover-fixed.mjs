// The failover example with a leader lease (see failover.mjs): clean on the same seeds.
import { main } from './failover.mjs';

await main({ leased: true });
