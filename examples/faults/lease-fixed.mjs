// The lease example with a fencing token (see lease.mjs): clean on the same seeds.
import { main } from './lease.mjs';

await main({ fenced: true });
