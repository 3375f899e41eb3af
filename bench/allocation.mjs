/**
 * Bytes allocated per event by one benchmark case, by allocation site, from V8's sampling heap
 * profiler with collected objects kept (short-lived garbage, most of an event's, counts too):
 *
 *     node bench/allocation.mjs sim-timers                      # one warm-up run, one sampled run
 *     node --no-turbo-inlining bench/allocation.mjs sim-timers  # exact sites (inlining blurs them)
 *
 * Sampled (one sample per KiB on average): totals move by a few percent from run to run.
 */
import { Session } from 'node:inspector/promises';
import { CASES } from './cases.mjs';
import { SIZES } from './workloads.mjs';

const [caseName = 'sim-timers', sitesText = '20'] = process.argv.slice(2);
const runCase = CASES[caseName];
if (runCase === undefined) {
  console.error(`usage: node bench/allocation.mjs <${Object.keys(CASES).join('|')}> [sites]`);
  process.exit(2);
}
const session = new Session();
session.connect();
await runCase(SIZES.full); // warm-up
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 1024,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const result = await runCase(SIZES.full);
const { profile } = await session.post('HeapProfiler.stopSampling');

/** Bytes by allocating function and its two callers (as the profile's frames name them). */
const bySite = new Map();
let total = 0;
(function walk(node, callers) {
  const frame = node.callFrame;
  const here = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop()}:${frame.lineNumber + 1}`;
  if (node.selfSize > 0) {
    const key = `${here}  <- ${callers.slice(-2).reverse().join(' <- ')}`;
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
  }
  for (const child of node.children) walk(child, [...callers, here]);
})(profile.head, []);
console.log(`${caseName}: ${result.events} events, ${(total / result.events).toFixed(1)} bytes allocated per event (sampled)`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(sitesText))) {
  console.log(`${(bytes / result.events).toFixed(1).padStart(8)}  ${site}`);
}
