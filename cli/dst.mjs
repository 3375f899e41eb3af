#!/usr/bin/env node
// dst: run and explore dst-runtime scenarios. A scenario module default-exports the value of
// defineScenario(). Exit codes (ExitCode in runtime/exit-codes.ts):
//   0 ok · 1 a host crashed · 64 usage error · 70 a run limit tripped · 71 safety violation
//   72 liveness failure · 73 nondeterminism (a failing seed did not replay identically)
import { fork } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ExitCode, formatSeed, parseSeed, runScenario } from 'dst-runtime';

const CLI = fileURLToPath(import.meta.url);
const USAGE = `usage:
  dst run <scenario.mjs> [--seed S]            one seed (default: DST_SEED, else 1)
  dst explore <scenario.mjs> --seeds N [--first S] [--jobs J] [--shard k/n] [--report file.json] [--keep-going|--stop-on-failure]
exit codes: ok 0, host crash 1, usage 64, limit 70, safety 71, liveness 72, nondeterminism 73`;

class Usage extends Error {}

function parseArgs(argv) {
  const [command, file, ...rest] = argv;
  const flags = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('--')) throw new Usage(`unexpected argument ${arg}`);
    const name = arg.slice(2);
    if (name === 'keep-going' || name === 'stop-on-failure') flags[name] = true;
    else if (i + 1 < rest.length) flags[name] = rest[++i];
    else throw new Usage(`--${name} needs a value`);
  }
  return { command, file, flags };
}

function positiveInt(text, name) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Usage(`--${name} must be a positive integer, got ${text}`);
  return value;
}

async function loadScenario(file) {
  if (file === undefined) throw new Usage('missing <scenario.mjs>');
  let mod;
  try {
    mod = await import(pathToFileURL(path.resolve(file)).href);
  } catch (error) {
    throw new Usage(`Failed to load scenario ${file}: ${error.message}`);
  }
  if (mod.default?.kind !== 'dst-scenario') throw new Usage(`Failed to load scenario ${file}: its default export is not a defineScenario() value`);
  return mod.default;
}

/** The command that replays one seed; DST_* settings of this process (a planted bug switch) go with it. */
function replayCommand(file, seed) {
  const env = Object.keys(process.env)
    .filter((k) => k.startsWith('DST_') && k !== 'DST_SEED')
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  return [...env, 'dst', 'run', file, '--seed', seed].join(' ');
}

function exitCodeOf(result) {
  if (result.ok) return ExitCode.ok;
  return { safety: ExitCode.safety, liveness: ExitCode.liveness, limit: ExitCode.limit }[result.failure.kind] ?? ExitCode.hostCrash;
}

/** Seeds of a shard: the i-th seed of the range belongs to shard (i mod n) + 1. */
export function shardSeeds(first, count, shard) {
  const seeds = [];
  for (let i = 0; i < count; i++) if (shard === undefined || i % shard.n === shard.k - 1) seeds.push(first + BigInt(i));
  return seeds;
}

async function run(file, flags) {
  const scenario = await loadScenario(file);
  const seed = formatSeed(parseSeed(flags.seed ?? process.env.DST_SEED ?? 1, '--seed'));
  const result = await runScenario(scenario, seed, { replay: replayCommand(file, seed) });
  console.log(`scenario     ${scenario.name}`);
  console.log(`seed         ${result.seed}`);
  console.log(`fingerprint  ${result.fingerprint}`);
  console.log(`virtual time ${(result.elapsedNs / 1e9).toFixed(9)} s   events ${result.events}`);
  if (result.ok) console.log('invariants   ok');
  else {
    const f = result.failure;
    console.log(`FAILED       ${f.kind}: ${f.message}`);
    console.log(`  at         ${(f.timeNs / 1e9).toFixed(9)} s (virtual)   event ${f.event}   host ${f.host ?? '-'}`);
    console.log(`  replay     ${f.replay}`);
  }
  for (const c of result.coverage) console.log(`coverage     ${c.kind} ${JSON.stringify(c.message)}: ${c.hits}`);
  return exitCodeOf(result);
}

/** A worker: runs seeds the parent sends over IPC, one at a time, and answers each result. */
async function worker(file) {
  const scenario = await loadScenario(file);
  process.on('message', async (message) => {
    if (message.type === 'stop') return process.disconnect();
    const result = await runScenario(scenario, message.seed, { replay: replayCommand(file, message.seed) });
    process.send({ type: 'result', result });
  });
  process.send({ type: 'ready' });
}

