/**
 * Runs one benchmark case in a fresh process (so no case's JIT state or heap colours another):
 * warm-ups first, then the measured repetitions. Prints one JSON line on stdout.
 *
 *     node --expose-gc bench/worker.mjs <case> <full|quick> <warmups> <reps>
 */
import { CASES } from './cases.mjs';
import { SIZES } from './workloads.mjs';

const [caseName, sizeName, warmupsText, repsText] = process.argv.slice(2);
const runCase = CASES[caseName];
const sizes = SIZES[sizeName];
if (runCase === undefined || sizes === undefined) {
  console.error(`Failed to run benchmark worker: unknown case "${caseName}" or size "${sizeName}"`);
  process.exit(2);
}

function collectGarbage() {
  // Start each repetition with a clean heap, so one run's garbage is not billed to the next.
  if (typeof globalThis.gc === 'function') globalThis.gc();
}

const warmups = [];
for (let i = 0; i < Number(warmupsText); i++) {
  collectGarbage();
  warmups.push(await runCase(sizes));
}
const reps = [];
for (let i = 0; i < Number(repsText); i++) {
  collectGarbage();
  reps.push(await runCase(sizes));
}
process.stdout.write(`${JSON.stringify({ case: caseName, size: sizeName, warmups, reps })}\n`);
