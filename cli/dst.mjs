#!/usr/bin/env node
// dst: run, explore, check and replay dst-runtime scenarios and plain programs.
//
// A file is a scenario when its default export is a defineScenario() value, else it is a plain
// program (an "app"), run exactly as `node --import dst-runtime/register app.mjs` runs it. The
// CLI decides without executing the file in its own process: a probe child imports it under
// register mode (see cli/probe.mjs).
//
// Exit codes: ExitCode, and FAILURE_EXIT_CODES for each failure kind, in runtime/exit-codes.ts:
// the table register mode exits by too. The usage text lists them from there.
import { fork, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ExitCode, FAILURE_EXIT_CODES, exitCodeOfFailure, failureKindOfExitCode, formatFaultMix, formatSeed, parseSeed, machineSettings, runScenario } from 'dst-runtime';
import { mergeReports } from './reports.mjs';
import { describeRecord, firstDivergence } from './trace-diff.mjs';

const CLI = fileURLToPath(import.meta.url);
const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));
const REGISTER = pathToFileURL(fileURLToPath(new URL('../dist/register.mjs', import.meta.url))).href;
const REPORT_FORMAT = 'dst-explore-report/1';

const USAGE = `usage:
  dst run <file> [--seed S] [--swarm]                    one seed (default: DST_SEED, else 1)
  dst explore <file> --seeds N [--first S] [--jobs J] [--shard k/n] [--report file.json]
              [--swarm] [--keep-going|--stop-on-failure] [--process-per-seed]
  dst check <file> [--seed S] [--swarm]                  run the seed twice, compare the traces
  dst replay <report.json> [--index i]                   rerun a failing seed of an explore report
  dst merge-reports <a.json> <b.json> ... [--out merged.json]
every command but merge-reports also takes --trace <file.jsonl> and --time-limit <duration>.
<file> is a scenario (default export = defineScenario(...)) or a plain program (run as
node --import dst-runtime/register <file>).
exit codes: ${Object.entries(ExitCode)
  .map(([name, code]) => `${name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)} ${code}`)
  .join(', ')}`;

class Usage extends Error {}

const BOOLEAN_FLAGS = new Set(['keep-going', 'stop-on-failure', 'swarm', 'process-per-seed']);
const VALUE_FLAGS = new Set(['seed', 'seeds', 'first', 'jobs', 'shard', 'report', 'trace', 'time-limit', 'index', 'out', 'result']);

function parseArgs(argv) {
  const [command, ...rest] = argv;
  const flags = {};
  const positional = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const name = arg.slice(2);
    if (BOOLEAN_FLAGS.has(name)) flags[name] = true;
    else if (!VALUE_FLAGS.has(name)) throw new Usage(`unknown flag --${name}`);
    else if (i + 1 < rest.length) flags[name] = rest[++i];
    else throw new Usage(`--${name} needs a value`);
  }
  return { command, file: positional[0], positional, flags };
}

function positiveInt(text, name) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Usage(`--${name} must be a positive integer, got ${text}`);
  return value;
}

/** --time-limit takes what DST_TIME_LIMIT takes ("5000" ms, "90s", "2h") and travels as DST_TIME_LIMIT. */
function applyTimeLimit(flags) {
  if (flags['time-limit'] === undefined) return;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ns|us|ms|s|m|h|d)?\s*$/.exec(flags['time-limit']);
  if (!m || Number(m[1]) <= 0) throw new Usage(`--time-limit must be a virtual-time duration such as 5000 (ms), 90s or 2h, got ${flags['time-limit']}`);
  process.env.DST_TIME_LIMIT = flags['time-limit'];
}

function shellQuote(word) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Settings of this process that change a run: DST_* ones (a planted bug switch, DST_TIME_LIMIT),
 * and the machine's time zone and locale when they are not UTC and en-US (machineSettings).
 */
const PER_RUN = new Set(['DST_SEED', 'DST_TRACE', 'DST_REPORT', 'DST_QUIET', 'DST_PROBE_OUT']);
function settingsEnv() {
  const settings = Object.fromEntries(
    Object.keys(process.env)
      .filter((k) => k.startsWith('DST_') && !PER_RUN.has(k) && process.env[k] !== '')
      .sort()
      .map((k) => [k, process.env[k]]),
  );
  return { ...settings, ...machineSettings() };
}

