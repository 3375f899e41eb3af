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
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ExitCode, FAILURE_EXIT_CODES, exitCodeOfFailure, failureKindOfExitCode, formatFaultMix, formatFaultSpec, formatSeed, parseFaultSpec, parseSeed, machineSettings, replayNode, runScenario } from 'dst-runtime';
import { mergeReports } from './reports.mjs';
import { describeRecord, firstDivergence } from './trace-diff.mjs';
import { toChromeTrace } from './trace-export.mjs';
import { readTrace } from './trace-model.mjs';
import { shrink } from './shrink.mjs';
import { writeView } from './view.mjs';

const CLI = fileURLToPath(import.meta.url);
const PROBE = fileURLToPath(new URL('./probe.mjs', import.meta.url));
/**
 * Whether this Node runs module loader hooks on a thread of their own (no module.registerHooks:
 * Node 20, and 22 before 22.15). A program's dynamic import() is then real asynchronous work that
 * register mode holds only when asked (DST_HELD_IMPORTS, shims/register-mode.ts), while explore's
 * workers always hold it: every seed this CLI runs in register mode asks, so a failure an explorer
 * worker found replays in a fresh process, and the replay command it prints carries the setting.
 */
const LOADER_THREAD = typeof createRequire(import.meta.url)('node:module').registerHooks !== 'function';
const REGISTER = pathToFileURL(fileURLToPath(new URL('../dist/register.mjs', import.meta.url))).href;
const REPORT_FORMAT = 'dst-explore-report/1';

const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** What each of ExitCode's codes means to a user; the help lists every code of ExitCode. */
const EXIT_CODE_MEANINGS = {
  ok: 'ok: the run passed (explore: every seed passed)',
  hostCrash: 'a host crashed (uncaught exception or unhandled rejection)',
  usage: 'usage error (a bad command line or DST_* variable, an unwritable --report/--out)',
  limit: 'a run limit tripped (events or virtual time)',
  safety: 'a safety invariant or always()/unreachable() failed',
  liveness: 'a liveness check failed',
  nondeterminism: 'nondeterminism (dst check, dst replay, a failure that did not replay)',
  escape: 'strict mode: real asynchronous work escaped the simulation',
  idle: "a plain program went idle for ever (ref'd handles, nothing scheduled)",
  aborted: 'the run was stopped from outside (an AbortSignal, sim.abort(), wallClockLimitMs)',
};
const EXIT_CODES = `exit codes:
${Object.entries(ExitCode)
  .map(([name, code]) => `  ${String(code).padEnd(4)}${EXIT_CODE_MEANINGS[name] ?? name}`)
  .join('\n')}
  a plain program's own exit code otherwise`;

/**
 * The commands, each with its flags (value flags take `--name value` or `--name=value`), its
 * usage line and what it does. A flag of another command is an error, not silently ignored.
 */
const COMMANDS = {
  run: {
    usage: 'dst run <file> [--seed S] [--swarm] [--faults K,...] [--schedule s.json] [--trace t.jsonl] [--view] [--time-limit D]',
    about: 'Runs one seed (default: DST_SEED, else 1) and prints its outcome and replay command.',
    values: ['seed', 'trace', 'time-limit', 'schedule', 'out', 'faults'],
    booleans: ['swarm', 'view'],
    details: `  --seed S           the seed, decimal or 0x-hex (also --seed=S)
  --swarm            the seed draws its own fault mix (a scenario's from its profile; a program's from --faults)
  --faults K,...     a plain program's fault kinds: latency, reorder, reset, loss, lag, stall, skew, or all
                     (default all; kind=scale sets how hard); sent to the program as DST_FAULTS
  --schedule s.json  inject exactly the faults of a schedule (written by dst shrink) instead of drawing them
  --trace t.jsonl    write every event (and every message, fault and the failure) as JSON lines
  --view             write the run's timeline as one HTML page (dst-view-<seed>.html, or --out)
  --time-limit D     a virtual-time limit (5000 ms, 90s, 2h), as DST_TIME_LIMIT`,
  },
  explore: {
    usage: 'dst explore <file> --seeds N [--first S] [--jobs J] [--shard k/n|auto] [--report r.json] [--swarm] [--faults K,...] [--stop-on-failure] [--process-per-seed] [--trace t] [--view]',
    about: 'Runs many seeds over worker processes; confirms each failure in a fresh process.',
    values: ['seeds', 'first', 'jobs', 'shard', 'report', 'trace', 'time-limit', 'faults'],
    booleans: ['swarm', 'keep-going', 'stop-on-failure', 'process-per-seed', 'view'],
    details: `  --seeds N          how many seeds (required)
  --first S          the first seed (default 1)
  --jobs J           worker processes (default: the cores, at most 8)
  --shard k/n        run the k-th of n shares of the seeds (merge with dst merge-reports)
  --shard auto       the share from the environment: DST_SHARD=k/n, a Kubernetes Indexed Job
                     (JOB_COMPLETION_INDEX with DST_SHARD_COUNT), GitLab (CI_NODE_INDEX/CI_NODE_TOTAL),
                     CircleCI (CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL), Buildkite (BUILDKITE_PARALLEL_JOB/_COUNT)
  --report r.json    write the exploration as JSON (checked writable before any seed runs)
  --swarm            each seed draws its own fault mix
  --faults K,...     a plain program's fault kinds (as for dst run); each failing seed prints its mix
  --stop-on-failure  stop starting seeds after the first failure
  --process-per-seed a plain program: one process per seed instead of many seeds per worker process
  --trace t          each failing seed's confirmation run writes t.<seed>.jsonl
  --view             and its timeline t.<seed>.html (dst-view-<seed>.html without --trace)`,
  },
  check: {
    usage: 'dst check <file> [--seed S] [--swarm] [--faults K,...] [--trace t] [--time-limit D]',
    about: 'Runs the seed twice in fresh processes and compares the traces event by event.',
    values: ['seed', 'trace', 'time-limit', 'faults'],
    booleans: ['swarm'],
    details: `  --faults K,...     a plain program's fault kinds (as for dst run)
  --trace t          keep the two traces as t.1.jsonl and t.2.jsonl`,
  },
  replay: {
    usage: 'dst replay <report.json> [--index i] [--trace t.jsonl] [--view]',
    about: 'Reruns failing seed --index i (counted from 0, default 0) of an explore report with its settings.',
    values: ['index', 'trace', 'time-limit', 'out'],
    booleans: ['view'],
    details: `  --index i          which failing seed of the report, counted from 0 (the report's order)`,
  },
  'merge-reports': {
    usage: 'dst merge-reports <a.json> <b.json> ... [--out merged.json]',
    about: "Merges the reports of shards; exits as explore would for the merged failures.",
    values: ['out'],
    booleans: [],
    details: `  --out merged.json  write the merged report there (default: stdout)`,
  },
  shrink: {
    usage: 'dst shrink <scenario> --seed S [--out s.json] [--jobs J] [--swarm] [--time-limit D]',
    about: 'Finds a small fault schedule that still fails the same way, and writes it for dst run --schedule.',
    values: ['seed', 'out', 'jobs', 'time-limit'],
    booleans: ['swarm'],
    details: `  --seed S           the failing seed to shrink (required)
  --out s.json       where to write the shrunk schedule (default: shrink-<seed>.json)
  --jobs J           candidates tried at once (default: the cores, at most 8)`,
  },
  view: {
    usage: 'dst view <trace.jsonl> [--out view.html]',
    about: 'Writes a trace as one self-contained HTML timeline (no network needed to open it).',
    values: ['out'],
    booleans: [],
    details: `  --out view.html    where to write it (default: the trace's name with .html)`,
  },
  trace: {
    usage: 'dst trace export --format chrome <trace.jsonl> [--out trace.json]',
    about: 'Exports a trace as Trace Event JSON for Perfetto (ui.perfetto.dev) and chrome://tracing.',
    values: ['format', 'out'],
    booleans: [],
    details: `  --format chrome    Trace Event JSON: hosts as processes, events as slices, messages as flows
  --out trace.json   where to write it (default: the trace's name with .chrome.json)`,
  },
  help: { usage: 'dst help [command]', about: 'Prints this help, or a command\'s.', values: [], booleans: [] },
};
// Internal commands: a scenario worker of explore, one seed in a child process.
const HIDDEN = {
  __worker: { values: [], booleans: ['swarm'] },
  '__app-worker': { values: [], booleans: [] },
  __seed: { values: ['seed', 'result', 'trace', 'schedule', 'stop-at'], booleans: ['swarm'] },
};

