/**
 * Sums up a TEST_COST_LOG file (test/support/file-cost.cjs): one line per test file, costliest
 * CPU first (the worker's own and its children's), with the totals. With --write, also writes
 * each file's wall seconds to test/support/file-costs.json, the order in which scripts/test.mjs
 * hands the files to mocha's workers (longest first).
 *
 *     node scripts/test-costs.mjs /tmp/costs.jsonl [--top N] [--write]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [file, ...rest] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: node scripts/test-costs.mjs <TEST_COST_LOG file> [--top N] [--write]');
  process.exit(2);
}
const topAt = rest.indexOf('--top');
const top = topAt === -1 ? Infinity : Number(rest[topAt + 1]);
const rows = readFileSync(file, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line))
  .map((r) => ({ ...r, cpuMs: (r.selfCpuMs ?? 0) + (r.childCpuMs ?? 0) }))
  .sort((a, b) => b.cpuMs - a.cpuMs || (a.file < b.file ? -1 : 1));
const s = (ms) => (ms / 1000).toFixed(1).padStart(7);
console.log(`${'cpu s'.padStart(7)} ${'self'.padStart(7)} ${'child'.padStart(7)} ${'wall s'.padStart(7)} ${'tests'.padStart(5)}  file`);
for (const r of rows.slice(0, top)) console.log(`${s(r.cpuMs)} ${s(r.selfCpuMs ?? 0)} ${s(r.childCpuMs ?? 0)} ${s(r.wallMs)} ${String(r.tests).padStart(5)}  ${r.file}`);
const sum = (key) => rows.reduce((total, r) => total + (r[key] ?? 0), 0);
console.log(`${s(sum('cpuMs'))} ${s(sum('selfCpuMs'))} ${s(sum('childCpuMs'))} ${s(sum('wallMs'))} ${String(sum('tests')).padStart(5)}  total of ${rows.length} files`);

// The tail: how long the first worker to run out of files waited for the last one.
const lastEnd = new Map();
for (const r of rows) if (r.pid !== undefined) lastEnd.set(r.pid, Math.max(lastEnd.get(r.pid) ?? 0, r.endedAt));
if (lastEnd.size > 1) {
  const ends = [...lastEnd.values()].sort((a, b) => a - b);
  console.log(`${lastEnd.size} workers; the first to finish waited ${((ends.at(-1) - ends[0]) / 1000).toFixed(1)} s for the last`);
}

if (rest.includes('--write')) {
  const costsFile = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), 'test', 'support', 'file-costs.json');
  const walls = Object.fromEntries(
    rows
      .filter((r) => !r.file.includes(','))
      .sort((a, b) => (a.file < b.file ? -1 : 1))
      .map((r) => [r.file, Math.round(r.wallMs / 100) / 10]),
  );
  writeFileSync(costsFile, `${JSON.stringify(walls, null, 2)}\n`);
  console.log(`wrote the wall seconds of ${Object.keys(walls).length} files to ${path.relative(process.cwd(), costsFile)}`);
}