/** The command that replays one seed; the settings of this process (settingsEnv) go with it. */
function replayCommand(file, seed, swarm = false) {
  const env = Object.entries(settingsEnv()).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...env, 'dst', 'run', shellQuote(file), '--seed', seed, ...(swarm ? ['--swarm'] : [])].join(' ');
}

function exitCodeOf(result) {
  if (result.ok) return ExitCode.ok;
  if (result.failure.exitCode !== undefined) return result.failure.exitCode;
  return exitCodeOfFailure(result.failure.kind) ?? ExitCode.hostCrash;
}

function tempDir() {
  return mkdtempSync(path.join(os.tmpdir(), 'dst-'));
}

// ---- scenario or app --------------------------------------------------------------------------

/**
 * { kind: 'scenario' | 'app', file }: decided by a probe child that imports the file under
 * register mode and reads its default export. The CLI process never executes an app.
 */
async function resolveTarget(file) {
  if (file === undefined) throw new Usage('missing <file> (a scenario module or a program)');
  if (!existsSync(file)) throw new Usage(`Failed to load ${file}: no such file`);
  const dir = tempDir();
  const out = path.join(dir, 'probe');
  try {
    await new Promise((resolve) => {
      const env = { ...process.env, DST_SEED: '1', DST_QUIET: '1', DST_EVENT_LIMIT: '1', DST_PROBE_OUT: out };
      delete env.DST_TRACE;
      delete env.DST_REPORT;
      const child = spawn(process.execPath, ['--import', REGISTER, PROBE, path.resolve(file)], { env, stdio: 'ignore' });
      child.on('error', () => resolve());
      child.on('close', () => resolve());
    });
    let verdict;
    try {
      verdict = readFileSync(out, 'utf8');
    } catch {
      verdict = 'app'; // the program stopped the probe itself (exit, crash, a limit): not a scenario
    }
    if (verdict.startsWith('misexported ')) {
      const [, how, names] = verdict.split(' ');
      const found = how === 'named' ? `exports a scenario as ${names.split(',').map((n) => `"${n}"`).join(', ')}` : 'calls defineScenario()';
      throw new Usage(
        `Failed to load scenario ${file}: it ${found} but its default export is not one; ` +
          'a scenario file must end with `export default defineScenario({ ... })` (anything else runs as a plain program)',
      );
    }
    if (verdict.startsWith('error ')) {
      // An app may fail at its top level on purpose; a missing or unparsable file is a usage error.
      if (/ERR_MODULE_NOT_FOUND|Cannot find module|SyntaxError/.test(verdict) && !/dst-runtime/.test(verdict)) {
        throw new Usage(`Failed to load ${file}: ${verdict.slice(6)}`);
      }
      verdict = 'app';
    }
    return { kind: verdict, file };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function loadScenario(file) {
  let mod;
  try {
    mod = await import(pathToFileURL(path.resolve(file)).href);
  } catch (error) {
    throw new Usage(`Failed to load scenario ${file}: ${error.message}`);
  }
  if (mod.default?.kind !== 'dst-scenario') throw new Usage(`Failed to load scenario ${file}: its default export is not a defineScenario() value`);
  return mod.default;
}

// ---- running one seed -------------------------------------------------------------------------

/**
 * Runs one seed of a plain program as `DST_SEED=S node --import dst-runtime/register app`, in a
 * child process; its register-mode exit code and DST_REPORT give the result.
 * `inherit` shows the program's output; otherwise the tail of its stderr names the failure.
 */
function runApp(file, seed, { trace, inherit = false } = {}) {
  const dir = tempDir();
  const report = path.join(dir, 'report.json');
  const env = { ...process.env, DST_SEED: seed, DST_REPORT: report };
  if (trace !== undefined) env.DST_TRACE = trace;
  else delete env.DST_TRACE;
  if (!inherit) env.DST_QUIET = '1';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REGISTER, path.resolve(file)], { env, stdio: inherit ? 'inherit' : ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-16384);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      let data = {};
      try {
        data = JSON.parse(readFileSync(report, 'utf8'));
      } catch {}
      rmSync(dir, { recursive: true, force: true });
      const dstLine = stderr.split('\n').find((l) => l.startsWith('dst: ') && !l.startsWith('dst: seed '));
      const exitCode = code ?? 128;
      const message = dstLine?.slice(5) ?? (signal ? `killed by ${signal}` : `exited with code ${exitCode}`);
      resolve(appResult(file, seed, { exitCode, elapsedNs: data.elapsedNs ?? 0, events: data.events ?? 0, fingerprint: data.fingerprint ?? 'unknown', message }));
    });
  });
}

