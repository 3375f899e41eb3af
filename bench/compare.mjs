/**
 * Compares two checkouts of dst-runtime (each built) on one case, with the driver ceiling, in
 * alternating processes: on a shared machine, where load comes and goes within a minute, only
 * back-to-back interleaved runs tell two revisions apart.
 *
 *     node bench/compare.mjs <old checkout> <new checkout> [rounds=4] [case=sim-timers]
 *     /path/to/other/node bench/compare.mjs ...   # the same with that Node binary
 *
 * Each round runs `bench/profile.mjs <case> 4` in each checkout and the ceiling in the new one
 * (order reversed every other round); the first run of every process is a warm-up. Prints the
 * median CPU and wall ns per event, and each checkout's ratio to the ceiling.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const [oldDir, newDir, roundsText = '4', caseName = 'sim-timers'] = process.argv.slice(2);
if (oldDir === undefined || newDir === undefined) {
  console.error('usage: node bench/compare.mjs <old checkout> <new checkout> [rounds] [case]');
  process.exit(2);
}
const subjects = [
  { label: `old ${caseName}`, dir: path.resolve(oldDir), caseName },
  { label: `new ${caseName}`, dir: path.resolve(newDir), caseName },
  { label: 'ceiling (new checkout)', dir: path.resolve(newDir), caseName: 'baseline-immediate-als' },
];
const samples = subjects.map(() => ({ cpu: [], wall: [] }));
for (let round = 0; round < Number(roundsText); round++) {
  const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
  for (const i of order) {
    const { dir, caseName: name } = subjects[i];
    const out = execFileSync(process.execPath, ['--expose-gc', 'bench/profile.mjs', name, '4'], { cwd: dir, encoding: 'utf8' });
    for (const line of out.trim().split('\n').slice(1)) {
      const m = /: (\d+) ns CPU, (\d+) ns wall/.exec(line);
      if (m === null) throw new Error(`Failed to parse profile output: ${line}`);
      samples[i].cpu.push(Number(m[1]));
      samples[i].wall.push(Number(m[2]));
    }
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const cpu = samples.map((s) => median(s.cpu));
const wall = samples.map((s) => median(s.wall));
console.log(`node ${process.version}, ${Number(roundsText)} rounds, 3 measured runs per process`);
subjects.forEach((s, i) => console.log(`  ${s.label.padEnd(28)} ${String(cpu[i]).padStart(6)} ns CPU  ${String(wall[i]).padStart(6)} ns wall per event`));
for (const i of [0, 1]) {
  console.log(`  ${subjects[i].label.padEnd(28)} / ceiling: ${((wall[2] / wall[i]) * 100).toFixed(0)}% wall, ${((cpu[2] / cpu[i]) * 100).toFixed(0)}% CPU`);
}