function usage() {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.about}`);
  return `dst ${PACKAGE.version}: deterministic simulation testing for Node.js (run, explore, check, replay, shrink and view seeds)
usage:
${lines.join('\n')}
<file> is a scenario (default export = defineScenario(...)) or a plain program (run as
node --import dst-runtime/register <file>); --swarm and --faults perturb a plain program with
production-shaped faults (DST_FAULTS). \`dst <command> --help\` shows a command's flags.
${EXIT_CODES}`;
}

function commandHelp(name) {
  const c = COMMANDS[name];
  return `usage: ${c.usage}\n${c.about}\n${c.details ? `${c.details}\n` : ''}${EXIT_CODES}`;
}

class Usage extends Error {}

function parseArgs(argv) {
  const [command, ...rest] = argv;
  const spec = COMMANDS[command] ?? HIDDEN[command];
  const flags = {};
  const positional = [];
  const known = (name) => Object.entries(COMMANDS).filter(([, c]) => c.values.includes(name) || c.booleans.includes(name)).map(([n]) => n);
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--help' || arg === '-h') {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    if (spec === undefined) throw new Usage(command === undefined ? 'missing command' : `unknown command ${command}`);
    if (spec.booleans.includes(name)) {
      if (inline !== undefined) throw new Usage(`--${name} takes no value, got --${name}=${inline}`);
      flags[name] = true;
    } else if (spec.values.includes(name)) {
      if (inline !== undefined) flags[name] = inline;
      else if (i + 1 < rest.length && !rest[i + 1].startsWith('--')) flags[name] = rest[++i];
      else throw new Usage(`--${name} needs a value (--${name} V or --${name}=V)`);
    } else {
      const owners = known(name);
      throw new Usage(owners.length > 0 ? `--${name} is not a flag of dst ${command} (it belongs to dst ${owners.join(', dst ')})` : `unknown flag --${name} for dst ${command}`);
    }
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

/**
 * --faults and --swarm for a plain program become DST_FAULTS (what register mode reads), so every
 * child, report and replay command carries them like any other DST_* setting. Returns whether
 * the scenario kind of --swarm still applies (false for a program: DST_FAULTS carries it).
 */
function applyFaults(flags, target) {
  if (target.kind !== 'app') {
    if (flags.faults !== undefined) {
      throw new Usage(`--faults applies to plain programs: a scenario's faults come from its fault profile (faults: { lagPerSecond, stallPerSecond, ... }), and --swarm draws a mix from it`);
    }
    return flags.swarm === true;
  }
  if (flags.faults === undefined && flags.swarm !== true) {
    // DST_FAULTS alone goes to the program as it is: a bad one is refused here, before it runs.
    if (process.env.DST_FAULTS) {
      try {
        parseFaultSpec(process.env.DST_FAULTS, 'DST_FAULTS');
      } catch (error) {
        throw new Usage(error.message);
      }
    }
    return false;
  }
  const base = flags.faults ?? (process.env.DST_FAULTS ? process.env.DST_FAULTS.replace(/^swarm(:|$)/, '') || 'all' : 'all');
  let spec;
  try {
    spec = parseFaultSpec(base, '--faults');
  } catch (error) {
    throw new Usage(error.message);
  }
  if (flags.swarm === true) spec.swarm = true;
  process.env.DST_FAULTS = formatFaultSpec(spec);
  return false;
}

function shellQuote(word) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Settings of this process that change a run: DST_* ones (a planted bug switch, DST_TIME_LIMIT),
 * and the machine's time zone and locale when they are not UTC and en-US (machineSettings).
 */
const PER_RUN = new Set(['DST_SEED', 'DST_TRACE', 'DST_REPORT', 'DST_QUIET', 'DST_PROBE_OUT', 'DST_SHARD', 'DST_SHARD_COUNT', 'DST_DEBUG']);
function settingsEnv() {
  const settings = Object.fromEntries(
    Object.keys(process.env)
      .filter((k) => k.startsWith('DST_') && !PER_RUN.has(k) && process.env[k] !== '')
      .sort()
      .map((k) => [k, process.env[k]]),
  );
  return { ...settings, ...machineSettings() };
}

/** Where this CLI's file really is: asked once, not for each seed's replay command (it is this process's own file). */
let cliRealPath;

/**
 * How to run this CLI again from here, as a user would paste it: `dst` when it is installed on
 * the PATH, `npx dst` when it is a dependency of the project in the working directory, else
 * `node <path to cli/dst.mjs>` (a checkout of dst-runtime itself, where `dst` is not on the PATH);
 * `<this Node's path> <path to cli/dst.mjs>` when the PATH's `node` is another binary.
 */
export function cliCommand(cwd = process.cwd()) {
  const cli = (cliRealPath ??= realpathSync(CLI));
  // Run by a Node the PATH does not find first: that Node runs the CLI's file (dst and npx dst
  // would start the PATH's).
  const node = replayNode();
  if (node !== 'node') return `${shellQuote(node)} ${shellQuote(cli)}`;
  const segments = cli.split(path.sep);
  const nm = segments.lastIndexOf('node_modules');
  if (nm !== -1) {
    // Installed: a dependency of a project at or above cwd runs with npx; otherwise (global) dst.
    const project = segments.slice(0, nm).join(path.sep) || path.sep;
    const rel = path.relative(project, cwd);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)) ? 'npx dst' : 'dst';
  }
  const rel = path.relative(cwd, cli);
  return `node ${shellQuote(rel.startsWith('..') ? cli : rel)}`;
}

