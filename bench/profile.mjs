/**
 * Runs one benchmark case a few times in this process, for profiling (the workers of run.mjs
 * need an IPC channel):
 *
 *     node --cpu-prof --cpu-prof-dir=.tmp/prof --expose-gc bench/profile.mjs sim-timers 3
 *     node bench/profile-summary.mjs .tmp/prof/<file>.cpuprofile 40
 *
 * Prints CPU and wall ns per event of each run.
 */
import { CASES } from './cases.mjs';
import { SIZES } from './workloads.mjs';

const [caseName, runsText = '3', sizeName = 'full'] = process.argv.slice(2);
const runCase = CASES[caseName];
const sizes = SIZES[sizeName];
if (runCase === undefined || sizes === undefined) {
  console.error(`usage: node bench/profile.mjs <${Object.keys(CASES).join('|')}> [runs] [full|quick]`);
  process.exit(2);
}
for (let i = 0; i < Number(runsText); i++) {
  if (typeof globalThis.gc === 'function') globalThis.gc();
  const r = await runCase(sizes);
  const fingerprint = r.fingerprint === undefined ? '' : `, fingerprint ${r.fingerprint}`;
  console.log(
    `${caseName} run ${i + 1}: ${(r.cpuNs / r.events).toFixed(0)} ns CPU, ${(r.wallNs / r.events).toFixed(0)} ns wall per event` +
      ` (${r.events} events)${fingerprint}`,
  );
}
