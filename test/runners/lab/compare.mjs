// Compares the JSON lines each runner wrote (test/runners/lab.sh): every test's fingerprint and
// what its hosts saw must equal mocha's. Prints a table; exits 1 on any difference.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
const runs = new Map();
const replays = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
  const results = new Map();
  for (const line of readFileSync(path.join(dir, file), 'utf8').trim().split('\n').filter(Boolean)) {
    const { test, value } = JSON.parse(line);
    if (test === 'replayLine') replays.push(`${file.replace(/\.jsonl$/, '').padEnd(18)} replay: ${value}`);
    const key = results.has(test) ? `${test} (again)` : test;
    // The replay line names the runner's own command; the rest must match exactly.
    results.set(key, test === 'replayLine' ? undefined : JSON.stringify(value));
  }
  runs.set(file.replace(/\.jsonl$/, ''), results);
}
const base = runs.get('mocha');
if (base === undefined) throw new Error(`no mocha results in ${dir}`);
let differences = 0;
for (const [runner, results] of runs) {
  const diff = [...base.keys()].filter((key) => results.get(key) !== base.get(key));
  differences += diff.length;
  console.log(`${runner.padEnd(18)} ${results.size === 0 ? 'NO RESULTS' : diff.length === 0 ? 'same as mocha' : `DIFFERENT: ${diff.join(', ')}`}`);
}
const fingerprints = (key) => JSON.parse(base.get(key)).map((r) => (r.fp.startsWith('fail:') ? r.fp : r.fp.slice(0, 8))).join(' ');
console.log(`seeds 1-5 ${fingerprints('forEachSeed')} | planted bug ${fingerprints('plantedBug')}`);
for (const line of replays) console.log(line);
process.exit(differences === 0 ? 0 : 1);