/** The command that replays one seed; the settings of this process (settingsEnv) go with it. */
function replayCommand(file, seed, swarm = false, extra = []) {
  const env = Object.entries(settingsEnv()).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...env, cliCommand(), 'run', shellQuote(file), '--seed', seed, ...(swarm ? ['--swarm'] : []), ...extra].join(' ');
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
      // DST_HELD_IMPORTS=0: the probe's own import() of the file must not wait for an event.
      const env = { ...process.env, DST_SEED: '1', DST_QUIET: '1', DST_EVENT_LIMIT: '1', DST_PROBE_OUT: out, DST_HELD_IMPORTS: '0' };
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
    if (verdict.startsWith('error UsageError: Failed to define scenario')) {
      // A scenario whose definition is wrong: said once, not run as a program crashing on every seed.
      throw new Usage(verdict.slice('error UsageError: '.length));
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

/** Node's options of a plain program's process: what it sees as process.execArgv, in a worker too. */
const APP_EXEC_ARGV = ['--import', REGISTER];

/**
 * Node's loader thread (Node 20): every dynamic import() is held, as explore's workers hold them
 * (unless DST_HELD_IMPORTS says otherwise). The program sees the variable, in a worker too.
 */
function heldImportsEnv() {
  const held = process.env.DST_HELD_IMPORTS;
  return LOADER_THREAD && (held === undefined || held === '') ? { DST_HELD_IMPORTS: '1' } : {};
}

/**
 * Runs one seed of a plain program as `DST_SEED=S node --import dst-runtime/register app`, in a
 * child process; its register-mode exit code and DST_REPORT give the result.
 * `inherit` shows the program's output; otherwise the tail of its stderr names the failure.
 */
function runApp(file, seed, { trace, inherit = false, capture = false, keepReport } = {}) {
  const dir = tempDir();
  const report = path.join(dir, 'report.json');
  const env = { ...process.env, ...heldImportsEnv(), DST_SEED: seed, DST_REPORT: report };
  if (trace !== undefined) env.DST_TRACE = trace;
  else delete env.DST_TRACE;
  if (!inherit) env.DST_QUIET = '1';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...APP_EXEC_ARGV, path.resolve(file)], { env, argv0: APP_ARGV0, stdio: inherit ? 'inherit' : ['ignore', capture ? 'pipe' : 'ignore', 'pipe'] });
    const output = capture ? captureOutput(child, { echoStderr: false }) : undefined;
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-16384);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      let data = {};
      try {
        const text = readFileSync(report, 'utf8');
        data = JSON.parse(text);
        if (keepReport !== undefined) writeFileSync(keepReport, text);
      } catch {}
      rmSync(dir, { recursive: true, force: true });
      const dstLine = stderr.split('\n').find((l) => l.startsWith('dst: ') && !l.startsWith('dst: seed ') && !l.startsWith('dst: faults '));
      const exitCode = code ?? 128;
      // The report's message is whole; stderr's first line of it is all of one line only.
      const message = data.failure?.message ?? dstLine?.slice(5) ?? (signal ? `killed by ${signal}` : `exited with code ${exitCode}`);
      const result = appResult(file, seed, { exitCode, elapsedNs: data.elapsedNs ?? 0, events: data.events ?? 0, fingerprint: data.fingerprint ?? 'unknown', message, faults: data.faults });
      resolve(output === undefined ? result : { ...result, output: output() });
    });
  });
}

/**
 * Collects everything a child writes to its piped stdout and stderr (for `dst check`, which
 * compares two runs' output), echoing stderr as it comes when asked. Returns a function that
 * gives both streams' bytes once the child has closed.
 */
function captureOutput(child, { echoStderr }) {
  const chunks = { stdout: [], stderr: [] };
  for (const name of ['stdout', 'stderr']) {
    child[name]?.on('data', (chunk) => {
      chunks[name].push(chunk);
      if (name === 'stderr' && echoStderr) process.stderr.write(chunk);
    });
  }
  return () => ({ stdout: Buffer.concat(chunks.stdout), stderr: Buffer.concat(chunks.stderr) });
}

/**
 * Where two runs' output first differs: the stream, the 1-based line and column, and that line
 * of each run (undefined past a run's end); undefined when both streams are the same bytes.
 */
function firstOutputDifference(a, b) {
  for (const stream of ['stdout', 'stderr']) {
    const x = a[stream];
    const y = b[stream];
    if (x.equals(y)) continue;
    let i = 0;
    while (i < x.length && i < y.length && x[i] === y[i]) i++;
    // (lastIndexOf takes a negative offset from the end: a difference at byte 0 is line 1.)
    const lineStart = i === 0 ? 0 : x.lastIndexOf(10, i - 1) + 1;
    const line = 1 + countNewlines(x, lineStart);
    const lineOf = (bytes) => {
      if (lineStart >= bytes.length) return undefined;
      const end = bytes.indexOf(10, lineStart);
      return bytes.subarray(lineStart, end === -1 ? bytes.length : end).toString('utf8');
    };
    return { stream, line, column: i - lineStart + 1, run1: lineOf(x), run2: lineOf(y), bytes1: x.length, bytes2: y.length };
  }
  return undefined;
}

const records = (n) => `${n} trace record${n === 1 ? '' : 's'}`;

