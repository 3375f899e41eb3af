/**
 * Runs one benchmark case in its own process, so no case's JIT state or heap colours another's.
 * The parent (bench/run.mjs) sends `{ run: 'warmup' | 'rep' }` over IPC and gets back one
 * `{ result }` (or `{ error }`) per request; it alternates requests between the workers of one
 * figure, so load from elsewhere on the machine falls on every subject alike.
 *
 *     spawned as: node --expose-gc bench/worker.mjs <case> <full|quick>
 */
import { CASES } from './cases.mjs';
import { SIZES } from './workloads.mjs';

const [caseName, sizeName] = process.argv.slice(2);
const runCase = CASES[caseName];
const sizes = SIZES[sizeName];
if (runCase === undefined || sizes === undefined || process.send === undefined) {
  console.error(`Failed to start benchmark worker: unknown case "${caseName}" or size "${sizeName}", or no IPC channel`);
  process.exit(2);
}

function collectGarbage() {
  // Start each run with a clean heap, so one run's garbage is not billed to the next.
  if (typeof globalThis.gc === 'function') globalThis.gc();
}

process.on('message', async (message) => {
  if (message.exit) {
    process.disconnect();
    return;
  }
  try {
    collectGarbage();
    const result = await runCase(sizes);
    process.send({ result });
  } catch (error) {
    process.send({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
process.send({ ready: true });