/**
 * The result of one seed of a plain program, from its exit code and register mode's report: the
 * same whether the seed ran in a process of its own (runApp) or in a worker (AppWorker). A
 * failing seed's fingerprint carries how it failed, so a replay must fail the same way.
 */
function appResult(file, seed, { exitCode, elapsedNs, events, fingerprint, message }) {
  const base = { seed, elapsedNs, events, coverage: [] };
  if (exitCode === 0) return { ...base, ok: true, fingerprint };
  const kind = failureKindOfExitCode(exitCode) ?? 'exit';
  return {
    ...base,
    ok: false,
    fingerprint: `fail:${kind}:${elapsedNs}:${events}:${fingerprint}`,
    failure: { kind, message: message.replace(/ \(Node's report follows\)$/, ''), host: undefined, timeNs: elapsedNs, event: events, replay: replayCommand(file, seed), exitCode },
  };
}

/**
 * A worker process that runs seeds of a plain program one after the other (`__app-worker`,
 * shims/program-seeds.ts): each seed as `DST_SEED=S node --import dst-runtime/register app` runs
 * it, without a process start per seed. run(seed) resolves with the seed's result and whether
 * the worker can take another, or with { died } when the worker ended before answering.
 */
class AppWorker {
  constructor(file) {
    this.child = fork(CLI, ['__app-worker', file], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.stderr = '';
    this.pending = undefined;
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
    this.child.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-16384);
    });
    this.child.on('message', (message) => {
      if (message.type !== 'result' || this.pending === undefined) return;
      const resolve = this.pending;
      this.pending = undefined;
      resolve({ result: message.result, reusable: message.reusable });
    });
    this.exited.then(({ code, signal }) => {
      const resolve = this.pending;
      this.pending = undefined;
      resolve?.({ died: signal ? `killed by ${signal}` : `exited with code ${code}` });
    });
  }

  run(seed, trace) {
    return new Promise((resolve) => {
      this.pending = resolve;
      this.child.send({ type: 'seed', seed, trace });
    });
  }

  stop() {
    if (this.child.connected) this.child.send({ type: 'stop' });
    return this.exited;
  }
}

/**
 * Runs one seed in a fresh child process, of either kind: the result, as `dst run` would give it.
 * (Scenarios run through the hidden `__seed` command, which writes the result to a file.)
 */
async function runSeedInChild(target, seed, { trace, swarm = false } = {}) {
  if (target.kind === 'app') return runApp(target.file, seed, { trace });
  const dir = tempDir();
  const out = path.join(dir, 'result.json');
  try {
    const args = [CLI, '__seed', target.file, '--seed', seed, '--result', out, ...(trace ? ['--trace', trace] : []), ...(swarm ? ['--swarm'] : [])];
    const code = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`Failed to run seed ${seed} of ${target.file} in a child process: it exited with code ${code}`);
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runScenarioSeed(file, scenario, seed, { trace, swarm = false } = {}) {
  return runScenario(scenario, seed, { replay: replayCommand(file, seed, swarm), swarm, ...(trace === undefined ? {} : { trace }) });
}

function printResult(name, result) {
  console.log(`${'scenario'.padEnd(12)} ${name}`);
  console.log(`seed         ${result.seed}`);
  if (result.swarm !== undefined) console.log(`swarm        ${formatFaultMix(result.swarm)}`);
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
  for (const p of result.pending ?? []) console.log(`pending      ${p.count} promise(s) created at ${p.site} (host ${p.host}) never settled`);
}

function seedOf(flags) {
  return formatSeed(parseSeed(flags.seed ?? process.env.DST_SEED ?? 1, '--seed'));
}

// ---- commands ---------------------------------------------------------------------------------

async function run(file, flags) {
  const target = await resolveTarget(file);
  const seed = seedOf(flags);
  const swarm = flags.swarm === true;
  if (target.kind === 'app') {
    if (swarm) throw new Usage('--swarm needs a scenario: a plain program has no fault profile');
    // The program's own output and register mode's summary line go straight to the terminal.
    const result = await runApp(file, seed, { trace: flags.trace, inherit: true });
    if (!result.ok) console.log(`FAILED       ${result.failure.kind} (exit code ${result.failure.exitCode})\n  replay     ${result.failure.replay}`);
    return exitCodeOf(result);
  }
  const scenario = await loadScenario(file);
  const result = await runScenarioSeed(file, scenario, seed, { trace: flags.trace, swarm });
  printResult(scenario.name, result);
  if (flags.trace !== undefined) console.log(`trace        ${flags.trace}`);
  return exitCodeOf(result);
}

/** Hidden: one scenario seed, its result written as JSON to --result (for check and replay). */
async function seedCommand(file, flags) {
  const scenario = await loadScenario(file);
  const result = await runScenarioSeed(file, scenario, seedOf(flags), { trace: flags.trace, swarm: flags.swarm === true });
  writeFileSync(flags.result, JSON.stringify(result));
  return ExitCode.ok;
}

/** A worker: runs the scenario seeds the parent sends over IPC, one at a time, and answers each result. */
async function worker(file, flags) {
  const scenario = await loadScenario(file);
  const swarm = flags.swarm === true;
  process.on('message', async (message) => {
    if (message.type === 'stop') return process.disconnect();
    const result = await runScenarioSeed(file, scenario, message.seed, { trace: message.trace, swarm });
    process.send({ type: 'result', result });
  });
  process.send({ type: 'ready' });
}

/**
 * A worker for the seeds of a plain program: runs each seed the parent sends in this process
 * (shims/program-seeds.ts) and answers its result. It exits after a seed that left something of
 * the program running (process.exit(), a crash, a failure): the parent starts a fresh one.
 */
async function appWorker(file) {
  const { runProgramSeed } = createRequire(import.meta.url)('../dist/program-seeds.cjs');
  process.on('message', async (message) => {
    if (message.type === 'stop') return process.disconnect();
    // The channel must not keep the loop alive: a seed ends when Node's loop has nothing left.
    process.channel.unref();
    const seed = await runProgramSeed(path.resolve(file), message.seed, {
      replay: replayCommand(file, message.seed),
      ...(message.trace === undefined ? {} : { trace: message.trace }),
      env: { DST_QUIET: '1' },
    });
    process.channel.ref();
    const result = appResult(file, message.seed, { ...seed, message: seed.failure?.summary ?? `exited with code ${seed.exitCode}` });
    process.send({ type: 'result', result, reusable: seed.reusable }, () => {
      if (!seed.reusable) process.reallyExit(0);
    });
  });
}

/**
 * Runs seeds over `jobs` slots; onResult sees each result as it arrives. A slot is a worker
 * process running many seeds (a scenario's, or a plain program's: AppWorker); with
 * `processPerSeed` an app slot starts one process per seed instead.
 * `traceOf(seed)` names a trace file for a seed, or undefined.
 */
function runPool(target, seeds, jobs, { swarm = false, traceOf = () => undefined, processPerSeed = false } = {}, onResult = () => {}, shouldStop = () => false) {
  return new Promise((resolve, reject) => {
    const queue = [...seeds];
    const results = [];
    const slots = Math.min(jobs, queue.length);
    let live = slots;
    if (live === 0) return resolve(results);
    const finished = () => {
      if (--live === 0) resolve(results);
    };
    const take = () => (shouldStop() ? undefined : queue.shift());
    for (let j = 0; j < slots; j++) {
      if (target.kind === 'app' && processPerSeed) {
        const loop = async () => {
          for (let seed = take(); seed !== undefined; seed = take()) {
            const s = formatSeed(seed);
            const result = await runApp(target.file, s, { trace: traceOf(s) });
            results.push(result);
            onResult(result);
          }
        };
        loop().then(finished, reject);
        continue;
      }
      if (target.kind === 'app') {
        const loop = async () => {
          let worker;
          for (let seed = take(); seed !== undefined; seed = take()) {
            const s = formatSeed(seed);
            worker ??= new AppWorker(target.file);
            const answer = await worker.run(s, traceOf(s));
            let result = answer.result;
            if (answer.died !== undefined) {
              // The seed ended the worker itself (a signal, a crash of the worker): it runs
              // again in a process of its own, exactly as its replay command runs it.
              worker = undefined;
              result = await runApp(target.file, s, { trace: traceOf(s) });
            } else if (!answer.reusable) {
              await worker.exited;
              worker = undefined;
            }
            results.push(result);
            onResult(result);
          }
          await worker?.stop();
        };
        loop().then(finished, reject);
        continue;
      }
      const child = fork(CLI, ['__worker', target.file, ...(swarm ? ['--swarm'] : [])], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const next = () => {
        const seed = take();
        if (seed === undefined) child.send({ type: 'stop' });
        else child.send({ type: 'seed', seed: formatSeed(seed), trace: traceOf(formatSeed(seed)) });
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
        finished();
      });
    }
  });
}

/** Seeds of a shard: the i-th seed of the range belongs to shard (i mod n) + 1. */
export function shardSeeds(first, count, shard) {
  const seeds = [];
  for (let i = 0; i < count; i++) if (shard === undefined || i % shard.n === shard.k - 1) seeds.push(first + BigInt(i));
  return seeds;
}

function printFailureTable(rows, total) {
  console.log(`\n${rows.length} failing seed(s) of ${total}:`);
  console.log('seed        kind        replays  replay command');
  for (const row of rows) console.log(`${row.seed.padEnd(11)} ${row.kind.padEnd(11)} ${(row.replays ? 'yes' : 'NO').padEnd(8)} ${row.replay}`);
  for (const row of rows.slice(0, 3)) {
    console.log(`  ${row.seed}: ${row.message}`);
    if (row.swarm !== undefined) console.log(`  ${row.seed} swarm: ${formatFaultMix(row.swarm)}`);
  }
}

/**
 * The exit code of a set of failing rows: nondeterminism (a seed that did not replay) first,
 * then the gravest kind (FAILURE_EXIT_CODES lists them gravest first).
 */
function exitCodeOfRows(rows) {
  if (rows.some((r) => !r.replays)) return ExitCode.nondeterminism;
  for (const [kind, code] of Object.entries(FAILURE_EXIT_CODES)) {
    const row = rows.find((r) => r.kind === kind);
    if (row !== undefined) return row.exitCode ?? code;
  }
  return rows.length > 0 ? (rows[0].exitCode ?? ExitCode.hostCrash) : ExitCode.ok;
}

async function explore(file, flags) {
  const target = await resolveTarget(file);
  const swarm = flags.swarm === true;
  if (swarm && target.kind === 'app') throw new Usage('--swarm needs a scenario: a plain program has no fault profile');
  const name = target.kind === 'scenario' ? (await loadScenario(file)).name : `${file} (program)`;
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
  let lastLine = 0;
  const tty = process.stderr.isTTY === true;
  const progress = (final = false) => {
    const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
    const line = `dst explore: ${done}/${seeds.length} seeds   ${rate.toFixed(1)} seeds/s   ${failures} failing`;
    if (tty) process.stderr.write(`\r${line}\x1b[K${final ? '\n' : ''}`);
    else if (final || Date.now() - lastLine >= 2000) {
      // Not a terminal (CI logs): a plain line every 2 s, and the last one.
      lastLine = Date.now();
      process.stderr.write(`${line}\n`);
    }
  };
  lastLine = Date.now();
  const results = await runPool(
    target,
    seeds,
    jobs,
    { swarm, processPerSeed: flags['process-per-seed'] === true },
    (result) => {
      done++;
      if (!result.ok) failures++;
      progress();
    },
    () => flags['stop-on-failure'] === true && failures > 0,
  );
  progress(true);
  const elapsedMs = Date.now() - started;
  const failing = results.filter((r) => !r.ok).sort((a, b) => (BigInt(a.seed) < BigInt(b.seed) ? -1 : 1));

  // Confirm each failure replays: the same seed in a fresh process must fail identically (for a
  // plain program: run by its replay command, so a seed that failed in a worker is also checked
  // against a process of its own).
  const traceOf = flags.trace === undefined ? () => undefined : (seed) => `${flags.trace}.${seed}.jsonl`;
  const confirmations = failing.length === 0 ? [] : await runPool(target, failing.map((r) => BigInt(r.seed)), jobs, { swarm, traceOf, processPerSeed: true });
  const bySeed = new Map(confirmations.map((r) => [r.seed, r]));
  const rows = failing.map((r) => ({
    seed: r.seed,
    kind: r.failure.kind,
    message: r.failure.message,
    timeNs: r.failure.timeNs,
    fingerprint: r.fingerprint,
    replays: bySeed.get(r.seed)?.fingerprint === r.fingerprint,
    replay: replayCommand(file, r.seed, swarm),
    ...(r.failure.exitCode === undefined ? {} : { exitCode: r.failure.exitCode }),
    ...(r.swarm === undefined ? {} : { swarm: r.swarm }),
    ...(flags.trace === undefined ? {} : { trace: traceOf(r.seed) }),
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

  if (rows.length > 0) printFailureTable(rows, results.length);
  else console.log(`\nall ${results.length} seeds passed (${name})`);
  const coverageSorted = [...coverage.values()].sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  for (const c of coverageSorted) console.log(`coverage  ${c.kind} ${JSON.stringify(c.message)}: ${c.seeds} seed(s), ${c.hits} hit(s)`);
  const seedsPerSecond = Math.round((results.length / Math.max(0.001, elapsedMs / 1000)) * 10) / 10;
  console.log(`${results.length} seeds in ${(elapsedMs / 1000).toFixed(1)} s: ${seedsPerSecond} seeds/s with ${jobs} job(s)`);

  const report = {
    format: REPORT_FORMAT,
    scenario: name,
    file,
    cwd: process.cwd(),
    target: target.kind,
    first: formatSeed(first),
    seeds: count,
    shard: shard === undefined ? null : `${shard.k}/${shard.n}`,
    swarm,
    settings: settingsEnv(),
    jobs,
    ran: results.map((r) => r.seed).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)),
    passed: results.filter((r) => r.ok).length,
    failing: rows,
    coverage: coverageSorted,
    elapsedMs,
    seedsPerSecond,
  };
  if (flags.report !== undefined) writeFileSync(flags.report, `${JSON.stringify(report, null, 2)}\n`);
  return exitCodeOfRows(rows);
}

async function check(file, flags) {
  const target = await resolveTarget(file);
  const seed = seedOf(flags);
  const swarm = flags.swarm === true;
  if (swarm && target.kind === 'app') throw new Usage('--swarm needs a scenario: a plain program has no fault profile');
  const dir = flags.trace === undefined ? tempDir() : undefined;
  const traces = flags.trace === undefined ? [path.join(dir, 'run-1.jsonl'), path.join(dir, 'run-2.jsonl')] : [`${flags.trace}.1.jsonl`, `${flags.trace}.2.jsonl`];
  try {
    // Two fresh processes, one after the other: whatever the simulator does not control (pids,
    // the real clock, files) gets a chance to differ.
    const first = await runSeedInChild(target, seed, { trace: traces[0], swarm });
    const second = await runSeedInChild(target, seed, { trace: traces[1], swarm });
    const { divergence, compared } = await firstDivergence(traces[0], traces[1]);
    const outcome = (r) => (r.ok ? 'ok' : `${r.failure.kind}: ${r.failure.message}`);
    if (divergence === undefined && first.fingerprint === second.fingerprint) {
      console.log(`deterministic  seed ${seed}  fingerprint ${first.fingerprint}  (${compared} trace records compared; outcome ${outcome(first)})`);
      if (flags.trace !== undefined) console.log(`traces         ${traces.join(' ')}`);
      return ExitCode.ok;
    }
    console.log(`NONDETERMINISTIC  seed ${seed}: two runs of ${file} differ`);
    if (divergence === undefined) {
      console.log(`  the traces agree (${compared} records) but the fingerprints differ: ${first.fingerprint} vs ${second.fingerprint}`);
    } else {
      const n = divergence.a?.n ?? divergence.b?.n;
      const differ = divergence.fields.length > 0 ? ` (differs in ${divergence.fields.join(', ')})` : '';
      console.log(`  first divergent event: trace record ${divergence.index}, event ${n}${differ}`);
      console.log(`  run 1  ${describeRecord(divergence.a)}`);
      console.log(`  run 2  ${describeRecord(divergence.b)}`);
      const moved = (record, other, where) => {
        if (record === undefined || record.seq === undefined) return;
        if (other === undefined) console.log(`  ${where} did not run event ${record.n} of the other run within the next 10,000 events`);
        else if (other.n !== record.n || other.tNs !== record.tNs) console.log(`  ${where} ran that ${record.kind} (seq ${record.seq}) as event ${other.n} at ${(other.tNs / 1e9).toFixed(9)} s instead`);
      };
      moved(divergence.a, divergence.counterpartA, 'run 2');
      moved(divergence.b, divergence.counterpartB, 'run 1');
    }
    console.log(`  outcome  run 1 ${first.fingerprint} (${outcome(first)})   run 2 ${second.fingerprint} (${outcome(second)})`);
    console.log(flags.trace === undefined ? `  traces   add --trace <file> to keep both traces` : `  traces   ${traces.join(' ')}`);
    return ExitCode.nondeterminism;
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

async function replay(reportFile, flags) {
  if (reportFile === undefined) throw new Usage('missing <report.json> (written by dst explore --report)');
  let report;
  try {
    report = JSON.parse(readFileSync(reportFile, 'utf8'));
  } catch (error) {
    throw new Usage(`Failed to read report ${reportFile}: ${error.message}`);
  }
  if (!Array.isArray(report?.failing) || typeof report.file !== 'string') throw new Usage(`Failed to read report ${reportFile}: not a dst explore report`);
  if (report.failing.length === 0) throw new Usage(`Failed to replay: ${reportFile} has no failing seed (all ${report.passed} passed)`);
  const index = flags.index === undefined ? 0 : Number(flags.index);
  if (!Number.isInteger(index) || index < 0 || index >= report.failing.length) {
    throw new Usage(`--index must be an integer in [0, ${report.failing.length - 1}] (the report has ${report.failing.length} failing seed(s)), got ${flags.index}`);
  }
  const row = report.failing[index];
  // The exploration's settings (a planted bug switch, DST_TIME_LIMIT) apply to the replay.
  for (const [key, value] of Object.entries(report.settings ?? {})) process.env[key] = value;
  // The file as explore was given it: relative to this directory, else to the one explore ran in.
  const file = existsSync(report.file) || typeof report.cwd !== 'string' ? report.file : path.resolve(report.cwd, report.file);
  const target = { kind: report.target ?? (await resolveTarget(file)).kind, file };
  const result = await runSeedInChild(target, row.seed, { trace: flags.trace, swarm: report.swarm === true });
  const same = result.fingerprint === row.fingerprint && !result.ok && result.failure.kind === row.kind;
  console.log(`replay       ${report.file} seed ${row.seed} (failing seed ${index + 1} of ${report.failing.length} in ${reportFile})`);
  if (result.swarm !== undefined) console.log(`swarm        ${formatFaultMix(result.swarm)}`);
  console.log(`recorded     ${row.kind}: ${row.message}   fingerprint ${row.fingerprint}`);
  console.log(`now          ${result.ok ? 'ok' : `${result.failure.kind}: ${result.failure.message}`}   fingerprint ${result.fingerprint}`);
  if (flags.trace !== undefined) console.log(`trace        ${flags.trace}`);
  if (!same) {
    console.log('NOT REPRODUCED: the seed ran differently than recorded (nondeterminism, or the code or settings changed)');
    return ExitCode.nondeterminism;
  }
  console.log('reproduced   same failure, same fingerprint');
  return exitCodeOf(result);
}

async function mergeCommand(files, flags) {
  if (files.length === 0) throw new Usage('missing reports: dst merge-reports a.json b.json ... [--out merged.json]');
  const reports = files.map((f) => {
    try {
      return JSON.parse(readFileSync(f, 'utf8'));
    } catch (error) {
      throw new Usage(`Failed to read report ${f}: ${error.message}`);
    }
  });
  let merged;
  try {
    merged = mergeReports(reports, files);
  } catch (error) {
    throw new Usage(error.message);
  }
  const text = `${JSON.stringify(merged, null, 2)}\n`;
  if (flags.out !== undefined) writeFileSync(flags.out, text);
  else process.stdout.write(text);
  const log = flags.out === undefined ? console.error : console.log;
  log(`merged ${files.length} report(s) of ${merged.scenario}: ${merged.ran.length} of ${merged.seeds} seeds ran${merged.missing > 0 ? ` (${merged.missing} missing: a shard is absent)` : ''}, ${merged.failing.length} failing`);
  for (const row of merged.failing) log(`  ${row.seed.padEnd(11)} ${row.kind.padEnd(11)} ${row.replay}`);
  return exitCodeOfRows(merged.failing);
}

async function main(argv) {
  try {
    const { command, file, positional, flags } = parseArgs(argv);
    applyTimeLimit(flags);
    if (command === '__worker') return await worker(file, flags);
    if (command === '__app-worker') return await appWorker(file);
    if (command === '__seed') return await seedCommand(file, flags);
    if (command === 'run') return await run(file, flags);
    if (command === 'explore') return await explore(file, flags);
    if (command === 'check') return await check(file, flags);
    if (command === 'replay') return await replay(file, flags);
    if (command === 'merge-reports') return await mergeCommand(positional, flags);
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