function startWorker(file) {
  return fork(CLI, ['__worker', file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** Runs seeds over `jobs` worker processes; onResult sees each result as it arrives. */
function runPool(file, seeds, jobs, onResult, shouldStop = () => false) {
  return new Promise((resolve, reject) => {
    const queue = [...seeds];
    const results = [];
    let live = Math.min(jobs, queue.length);
    if (live === 0) return resolve(results);
    for (let j = 0; j < Math.min(jobs, queue.length); j++) {
      const child = startWorker(file);
      const next = () => {
        const seed = shouldStop() ? undefined : queue.shift();
        if (seed === undefined) child.send({ type: 'stop' });
        else child.send({ type: 'seed', seed: formatSeed(seed) });
      };
      child.on('message', (message) => {
        if (message.type === 'result') {
          results.push(message.result);
          onResult(message.result);
        }
        next();
      });
      child.on('exit', (code) => {
        if (code !== 0) return reject(new Error(`Failed to explore: a worker exited with code ${code}`));
        if (--live === 0) resolve(results);
      });
    }
  });
}

async function explore(file, flags) {
  const scenario = await loadScenario(file);
  const count = positiveInt(flags.seeds, 'seeds');
  const jobs = flags.jobs === undefined ? Math.max(1, Math.min(os.availableParallelism?.() ?? 2, 8)) : positiveInt(flags.jobs, 'jobs');
  const first = parseSeed(flags.first ?? 1, '--first');
  let shard;
  if (flags.shard !== undefined) {
    const match = /^(\d+)\/(\d+)$/.exec(flags.shard);
    const [k, n] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
    if (!match || n < 1 || k < 1 || k > n) throw new Usage(`--shard must be k/n with 1 <= k <= n, got ${flags.shard}`);
    shard = { k, n };
  }
  const seeds = shardSeeds(first, count, shard);
  const started = Date.now();
  let done = 0;
  let failures = 0;
  const tty = process.stderr.isTTY;
  const progress = (final = false) => {
    const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
    const line = `dst explore: ${done}/${seeds.length} seeds   ${rate.toFixed(1)} seeds/s   ${failures} failing`;
    if (tty) process.stderr.write(`\r${line}${final ? '\n' : ''}`);
    else if (final || (done % 50 === 0 && done < seeds.length)) process.stderr.write(`${line}\n`);
  };
  const results = await runPool(
    file,
    seeds,
    jobs,
    (result) => {
      done++;
      if (!result.ok) failures++;
      progress();
    },
    () => flags['stop-on-failure'] === true && failures > 0,
  );
  progress(true);
  const failing = results.filter((r) => !r.ok).sort((a, b) => (BigInt(a.seed) < BigInt(b.seed) ? -1 : 1));

  // Confirm each failure replays: the same seed in a fresh process must fail identically.
  const confirmations = failing.length === 0 ? [] : await runPool(file, failing.map((r) => BigInt(r.seed)), jobs, () => {});
  const bySeed = new Map(confirmations.map((r) => [r.seed, r]));
  const rows = failing.map((r) => ({
    seed: r.seed,
    kind: r.failure.kind,
    message: r.failure.message,
    timeNs: r.failure.timeNs,
    fingerprint: r.fingerprint,
    replays: bySeed.get(r.seed)?.fingerprint === r.fingerprint,
    replay: replayCommand(file, r.seed),
  }));

  // Coverage across seeds: how many seeds hit each sometimes/reachable message, and how often.
  const coverage = new Map();
  for (const r of results) {
    for (const c of r.coverage) {
      const entry = coverage.get(c.message) ?? { message: c.message, kind: c.kind, seeds: 0, hits: 0 };
      entry.hits += c.hits;
      if (c.hits > 0) entry.seeds++;
      coverage.set(c.message, entry);
    }
  }

  if (rows.length > 0) {
    console.log(`\n${rows.length} failing seed(s) of ${results.length}:`);
    console.log('seed        kind        replays  replay command');
    for (const row of rows) console.log(`${row.seed.padEnd(11)} ${row.kind.padEnd(11)} ${(row.replays ? 'yes' : 'NO').padEnd(8)} ${row.replay}`);
    for (const row of rows.slice(0, 3)) console.log(`  ${row.seed}: ${row.message}`);
  } else {
    console.log(`\nall ${results.length} seeds passed (${scenario.name})`);
  }
  const coverageSorted = [...coverage.values()].sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  for (const c of coverageSorted) console.log(`coverage  ${c.kind} ${JSON.stringify(c.message)}: ${c.seeds} seed(s), ${c.hits} hit(s)`);

  const report = {
    scenario: scenario.name,
    file,
    first: formatSeed(first),
    seeds: count,
    shard: shard === undefined ? null : `${shard.k}/${shard.n}`,
    ran: results.map((r) => r.seed).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)),
    passed: results.filter((r) => r.ok).length,
    failing: rows,
    coverage: coverageSorted,
    elapsedMs: Date.now() - started,
  };
  if (flags.report !== undefined) writeFileSync(flags.report, `${JSON.stringify(report, null, 2)}\n`);

  if (rows.some((r) => !r.replays)) return ExitCode.nondeterminism;
  for (const kind of ['safety', 'liveness', 'limit', 'crash']) {
    if (rows.some((r) => r.kind === kind)) return exitCodeOf({ ok: false, failure: { kind } });
  }
  return ExitCode.ok;
}

async function main(argv) {
  try {
    const { command, file, flags } = parseArgs(argv);
    if (command === '__worker') return await worker(file);
    if (command === 'run') return await run(file, flags);
    if (command === 'explore') return await explore(file, flags);
    throw new Usage(command === undefined ? 'missing command' : `unknown command ${command}`);
  } catch (error) {
    if (error instanceof Usage || error?.name === 'UsageError') {
      console.error(`dst: ${error.message}\n${USAGE}`);
      return ExitCode.usage;
    }
    throw error;
  }
}

// Run as a program (also through the npm bin symlink), not when imported for shardSeeds.
if (process.argv[1] !== undefined && realpathSync(path.resolve(process.argv[1])) === realpathSync(CLI)) {
  const code = await main(process.argv.slice(2));
  if (typeof code === 'number') process.exitCode = code;
}
