/**
 * Compares two checkouts of dst-runtime (each built) on one case, with a baseline, in
 * alternating processes: on a shared machine, where load comes and goes within a minute, only
 * back-to-back interleaved runs tell two revisions apart.
 *
 *     node bench/compare.mjs <old checkout> <new checkout> [rounds=4] [case=sim-timers] [baseline] [runs=4]
 *     /path/to/other/node bench/compare.mjs ...   # the same with that Node binary
 *
 * Each round runs `bench/profile.mjs <case> <runs>` in each checkout and the baseline case in the
 * new one (the driver ceiling unless named: `floor-timers` is figure 1's workload floor; order
 * reversed every other round); the first run of every process is a warm-up. The same build
 * measures differently from one process to the next (docs/benchmarks.md), so each process
 * counts once: its median run. Prints the median over processes of CPU and wall ns per event,
 * the range of the process medians, each checkout's ratio to the baseline, and the load average
 * before and after.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const [oldDir, newDir, roundsText = '4', caseName = 'sim-timers', baselineCase = 'baseline-immediate-als', runsText = '4'] =
  process.argv.slice(2);
if (oldDir === undefined || newDir === undefined) {
  console.error('usage: node bench/compare.mjs <old checkout> <new checkout> [rounds] [case] [baseline case] [runs per process]');
  process.exit(2);
}
const subjects = [
  { label: `old ${caseName}`, dir: path.resolve(oldDir), caseName },
  { label: `new ${caseName}`, dir: path.resolve(newDir), caseName },
  { label: `${baselineCase} (new checkout)`, dir: path.resolve(newDir), caseName: baselineCase },
];
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const loadBefore = load();
/** Per subject, per process: the median of its measured runs. */
const perProcess = subjects.map(() => ({ cpu: [], wall: [] }));
/** Fingerprints of the simulated runs, by subject: the two checkouts must agree, run after run. */
const fingerprints = subjects.map(() => new Set());
for (let round = 0; round < Number(roundsText); round++) {
  const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
  for (const i of order) {
    const { dir, caseName: name } = subjects[i];
    const out = execFileSync(process.execPath, ['--expose-gc', 'bench/profile.mjs', name, runsText], { cwd: dir, encoding: 'utf8' });
    const cpu = [];
    const wall = [];
    for (const line of out.trim().split('\n').slice(1)) {
      const m = /: (\d+) ns CPU, (\d+) ns wall/.exec(line);
      if (m === null) throw new Error(`Failed to parse profile output: ${line}`);
      cpu.push(Number(m[1]));
      wall.push(Number(m[2]));
      const fingerprint = /fingerprint (\w+)/.exec(line);
      if (fingerprint !== null) fingerprints[i].add(fingerprint[1]);
    }
    perProcess[i].cpu.push(median(cpu));
    perProcess[i].wall.push(median(wall));
    // Progress, one line per process (a slow machine can take minutes per round).
    console.error(`  round ${round + 1}: ${subjects[i].label}: ${median(cpu)} ns CPU, ${median(wall)} ns wall per event (load ${load()})`);
  }
}
const cpu = perProcess.map((s) => median(s.cpu));
const wall = perProcess.map((s) => median(s.wall));
const range = (values) => `${Math.min(...values)}-${Math.max(...values)}`;
console.log(`node ${process.version}, ${Number(roundsText)} processes per subject, ${Number(runsText) - 1} measured runs each; load ${loadBefore} -> ${load()}`);
subjects.forEach((s, i) =>
  console.log(
    `  ${s.label.padEnd(34)} ${String(cpu[i]).padStart(6)} ns CPU (processes ${range(perProcess[i].cpu)})  ${String(wall[i]).padStart(6)} ns wall per event`,
  ),
);
const seen = new Set([...fingerprints[0], ...fingerprints[1]]);
if (seen.size > 1) console.log(`  FINGERPRINTS DIFFER: old ${[...fingerprints[0]].join(' ')}, new ${[...fingerprints[1]].join(' ')}`);
else if (seen.size === 1) console.log(`  fingerprint ${[...seen][0]} in every run of both checkouts`);
for (const i of [0, 1]) {
  console.log(`  ${subjects[i].label.padEnd(34)} / baseline: ${((wall[2] / wall[i]) * 100).toFixed(0)}% wall, ${((cpu[2] / cpu[i]) * 100).toFixed(0)}% CPU`);
}
