/**
 * `node --import dst-runtime/register app.js` (or `--require`): runs app.js as simulated host
 * "main" on virtual time, under DST_SEED. Load it first, before any other preload.
 *
 * This entry only turns on Node's compile cache (runtime/compile-cache.ts) and then loads the
 * runtime (register-start.ts, built apart as dist/register-start.cjs): the cache must be on
 * before the runtime's code is compiled, and a bundle's imports all load before its first line.
 */
import { createRequire } from 'node:module';
import { enableCompileCache } from './runtime/compile-cache.js';

enableCompileCache();
createRequire(__filename)('./register-start.cjs');
