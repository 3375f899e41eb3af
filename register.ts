/**
 * `node --import dst-runtime/register app.js` (or `--require`): runs app.js as simulated host
 * "main" on virtual time, under DST_SEED. Load it first, before any other preload.
 *
 * This entry only turns on a compile cache (runtime/compile-cache.ts: Node's own, or on Node 20
 * the runtime's own for its chunks), loads the runtime (register-start.ts, built apart as
 * dist/register-start.cjs) and starts it: the cache must be on before the runtime's code is
 * compiled, and a bundle's imports all load before its first line.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { enableCompileCache, OwnCodeCache, ownCodeCacheDir } from './runtime/compile-cache.js';

type Runtime = { startRegisterMode: () => unknown; onRealDisk: (work: () => void) => void };
const load = (): Runtime => createRequire(__filename)('./register-start.cjs') as Runtime;
const ownCacheDir = enableCompileCache() ? undefined : ownCodeCacheDir();
const ownCache = ownCacheDir === undefined ? undefined : new OwnCodeCache(path.join(__dirname, 'chunks'), ownCacheDir);
const runtime = ownCache === undefined ? load() : ownCache.during(load);
runtime.startRegisterMode();
if (ownCache !== undefined) runtime.onRealDisk(() => ownCache.save());
