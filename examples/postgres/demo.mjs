// npm run demo:postgres: a Node developer's everyday service, a node:http API over Postgres
// (api.mjs, an unmodified `pg` client), with a real Postgres inside the simulation (PGlite, as
// dst-runtime/services/postgres). The API has a classic bug: it reads a balance, then writes the
// balance it computed, so two withdrawals at the same moment can both succeed while one of them
// is lost. `dst explore` finds it from seeds alone, `dst run` replays it, and the fixed API (one
// transaction, SELECT ... FOR UPDATE) passes the same seeds.
//
//   npm run demo:postgres                      # installs examples/postgres's packages first
//   DEMO_SEEDS=20 npm run demo:postgres        # explore more seeds
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preparePostgres } from 'dst-runtime/services/postgres';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const CLI = path.join(ROOT, 'cli', 'dst.mjs');
const SCENARIO = path.relative(ROOT, path.join(HERE, 'bank.mjs'));
const SEEDS = process.env.DEMO_SEEDS ?? '8';

function dst(args, env = {}) {
  console.log(`\n$ ${Object.entries(env).map(([k, v]) => `${k}=${v} `).join('')}dst ${args.join(' ')}`);
  const run = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  return run.status;
}

console.log('dst-runtime demo: a bank API (node:http + pg) over a real Postgres (PGlite) inside the simulation.');
console.log(`The API withdraws money in two steps, read then write; ${SEEDS} seeds of three customers withdrawing at seeded moments.`);
let started = performance.now();
const template = preparePostgres({ from: HERE });
console.log(`Postgres template data directory: ${path.relative(ROOT, template)} (${Math.round(performance.now() - started)} ms; made once, outside the simulation)`);

const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dst-postgres-demo-')), 'report.json');
console.log('\n1. Explore seeds with the buggy API (DST_BANK_BUG=1):');
started = performance.now();
dst(['explore', SCENARIO, '--seeds', SEEDS, '--jobs', '2', '--report', report], { DST_BANK_BUG: '1' });
const found = JSON.parse(fs.readFileSync(report, 'utf8'));
if (found.failing.length === 0) {
  console.log(`\nNo seed of 1..${SEEDS} found the lost update: try DEMO_SEEDS=20.`);
  process.exit(1);
}
const seed = found.failing[0].seed;
console.log(`\n2. Replay the first failing seed, ${seed}, in a fresh process:`);
dst(['run', SCENARIO, '--seed', seed], { DST_BANK_BUG: '1' });
console.log('\n3. The fixed API (BEGIN; SELECT ... FOR UPDATE; UPDATE ... balance - $1; COMMIT) on the same seeds:');
const fixed = dst(['explore', SCENARIO, '--seeds', SEEDS, '--jobs', '2']);
console.log(`\nfound the lost update on ${found.failing.length} of ${SEEDS} seeds (first ${seed}); the fixed API ${fixed === 0 ? 'passes them all' : 'FAILED'}; ${Math.round((performance.now() - started) / 1000)} s`);
process.exit(fixed === 0 ? 0 : 1);