function countNewlines(bytes, end) {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1 && i < end; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

/** One run's side of an output difference: the line (quoted, cut around the column), or its end. */
function describeOutputLine(text, column, bytes) {
  if (text === undefined) return `(ends after ${bytes} bytes)`;
  const from = Math.max(0, column - 60);
  const shown = text.slice(from, from + 160);
  return `${from > 0 ? '…' : ''}${JSON.stringify(shown)}${from + 160 < text.length ? '…' : ''}`;
}

/**
 * The result of one seed of a plain program, from its exit code and register mode's report: the
 * same whether the seed ran in a process of its own (runApp) or in a worker (AppWorker). A
 * failing seed's fingerprint carries how it failed, so a replay must fail the same way.
 */
function appResult(file, seed, { exitCode, elapsedNs, events, fingerprint, message, faults }) {
  const base = { seed, elapsedNs, events, coverage: [], ...(faults === undefined ? {} : { faults }) };
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
 * process.argv0 (and so process.title) of a program run as a seed: `node`, as in the command a
 * user types and the register-mode replay line (`DST_SEED=... node --import ...`), not the
 * absolute path of this Node.
 */
const APP_ARGV0 = 'node';

/**
 * The stdio of a worker process: `stdio` for descriptors 0-2 and its IPC channel on a high
 * descriptor, not on 3, so what a seed's program opens is numbered as in the fresh process that
 * confirms a failure (which has no channel): a failure that shows a descriptor's number replays
 * there. Below the soft limit of open files (Linux's /proc tells it); elsewhere on 3.
 */
function workerStdio(stdio) {
  ipcDescriptor ??= highDescriptor();
  return [...stdio, ...new Array(Math.max(0, ipcDescriptor - stdio.length)).fill('ignore'), 'ipc'];
}

let ipcDescriptor;

function highDescriptor() {
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    if (soft !== undefined && Number(soft) > 64) return Math.min(1000, Number(soft) - 1);
  } catch {
    // No /proc: the channel stays on 3.
  }
  return 3;
}

/** How a worker process ended, for a notice: `was killed by SIGKILL`, `exited with code 1`. */
function howWorkerEnded(code, signal) {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}

/** Says on stderr that a worker died, and that the seed it ran (if any) runs in a process of its own. */
function noteWorkerDied(how, seed) {
  const rerun = seed === undefined ? '' : ` running seed ${seed}, which runs again in a process of its own`;
  process.stderr.write(`dst explore: a worker ${how}${rerun}; a fresh worker takes the rest\n`);
}

/**
 * A worker process that runs seeds of a plain program one after the other (`__app-worker`,
 * shims/program-seeds.ts): each seed as `DST_SEED=S node --import dst-runtime/register app` runs
 * it, without a process start per seed. run(seed) resolves with the seed's result and whether
 * the worker can take another, or with { died } when the worker ended before answering.
 */
class AppWorker {
  constructor(file) {
    this.child = fork(CLI, ['__app-worker', file], { argv0: APP_ARGV0, stdio: workerStdio(['ignore', 'ignore', 'pipe']) });
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
      resolve({ result: message.result, reusable: message.reusable, alone: message.alone });
    });
    this.exited.then(({ code, signal }) => {
      const resolve = this.pending;
      this.pending = undefined;
      resolve?.({ died: howWorkerEnded(code, signal) });
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
async function runSeedInChild(target, seed, { trace, swarm = false, capture = false } = {}) {
  if (target.kind === 'app') return runApp(target.file, seed, { trace, capture });
  const dir = tempDir();
  const out = path.join(dir, 'result.json');
  try {
    const args = [CLI, '__seed', target.file, '--seed', seed, '--result', out, ...(trace ? ['--trace', trace] : []), ...(swarm ? ['--swarm'] : [])];
    let output;
    const code = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', capture ? 'pipe' : 'ignore', capture ? 'pipe' : 'inherit'] });
      if (capture) output = captureOutput(child, { echoStderr: true });
      child.on('error', reject);
      child.on('close', resolve);
    });
    if (code !== 0) throw new Error(`Failed to run seed ${seed} of ${target.file} in a child process: it exited with code ${code}`);
    const result = JSON.parse(readFileSync(out, 'utf8'));
    return output === undefined ? result : { ...result, output: output() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runScenarioSeed(file, scenario, seed, { trace, swarm = false, schedule, scheduleFile, stopAtMs } = {}) {
  const extra = scheduleFile === undefined ? [] : ['--schedule', shellQuote(scheduleFile)];
  return runScenario(scenario, seed, {
    replay: replayCommand(file, seed, swarm, extra),
    swarm,
    ...(trace === undefined ? {} : { trace }),
    ...(schedule === undefined ? {} : { schedule }),
    ...(stopAtMs === undefined ? {} : { stopAtMs }),
  });
}

/** A stack for users: dst-runtime's own frames (World.invoke, Driver.step, bundle chunks) left out unless DST_DEBUG=1. */
function userStack(stack) {
  if (stack === undefined || process.env.DST_DEBUG === '1') return stack;
  const own = [path.dirname(CLI) + path.sep, path.join(path.dirname(CLI), '..', 'dist') + path.sep];
  return stack
    .split('\n')
    .filter((line, i) => i === 0 || !/^\s+at /.test(line) || !own.some((dir) => line.includes(dir) || line.includes(pathToFileURL(dir).href)))
    .join('\n');
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
    if (f.invariant !== undefined) console.log(`  invariant  ${f.invariant}${f.site === undefined ? '' : ` (${f.site})`}`);
    else if (f.site !== undefined) console.log(`  site       ${f.site}`);
    // A crash shows where: the error's stack, without dst-runtime's own frames.
    const stack = userStack(f.stack);
    if (f.kind === 'crash' && stack !== undefined) for (const line of stack.split('\n').slice(1)) console.log(`  ${line.trim().startsWith('at ') ? '  ' : ''}${line.trim()}`);
    console.log(`  replay     ${f.replay}`);
  }
  console.log(`faults       ${result.schedule?.length ?? 0} injected${result.ok ? '' : ' before the failure'}`);
  for (const c of result.coverage) console.log(`coverage     ${c.kind} ${JSON.stringify(c.message)}: ${c.hits}`);
  for (const p of result.pending ?? []) console.log(`pending      ${p.count} promise(s) created at ${p.site} (host ${p.host}) never settled`);
}

function seedOf(flags, fallback) {
  return formatSeed(parseSeed(flags.seed ?? fallback ?? process.env.DST_SEED ?? 1, '--seed'));
}

/** Fails (64) before anything runs when `file` cannot be written (a missing directory, a directory, no permission). */
function checkWritable(file, what) {
  const existed = existsSync(file);
  try {
    closeSync(openSync(file, 'a'));
    if (!existed) rmSync(file, { force: true });
  } catch (error) {
    throw new Usage(`Failed to write ${what} ${file}: ${error.code === 'ENOENT' ? 'no such directory' : error.message}`);
  }
}

const SCHEDULE_FORMAT = 'dst-fault-schedule/1';

/** Reads a schedule file (dst shrink writes them; a plain array of faults is taken too). */
function readSchedule(file) {
  let data;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Usage(`Failed to read schedule ${file}: ${error.message}`);
  }
  const faults = Array.isArray(data) ? data : data?.faults;
  if (!Array.isArray(faults)) throw new Usage(`Failed to read schedule ${file}: not a fault schedule (an object with "faults", as dst shrink writes, or an array)`);
  return { faults, seed: Array.isArray(data) ? undefined : data.seed, settings: Array.isArray(data) ? {} : (data.settings ?? {}), swarm: data.swarm === true };
}

/**
 * The settings a schedule was made with (a planted bug switch, DST_TIME_LIMIT) apply whatever the
 * environment says, as a report's do for dst replay: the schedule replays the run it came from.
 */
function applySettings(settings) {
  const applied = [];
  for (const [key, value] of Object.entries(settings)) {
    if (process.env[key] === value) continue;
    process.env[key] = value;
    applied.push(`${key}=${shellQuote(value)}`);
  }
  return applied;
}

/** Where --view writes a run's page: --out, else beside --trace, else dst-view-<seed>.html here. */
function viewFile(flags, seed) {
  if (flags.out !== undefined) return flags.out;
  if (flags.trace !== undefined) return `${flags.trace.replace(/\.jsonl?$/, '')}.html`;
  return `dst-view-${seed}.html`;
}

// ---- commands ---------------------------------------------------------------------------------

async function run(file, flags) {
  if (flags.out !== undefined && flags.view !== true) throw new Usage('--out names the page of --view: give --view too');
  const target = await resolveTarget(file);
  let schedule;
  if (flags.schedule !== undefined) {
    if (target.kind === 'app') throw new Usage('--schedule needs a scenario: a plain program has no fault driver');
    schedule = readSchedule(flags.schedule);
    const applied = applySettings(schedule.settings);
    if (applied.length > 0) console.log(`settings     ${applied.join(' ')} (from ${flags.schedule})`);
  }
  const seed = seedOf(flags, schedule?.seed);
  const swarm = applyFaults(flags, target) || schedule?.swarm === true;
  const view = flags.view === true ? viewFile(flags, seed) : undefined;
  if (view !== undefined) checkWritable(view, 'the view');
  if (flags.trace !== undefined) checkWritable(flags.trace, '--trace');
  // DST_REPORT, as register mode reads it: the run's JSON report (a scenario's result).
  const report = process.env.DST_REPORT === undefined || process.env.DST_REPORT === '' ? undefined : process.env.DST_REPORT;
  if (report !== undefined) checkWritable(report, 'DST_REPORT');
  const dir = view !== undefined && flags.trace === undefined ? tempDir() : undefined;
  const trace = flags.trace ?? (dir === undefined ? undefined : path.join(dir, 'trace.jsonl'));
  try {
    let code;
    if (target.kind === 'app') {
      // The program's own output and register mode's summary line go straight to the terminal.
      const result = await runApp(file, seed, { trace, inherit: true, keepReport: report });
      if (!result.ok) console.log(`FAILED       ${result.failure.kind} (exit code ${result.failure.exitCode})\n  replay     ${result.failure.replay}`);
      code = exitCodeOf(result);
    } else {
      const scenario = await loadScenario(file);
      const result = await runScenarioSeed(file, scenario, seed, { trace, swarm, schedule: schedule?.faults, scheduleFile: flags.schedule });
      printResult(scenario.name, result);
      if (report !== undefined) writeFileSync(report, `${JSON.stringify(result, (_key, value) => (typeof value === 'bigint' ? String(value) : value), 2)}\n`);
      code = exitCodeOf(result);
    }
    if (report !== undefined) console.log(`report       ${report}`);
    if (flags.trace !== undefined) console.log(`trace        ${flags.trace}`);
    if (view !== undefined) {
      const { file: page } = await writeView(trace, view);
      console.log(`view         ${pathToFileURL(path.resolve(page)).href}`);
    }
    return code;
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** Hidden: one scenario seed, its result written as JSON to --result (for check and replay). */
async function seedCommand(file, flags) {
  const scenario = await loadScenario(file);
  const schedule = flags.schedule === undefined ? undefined : readSchedule(flags.schedule).faults;
  const result = await runScenarioSeed(file, scenario, seedOf(flags), { trace: flags.trace, swarm: flags.swarm === true, schedule, scheduleFile: flags.schedule });
  writeFileSync(flags.result, JSON.stringify(result));
  return ExitCode.ok;
}

/**
 * A worker: runs the scenario seeds the parent sends over IPC, one at a time, and answers each
 * result. A message may carry a fault schedule and a stop time (dst shrink's candidates).
 */
async function worker(file, flags) {
  const scenario = await loadScenario(file);
  const swarm = flags.swarm === true;
  // Messages are handled one after the other, in order: the parent may send the next seed
  // before this one is done (runPool keeps one queued), and seeds never overlap.
  let previous = Promise.resolve();
  process.on('message', (message) => {
    previous = previous.then(async () => {
      if (message.type === 'stop') return process.disconnect();
      const result = await runScenarioSeed(file, scenario, message.seed, { trace: message.trace, swarm, schedule: message.schedule, stopAtMs: message.stopAtMs });
      process.send({ type: 'result', id: message.id, result, ...(workerFull() ? { retire: true } : {}) });
    });
  });
  process.send({ type: 'ready' });
}

/**
 * The heap a worker may hold after a seed before it retires and a fresh one takes the next
 * seeds: DST_WORKER_HEAP_MB, by default 1 GiB or half of V8's limit if that is less. Each seed's
 * ES modules stay in Node's module loader for the life of the process (its load cache keeps every
 * module job, and a seed's modules have URLs of their own): a probe (2026-12-06) saw 1.7 MB a seed
 * for an express program, 9.4 MB for aedes + mqtt.js, 7 MB for a scenario of express module hosts,
 * up to V8's heap limit and an out-of-memory crash. A seed's result does not depend on the worker that runs it.
 */
function workerHeapLimit() {
  const set = process.env.DST_WORKER_HEAP_MB;
  if (set === undefined || set === '') return Math.min(1 << 30, getHeapStatistics().heap_size_limit / 2);
  const mb = Number(set);
  if (!Number.isFinite(mb) || mb <= 0) throw new Usage(`DST_WORKER_HEAP_MB must be a positive number of MiB (the heap an explorer worker may hold before a fresh one takes its seeds), got ${JSON.stringify(set)}`);
  return mb * 2 ** 20;
}

let workerHeapBytes;

function workerFull() {
  workerHeapBytes ??= workerHeapLimit();
  return getHeapStatistics().used_heap_size > workerHeapBytes;
}

/**
 * A worker for the seeds of a plain program: runs each seed the parent sends in this process
 * (shims/program-seeds.ts) and answers its result. It exits after a seed that left something of
 * the program running (process.exit(), a crash, a failure): the parent starts a fresh one.
 */
async function appWorker(file) {
  const { runProgramSeed } = createRequire(import.meta.url)('../dist/program-seeds.cjs');
  const runSeed = async (message) => {
    // The channel must not keep the loop alive: a seed ends when Node's loop has nothing left.
    process.channel.unref();
    const seed = await runProgramSeed(path.resolve(file), message.seed, {
      replay: replayCommand(file, message.seed),
      ...(message.trace === undefined ? {} : { trace: message.trace }),
      // What the program sees of its process, as its replay (runApp) starts it.
      env: heldImportsEnv(),
      execArgv: APP_EXEC_ARGV,
    });
    process.channel.ref();
    const result = appResult(file, message.seed, { ...seed, message: seed.failure?.summary ?? `exited with code ${seed.exitCode}` });
    // Too much memory held (workerHeapLimit): a fresh worker takes the next seed.
    const reusable = seed.reusable && !workerFull();
    process.send({ type: 'result', result, reusable, unfit: seed.unfit, alone: seed.alone }, () => {
      if (!reusable) process.reallyExit(0);
    });
  };
  process.on('message', (message) => {
    if (message.type === 'stop') return process.disconnect();
    // A seed takes the channel off process (shims/process/ipc-channel.ts): start it after Node's
    // dispatch of this message returns (a message that came before this listener is emitted from
    // a loop over the channel's pending messages, which reads process.channel after each).
    process.nextTick(runSeed, message);
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
            if (target.alone !== undefined) {
              // The program cannot run in a worker (below): each seed as its replay runs it.
              const result = await runApp(target.file, s, { trace: traceOf(s) });
              results.push(result);
              onResult(result);
              continue;
            }
            worker ??= new AppWorker(target.file);
            const answer = await worker.run(s, traceOf(s));
            let result = answer.result;
            if (answer.alone !== undefined) {
              // What the program did comes out differently in a worker than in a process of its
              // own: this seed, and every later one, runs alone.
              if (target.alone === undefined) {
                target.alone = answer.alone;
                process.stderr.write(`dst explore: ${target.file} runs each seed in a process of its own (slower): ${answer.alone}\n`);
              }
              await worker.exited;
              worker = undefined;
              result = await runApp(target.file, s, { trace: traceOf(s) });
            } else if (answer.died !== undefined) {
              // The seed ended the worker itself (a signal, a crash of the worker): it runs
              // again in a process of its own, exactly as its replay command runs it.
              noteWorkerDied(answer.died, s);
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
      const startWorker = () => {
        const child = fork(CLI, ['__worker', target.file, ...(swarm ? ['--swarm'] : [])], { stdio: workerStdio(['ignore', 'inherit', 'inherit']) });
        // Seeds sent and not answered yet, in order (the first is the one running). While many
        // seeds are left each worker has one more queued behind the one it runs, so it starts the
        // next the moment it answers, without waiting a round trip through this process (which
        // shares the cores with the workers); near the end one at a time, so no worker holds a
        // seed while another has nothing to do.
        const inFlight = [];
        let stopped = false;
        // The worker said it holds too much memory (workerHeapLimit): it takes no more seeds,
        // and a fresh one takes the rest.
        let retiring = false;
        const send = () => {
          const seed = take();
          if (seed === undefined) return false;
          inFlight.push(seed);
          child.send({ type: 'seed', seed: formatSeed(seed), trace: traceOf(formatSeed(seed)) });
          return true;
        };
        const refill = () => {
          const depth = retiring ? 0 : queue.length >= slots * 2 ? 2 : 1;
          while (inFlight.length < depth && send());
          if (inFlight.length === 0 && !stopped) {
            stopped = true;
            child.send({ type: 'stop' });
          }
        };
        child.on('message', (message) => {
          if (message.type === 'result') {
            inFlight.shift();
            if (message.retire === true) retiring = true;
            results.push(message.result);
            onResult(message.result);
          }
          refill();
        });
        child.on('exit', (code, signal) => {
          if (code === 0 && inFlight.length === 0) {
            if (retiring && queue.length > 0 && !shouldStop()) startWorker();
            else finished();
            return;
          }
          // The worker died (out of memory, a signal, a crash of its own): the seed it ran goes
          // to a process of its own, as its replay runs it, and a fresh worker takes the rest.
          // Before, the whole exploration failed with "a worker exited with code null" and no
          // report (a probe, 2026-12-06: a scenario whose worker grew 7 MB a seed, at seed 580).
          const [running, ...queued] = inFlight;
          queue.unshift(...queued);
          const s = running === undefined ? undefined : formatSeed(running);
          noteWorkerDied(howWorkerEnded(code, signal), s);
          const rerun = s === undefined ? Promise.resolve() : runSeedInChild(target, s, { trace: traceOf(s), swarm }).then((result) => {
            results.push(result);
            onResult(result);
          });
          rerun.then(() => (queue.length > 0 && !shouldStop() ? startWorker() : finished()), reject);
        });
      };
      startWorker();
    }
  });
}

/** Seeds of a shard: the i-th seed of the range belongs to shard (i mod n) + 1. */
export function shardSeeds(first, count, shard) {
  const seeds = [];
  for (let i = 0; i < count; i++) if (shard === undefined || i % shard.n === shard.k - 1) seeds.push(first + BigInt(i));
  return seeds;
}

/** Why a run with the recorded events can still end otherwise. */
const OUTSIDE_DATA = 'the failure depends on data from outside the simulation (a real file, a child process\'s output, the machine)';

/**
 * Whether a run of a failing seed in a fresh process (`again`) replayed the one `recorded`
 * (fingerprint, kind, message): the same events and the same failure. Equal fingerprints mean
 * equal schedules, not equal data: a failure that depends on something from outside the
 * simulation can pass, or fail otherwise, on the same schedule; `replayedAs` then says which.
 */
function replayOutcome(recorded, again) {
  if (again === undefined || again.fingerprint !== recorded.fingerprint) return { replays: false };
  if (!again.ok && again.failure?.kind === recorded.kind && again.failure?.message === recorded.message) return { replays: true };
  return { replays: false, replayedAs: again.ok ? 'passed' : `failed otherwise: ${again.failure?.kind}: ${again.failure?.message}` };
}

function printFailureTable(rows, total) {
  console.log(`\n${rows.length} failing seed(s) of ${total}:`);
  console.log('seed        kind        replays  replay command');
  for (const row of rows) console.log(`${row.seed.padEnd(11)} ${row.kind.padEnd(11)} ${(row.replays ? 'yes' : 'NO').padEnd(8)} ${row.replay}`);
  for (const row of rows.slice(0, 3)) console.log(`  ${row.seed}: ${row.message}`);
  for (const row of rows) {
    if (row.replayedAs === undefined) continue;
    console.log(`  ${row.seed}: the fresh run had the same events but ${row.replayedAs}: ${OUTSIDE_DATA}`);
  }
  // The fault mix of every failing seed: what it takes to fail is part of the finding.
  for (const row of rows) {
    if (row.swarm !== undefined) console.log(`  ${row.seed} swarm: ${formatFaultMix(row.swarm)}`);
    if (row.faults !== undefined) console.log(`  ${row.seed} faults: ${formatFaultMix(row.faults)}`);
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

/**
 * The shard this process runs with `--shard auto`: from the variables batch systems set. Returns
 * { k, n, source } (k from 1), or throws a usage error naming what it looked for.
 */
export function shardFromEnvironment(env = process.env) {
  const set = (name) => env[name] !== undefined && env[name] !== '';
  const int = (name) => {
    const text = env[name];
    if (!/^\d+$/.test(text)) throw new Usage(`--shard auto: ${name}=${JSON.stringify(text)} is not a whole number`);
    return Number(text);
  };
  const from = (k, n, source) => {
    if (!(n >= 1 && k >= 1 && k <= n)) throw new Usage(`--shard auto: ${source} gives shard ${k} of ${n}, outside 1..${n}`);
    return { k, n, source };
  };
  if (set('DST_SHARD')) {
    const m = /^(\d+)\/(\d+)$/.exec(env.DST_SHARD);
    if (!m) throw new Usage(`--shard auto: DST_SHARD must be k/n (1 <= k <= n), got ${JSON.stringify(env.DST_SHARD)}`);
    return from(Number(m[1]), Number(m[2]), `DST_SHARD=${env.DST_SHARD}`);
  }
  // Kubernetes Indexed Job: the pod's index from 0; the completions count is not in the pod's
  // environment, so the Job sets DST_SHARD_COUNT to it.
  if (set('JOB_COMPLETION_INDEX')) {
    if (!set('DST_SHARD_COUNT')) throw new Usage('--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but DST_SHARD_COUNT is not: set it to the Job\'s completions');
    return from(int('JOB_COMPLETION_INDEX') + 1, int('DST_SHARD_COUNT'), `JOB_COMPLETION_INDEX=${env.JOB_COMPLETION_INDEX}, DST_SHARD_COUNT=${env.DST_SHARD_COUNT}`);
  }
  const pairs = [
    ['CI_NODE_INDEX', 'CI_NODE_TOTAL', 1, 'GitLab parallel'],
    ['CIRCLE_NODE_INDEX', 'CIRCLE_NODE_TOTAL', 0, 'CircleCI parallelism'],
    ['BUILDKITE_PARALLEL_JOB', 'BUILDKITE_PARALLEL_JOB_COUNT', 0, 'Buildkite parallelism'],
  ];
  for (const [index, total, base] of pairs) {
    if (set(index) && set(total)) return from(int(index) + 1 - base, int(total), `${index}=${env[index]}, ${total}=${env[total]}`);
  }
  throw new Usage(
    '--shard auto found no shard in the environment: set DST_SHARD=k/n (a GitHub Actions matrix), or run as a Kubernetes ' +
      'Indexed Job (JOB_COMPLETION_INDEX, with DST_SHARD_COUNT = completions), GitLab parallel (CI_NODE_INDEX/CI_NODE_TOTAL), ' +
      'CircleCI (CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL) or Buildkite (BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT)',
  );
}

function parseShard(text) {
  if (text === undefined) return undefined;
  if (text === 'auto') return shardFromEnvironment();
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const [k, n] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (!match || n < 1 || k < 1 || k > n) throw new Usage(`--shard must be k/n with 1 <= k <= n, or auto, got ${text}`);
  return { k, n };
}

function seconds(ms) {
  return ms >= 120_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

async function explore(file, flags) {
  if (flags.seeds === undefined) throw new Usage('--seeds is required: how many seeds to explore (dst explore <file> --seeds N)');
  const count = positiveInt(flags.seeds, 'seeds');
  const jobs = flags.jobs === undefined ? Math.max(1, Math.min(os.availableParallelism?.() ?? 2, 8)) : positiveInt(flags.jobs, 'jobs');
  const first = parseSeed(flags.first ?? 1, '--first');
  const shard = parseShard(flags.shard);
  // Everything that could fail at the end fails now, before any seed runs.
  workerHeapLimit();
  if (flags.report !== undefined) checkWritable(flags.report, '--report');
  // The failing seeds' traces are written at the end, by name (t.<seed>.jsonl): the first seed's stands for them.
  if (flags.trace !== undefined) checkWritable(`${flags.trace}.${formatSeed(first)}.jsonl`, '--trace');
  const target = await resolveTarget(file);
  const swarm = applyFaults(flags, target);
  const name = target.kind === 'scenario' ? (await loadScenario(file)).name : `${file} (program)`;
  if (shard?.source !== undefined) console.error(`dst explore: shard ${shard.k}/${shard.n} (from ${shard.source})`);
  const seeds = shardSeeds(first, count, shard);
  const started = Date.now();
  let done = 0;
  let failures = 0;
  let lastLine = 0;
  const tty = process.stderr.isTTY === true;
  let lastText;
  const say = (line, final = false) => {
    if (tty) process.stderr.write(`\r${line}\x1b[K${final ? '\n' : ''}`);
    else if ((final && line !== lastText) || Date.now() - lastLine >= 2000) {
      // Not a terminal (CI logs): a plain line every 2 s, and the last one (once).
      lastLine = Date.now();
      lastText = line;
      process.stderr.write(`${line}\n`);
    }
  };
  const progress = (final = false) => {
    const elapsed = Date.now() - started;
    const rate = done / Math.max(0.001, elapsed / 1000);
    const eta = done > 0 && done < seeds.length ? `   ETA ${seconds(((seeds.length - done) / rate) * 1000)}` : '';
    say(`dst explore: ${done}/${seeds.length} seeds   ${rate.toFixed(1)} seeds/s   ${failures} failing${eta}`, final);
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
  const exploredMs = Date.now() - started;
  const failing = results.filter((r) => !r.ok).sort((a, b) => (BigInt(a.seed) < BigInt(b.seed) ? -1 : 1));

  // Confirm each failure replays: the same seed in a fresh process must fail identically (for a
  // plain program: run by its replay command, so a seed that failed in a worker is also checked
  // against a process of its own).
  const view = flags.view === true;
  const viewDir = view && flags.trace === undefined ? tempDir() : undefined;
  const traceBase = flags.trace ?? (viewDir === undefined ? undefined : path.join(viewDir, 'dst-view'));
  const traceOf = traceBase === undefined ? () => undefined : (seed) => `${traceBase}.${seed}.jsonl`;
  let confirmed = 0;
  const confirmStarted = Date.now();
  const confirming = (final = false) => {
    const elapsed = Date.now() - confirmStarted;
    const eta = confirmed > 0 && confirmed < failing.length ? `   ETA ${seconds((elapsed / confirmed) * (failing.length - confirmed))}` : '';
    say(`dst explore: confirming failures in fresh processes: ${confirmed}/${failing.length}${eta}`, final);
  };
  if (failing.length > 0) {
    lastLine = 0;
    confirming();
  }
  const confirmations = failing.length === 0 ? [] : await runPool(target, failing.map((r) => BigInt(r.seed)), jobs, { swarm, traceOf, processPerSeed: true }, () => {
    confirmed++;
    confirming();
  });
  if (failing.length > 0) confirming(true);
  const bySeed = new Map(confirmations.map((r) => [r.seed, r]));
  const pages = new Map();
  if (view) {
    for (const r of failing) {
      const page = flags.trace === undefined ? `dst-view-${r.seed}.html` : `${flags.trace}.${r.seed}.html`;
      try {
        await writeView(traceOf(r.seed), page);
        pages.set(r.seed, page);
      } catch (error) {
        console.error(`dst explore: ${error.message}`);
      }
    }
    if (viewDir !== undefined) rmSync(viewDir, { recursive: true, force: true });
  }
  const elapsedMs = Date.now() - started;
  const rows = failing.map((r) => ({
    seed: r.seed,
    kind: r.failure.kind,
    message: r.failure.message,
    timeNs: r.failure.timeNs,
    fingerprint: r.fingerprint,
    ...replayOutcome({ fingerprint: r.fingerprint, kind: r.failure.kind, message: r.failure.message }, bySeed.get(r.seed)),
    replay: replayCommand(file, r.seed, swarm),
    ...(r.failure.exitCode === undefined ? {} : { exitCode: r.failure.exitCode }),
    ...(r.swarm === undefined ? {} : { swarm: r.swarm }),
    ...(r.faults === undefined ? {} : { faults: r.faults }),
    ...(flags.trace === undefined ? {} : { trace: traceOf(r.seed) }),
    ...(pages.has(r.seed) ? { view: pages.get(r.seed) } : {}),
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
  for (const row of rows) if (row.view !== undefined) console.log(`view      ${row.seed}: ${pathToFileURL(path.resolve(row.view)).href}`);
  const coverageSorted = [...coverage.values()].sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  for (const c of coverageSorted) console.log(`coverage  ${c.kind} ${JSON.stringify(c.message)}: ${c.seeds} seed(s), ${c.hits} hit(s)`);
  const seedsPerSecond = Math.round((results.length / Math.max(0.001, exploredMs / 1000)) * 10) / 10;
  const confirmation = failing.length === 0 ? '' : ` (exploring ${seconds(exploredMs)}, confirming ${failing.length} failure(s) ${seconds(elapsedMs - exploredMs)})`;
  console.log(`${results.length} seeds in ${seconds(elapsedMs)}${confirmation}: ${seedsPerSecond} seeds/s with ${jobs} job(s)`);

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
  const swarm = applyFaults(flags, target);
  const dir = flags.trace === undefined ? tempDir() : undefined;
  const traces = flags.trace === undefined ? [path.join(dir, 'run-1.jsonl'), path.join(dir, 'run-2.jsonl')] : [`${flags.trace}.1.jsonl`, `${flags.trace}.2.jsonl`];
  // Before either run: a trace that cannot be written is a usage error, not a crash after the runs.
  if (flags.trace !== undefined) for (const trace of traces) checkWritable(trace, '--trace');
  try {
    // Two fresh processes, one after the other: whatever the simulator does not control (pids,
    // the real clock, files) gets a chance to differ.
    // The program's output is compared too: a value from outside the simulation's control that
    // is only printed (or sent, then printed) changes no event, so the traces alone miss it.
    const first = await runSeedInChild(target, seed, { trace: traces[0], swarm, capture: true });
    const second = await runSeedInChild(target, seed, { trace: traces[1], swarm, capture: true });
    const { divergence, compared } = await firstDivergence(traces[0], traces[1]);
    const printed = firstOutputDifference(first.output, second.output);
    const outcome = (r) => (r.ok ? 'ok' : `${r.failure.kind}: ${r.failure.message}`);
    if (divergence === undefined && first.fingerprint === second.fingerprint && printed === undefined) {
      const bytes = first.output.stdout.length + first.output.stderr.length;
      console.log(`deterministic  seed ${seed}  fingerprint ${first.fingerprint}  (${records(compared)} and ${bytes} bytes of output compared; outcome ${outcome(first)})`);
      if (flags.trace !== undefined) console.log(`traces         ${traces.join(' ')}`);
      return ExitCode.ok;
    }
    console.log(`NONDETERMINISTIC  seed ${seed}: two runs of ${file} differ`);
    if (divergence === undefined && first.fingerprint === second.fingerprint) {
      console.log(`  the events agree (${records(compared)}, fingerprint ${first.fingerprint}) but the program's output differs:`);
      console.log(`  first difference: ${printed.stream} line ${printed.line}, column ${printed.column}`);
      console.log(`  run 1  ${describeOutputLine(printed.run1, printed.column, printed.bytes1)}`);
      console.log(`  run 2  ${describeOutputLine(printed.run2, printed.column, printed.bytes2)}`);
      console.log(`  the program printed something the simulator does not control (the real world: a real file's contents or times, /proc, a source guide §5 lists as not seeded)`);
    } else if (divergence === undefined) {
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
  if (flags.out !== undefined && flags.view !== true) throw new Usage('--out names the page of --view: give --view too');
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
  const page = flags.view === true ? viewFile(flags, row.seed) : undefined;
  if (page !== undefined) checkWritable(page, 'the view');
  const dir = page !== undefined && flags.trace === undefined ? tempDir() : undefined;
  const trace = flags.trace ?? (dir === undefined ? undefined : path.join(dir, 'trace.jsonl'));
  let result;
  try {
    result = await runSeedInChild(target, row.seed, { trace, swarm: report.swarm === true });
    if (page !== undefined) await writeView(trace, page);
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
  const { replays, replayedAs } = replayOutcome(row, result);
  const ordinal = ['first', 'second', 'third'][index] ?? `${index + 1}th`;
  console.log(`replay       ${report.file} seed ${row.seed} (--index ${index}: the ${ordinal} of the ${report.failing.length} failing seed(s) in ${reportFile}, counted from 0)`);
  if (result.swarm !== undefined) console.log(`swarm        ${formatFaultMix(result.swarm)}`);
  if (result.faults !== undefined) console.log(`faults       ${formatFaultMix(result.faults)}`);
  console.log(`recorded     ${row.kind}: ${row.message}   fingerprint ${row.fingerprint}`);
  console.log(`now          ${result.ok ? 'ok' : `${result.failure.kind}: ${result.failure.message}`}   fingerprint ${result.fingerprint}`);
  if (flags.trace !== undefined) console.log(`trace        ${flags.trace}`);
  if (page !== undefined) console.log(`view         ${pathToFileURL(path.resolve(page)).href}`);
  if (!replays) {
    console.log(replayedAs !== undefined
      ? `NOT REPRODUCED: the same events as recorded, but it ${result.ok ? 'passed' : 'failed otherwise'}: ${OUTSIDE_DATA}`
      : 'NOT REPRODUCED: the seed ran differently than recorded (nondeterminism, or the code or settings changed)');
    return ExitCode.nondeterminism;
  }
  console.log('reproduced   same failure, same fingerprint');
  return exitCodeOf(result);
}

async function mergeCommand(files, flags) {
  if (files.length === 0) throw new Usage('missing reports: dst merge-reports a.json b.json ... [--out merged.json]');
  if (flags.out !== undefined) checkWritable(flags.out, '--out');
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

async function viewCommand(file, flags) {
  if (file === undefined) throw new Usage('missing <trace.jsonl> (write one with DST_TRACE=t.jsonl, --trace or the trace option)');
  if (flags.out !== undefined) checkWritable(flags.out, '--out');
  let written;
  try {
    written = await writeView(file, flags.out);
  } catch (error) {
    throw new Usage(error.message);
  }
  const { model } = written;
  console.log(`view         ${pathToFileURL(path.resolve(written.file)).href}`);
  const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  console.log(`             ${count(model.hosts.length, 'host')}, ${count(model.events.length, 'event')}, ${count(model.messages.length, 'message')}, ${count(model.bands.length, 'fault band')}${model.failure === undefined ? '' : `, failed (${model.failure.failure}) at event ${model.failure.n}`}`);
  return ExitCode.ok;
}

async function traceCommand(positional, flags) {
  const [sub, file] = positional;
  if (sub !== 'export') throw new Usage(sub === undefined ? 'missing subcommand: dst trace export --format chrome <trace.jsonl>' : `unknown subcommand dst trace ${sub} (known: export)`);
  if (flags.format !== 'chrome') throw new Usage(flags.format === undefined ? '--format is required: --format chrome (Trace Event JSON for Perfetto and chrome://tracing)' : `unknown --format ${flags.format} (known: chrome)`);
  if (file === undefined) throw new Usage('missing <trace.jsonl>');
  const out = flags.out ?? `${file.replace(/\.jsonl?$/, '')}.chrome.json`;
  checkWritable(out, '--out');
  let records;
  try {
    records = await readTrace(file);
  } catch (error) {
    throw new Usage(error.message);
  }
  const chrome = toChromeTrace(records);
  writeFileSync(out, JSON.stringify(chrome));
  console.log(`exported     ${out} (${chrome.traceEvents.length} trace events; open it in ui.perfetto.dev or chrome://tracing)`);
  return ExitCode.ok;
}

async function shrinkCommand(file, flags) {
  if (flags.seed === undefined) throw new Usage('--seed is required: the failing seed to shrink (dst shrink <scenario> --seed S)');
  const seed = seedOf(flags);
  const out = flags.out ?? `shrink-${seed}.json`;
  checkWritable(out, '--out');
  const target = await resolveTarget(file);
  if (target.kind === 'app') throw new Usage('dst shrink needs a scenario: a plain program has no fault driver whose faults could be shrunk');
  const scenario = await loadScenario(file);
  const jobs = flags.jobs === undefined ? Math.max(1, Math.min(os.availableParallelism?.() ?? 2, 8)) : positiveInt(flags.jobs, 'jobs');
  const swarm = flags.swarm === true;
  const pool = workerPool(file, jobs, swarm);
  let outcome;
  try {
    outcome = await shrink({ scenario, seed, run: pool.run, jobs, log: (line) => console.error(`dst shrink: ${line}`) });
  } finally {
    pool.close();
  }
  if (outcome.passed) {
    console.log(`seed ${seed} passes: nothing to shrink`);
    return ExitCode.ok;
  }
  const { original, final, faults, runs, elapsedMs } = outcome;
  const schedule = {
    format: SCHEDULE_FORMAT,
    scenario: scenario.name,
    file,
    seed,
    swarm,
    settings: settingsEnv(),
    failure: { kind: final.failure.kind, message: final.failure.message, ...(final.failure.invariant === undefined ? {} : { invariant: final.failure.invariant }), timeNs: final.failure.timeNs, event: final.failure.event, fingerprint: final.fingerprint },
    original: { faults: original.schedule.length, fingerprint: original.fingerprint, timeNs: original.failure.timeNs },
    faults,
  };
  writeFileSync(out, `${JSON.stringify(schedule, null, 2)}\n`);
  console.log(`shrunk       ${scenario.name} seed ${seed}: ${original.schedule.length} fault(s) -> ${faults.length}, in ${runs} runs, ${seconds(elapsedMs)}`);
  console.log(`failure      ${final.failure.kind}: ${final.failure.message}`);
  console.log(`  at         ${(final.failure.timeNs / 1e9).toFixed(9)} s (virtual)   event ${final.failure.event}   (the original failed at ${(original.failure.timeNs / 1e9).toFixed(9)} s)`);
  for (const f of faults) console.log(`fault        ${describeFault(f)}`);
  console.log(`schedule     ${out}`);
  console.log(`replay       ${replayCommand(file, seed, swarm, ['--schedule', shellQuote(out)])}`);
  return exitCodeOf(final);
}

/** One fault of a schedule, for people: "at 0.320 s partition r1 <-> r2 for 970 ms". */
function describeFault(f) {
  const at = `at ${(f.atMs / 1000).toFixed(3)} s`;
  const who = f.target ?? `${f.a} ${f.fault === 'partitionOneway' ? '->' : '<->'} ${f.b}`;
  const extra = [f.latencyMs === undefined ? '' : `latency ${Math.round(f.latencyMs * 1000) / 1000} ms`, f.skewMs === undefined ? '' : `skew ${f.skewMs} ms`, f.downMs === undefined ? '' : `for ${f.downMs} ms`].filter(Boolean);
  return `${at}  ${f.fault} ${who}${extra.length > 0 ? ` ${extra.join(' ')}` : ''}`;
}

/**
 * Scenario worker processes taking one task at a time: run(task) resolves with the result of
 * { seed, schedule?, stopAtMs? }. Tasks go to the first free worker, in the order given.
 */
function workerPool(file, jobs, swarm) {
  const queue = [];
  const idle = [];
  const pending = new Map();
  let nextId = 0;
  let closed = false;
  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const child = idle.shift();
      const task = queue.shift();
      pending.set(task.id, task);
      child.send({ type: 'seed', ...task.message, id: task.id });
    }
  };
  const children = [];
  for (let j = 0; j < jobs; j++) {
    const child = fork(CLI, ['__worker', file, ...(swarm ? ['--swarm'] : [])], { stdio: workerStdio(['ignore', 'ignore', 'inherit']) });
    children.push(child);
    child.on('message', (message) => {
      if (message.type === 'result') {
        const task = pending.get(message.id);
        pending.delete(message.id);
        task?.resolve(message.result);
      }
      idle.push(child);
      dispatch();
    });
    child.on('exit', (code) => {
      if (closed) return;
      for (const task of pending.values()) task.reject(new Error(`Failed to shrink: a worker exited with code ${code}`));
    });
  }
  return {
    run: (message) =>
      new Promise((resolve, reject) => {
        queue.push({ id: ++nextId, message, resolve, reject });
        dispatch();
      }),
    close: () => {
      closed = true;
      for (const child of children) if (child.connected) child.send({ type: 'stop' });
    },
  };
}

async function main(argv) {
  try {
    if (argv.length === 0) throw new Usage('missing command');
    if (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version') {
      console.log(PACKAGE.version);
      return ExitCode.ok;
    }
    if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
      const topic = argv[1];
      if (topic !== undefined && COMMANDS[topic] === undefined) throw new Usage(`unknown command ${topic} (dst help lists them)`);
      console.log(topic === undefined || topic === 'help' ? usage() : commandHelp(topic));
      return ExitCode.ok;
    }
    const { command, file, positional, flags } = parseArgs(argv);
    if (flags.help === true && COMMANDS[command] !== undefined) {
      console.log(commandHelp(command));
      return ExitCode.ok;
    }
    applyTimeLimit(flags);
    if (command === '__worker') return await worker(file, flags);
    if (command === '__app-worker') return await appWorker(file);
    if (command === '__seed') return await seedCommand(file, flags);
    if (command === 'run') return await run(file, flags);
    if (command === 'explore') return await explore(file, flags);
    if (command === 'check') return await check(file, flags);
    if (command === 'replay') return await replay(file, flags);
    if (command === 'merge-reports') return await mergeCommand(positional, flags);
    if (command === 'shrink') return await shrinkCommand(file, flags);
    if (command === 'view') return await viewCommand(file, flags);
    if (command === 'trace') return await traceCommand(positional, flags);
    throw new Usage(`unknown command ${command}`);
  } catch (error) {
    if (error instanceof Usage || error?.name === 'UsageError') {
      console.error(`dst: ${error.message}\n(dst --help lists the commands, dst <command> --help their flags)`);
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
