/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time and inclusive time per
 * function, heaviest first, with the file each lives in. Used to find where the simulator's
 * time goes when it misses a goal.
 *
 *     node --cpu-prof --cpu-prof-dir=.tmp/prof bench/worker.mjs sim-timers full 0 2
 *     node bench/profile-summary.mjs .tmp/prof/<file>.cpuprofile [rows]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [file, rowsText = '30'] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [rows]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

// Sample counts per node; time deltas make each sample's weight.
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
let totalUs = 0;
for (const us of selfUs.values()) totalUs += us;

function keyOf(node) {
  const frame = node.callFrame;
  const url = frame.url ? path.basename(frame.url.replace(/^file:\/\//, '')) : '';
  return `${frame.functionName || '(anonymous)'} ${url ? `${url}:${frame.lineNumber + 1}` : ''}`.trim();
}

const self = new Map();
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const node = nodes.get(id);
  const key = keyOf(node);
  self.set(key, (self.get(key) ?? 0) + us);
  // Inclusive: credit each distinct function once per sample along the stack.
  const seen = new Set();
  for (let at = id; at !== undefined; at = parentOf.get(at)) {
    const k = keyOf(nodes.get(at));
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + us);
  }
}

const rows = Number(rowsText);
const pct = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)}%`;
console.log(`total ${(totalUs / 1000).toFixed(0)} ms sampled\n\nself time`);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, rows)) console.log(`${pct(us)}  ${key}`);
console.log('\ninclusive time');
for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, rows)) console.log(`${pct(us)}  ${key}`);
