// The lease example without a fencing token (see lease.mjs): found by
// dst explore examples/faults/lease-buggy.mjs --seeds 300 --swarm
import { main } from './lease.mjs';

await main({ fenced: false });
