// The retry example with de-duplication by request id (see retry.mjs): clean on the same seeds.
import { main } from './retry.mjs';

await main({ dedup: true });
