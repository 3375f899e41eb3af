/**
 * dst-runtime benchmarks: `npm run bench` (builds first), or `node bench/run.mjs [options]`.
 *
 *   --quick        tiny workloads, for the smoke test (figures are meaningless, shapes are not)
 *   --out <file>   where to write the JSON (default bench/results/latest.json)
 *   --only <id>    measure one figure only (timerThroughput, virtualSpeed, tcpRoundTrips,
 *                  udpGossip, exploreSeeds, programSeeds, postgresSeeds, tlsRequests, kvReload,
 *                  mqttReload, mqttSeeds or registerStartup); repeatable. postgresSeeds needs PGlite in
 *                  examples/postgres, mqttReload and mqttSeeds mqtt.js and aedes in bench/npm-hosts
 *                  (installed by the bench from the registry); each is skipped with the reason without them.
 *
 * Every case runs in its own child process (same node binary as this one, so running this file
 * with another node measures that version): warm-ups first, then a few repetitions taken in
 * rounds across the subjects of a figure, of which the median counts. Simulated runs use a fixed
 * seed, so their fingerprints must repeat exactly; if they do not, the bench fails loudly (exit
 * code 1). A missed goal is reported, not fatal: a benchmark is not a test. Ratios without a
 * goal are printed as "no goal". See docs/benchmarks.md for what each figure means.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_SEED_TEXT, FIGURES } from './figures.mjs';
import { median } from './stats.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT_DIR = path.dirname(BENCH_DIR);
const WORKER = path.join(BENCH_DIR, 'worker.mjs');
/** A single run that takes longer than this is hung: kill its worker and fail. */
const RUN_TIMEOUT_MS = 5 * 60 * 1000;
/** Below this CPU time per wall time, a run waited for a core more than it ran. */
const STARVED_CPU_PER_WALL = 0.8;

function parseArgs(argv) {
  const args = { quick: false, out: path.join(BENCH_DIR, 'results', 'latest.json'), only: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') args.quick = true;
    else if (arg === '--out' && i + 1 < argv.length) args.out = path.resolve(argv[++i]);
    else if (arg.startsWith('--out=')) args.out = path.resolve(arg.slice('--out='.length));
    else if (arg === '--only' && i + 1 < argv.length) args.only.push(argv[++i]);
    else {
      console.error(`Failed to parse arguments: unknown argument "${arg}" (known: --quick, --out <file>, --only <figure>)`);
      process.exit(2);
    }
  }
  for (const id of args.only) {
    if (!(id in FIGURES)) {
      console.error(`Failed to parse arguments: unknown figure "${id}" for --only (known: ${Object.keys(FIGURES).join(', ')})`);
      process.exit(2);
    }
  }
  return args;
}

/** One case's worker process; request() runs the case once and resolves with its result. */
class CaseWorker {
  constructor(caseName, size) {
    this.caseName = caseName;
    this.waiting = undefined;
    this.exited = false;
    this.child = spawn(process.execPath, ['--expose-gc', WORKER, caseName, size], {
      cwd: ROOT_DIR,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
    this.child.on('message', (message) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting === undefined) return;
      if (message.error !== undefined) waiting.reject(new Error(`Failed to run benchmark case "${caseName}": ${message.error}`));
      else waiting.resolve(message.result);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.reject(new Error(`Failed to run benchmark case "${caseName}": its worker exited with ${signal ?? `code ${code}`}`));
    });
  }

  request() {
    const done = new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
    const timer = setTimeout(() => this.child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    this.child.send({ run: true });
    return done.finally(() => clearTimeout(timer));
  }

  close() {
    if (!this.exited) this.child.send({ exit: true });
  }
}

/**
 * Runs the subjects of one figure: each in its own worker, warm-ups first, then the measured
 * repetitions in rounds (one of each subject per round), so that load from elsewhere on the
 * machine, which comes and goes, falls on every subject alike.
 */
async function runSubjects(subjects, size) {
  const entries = Object.entries(subjects);
  const workers = new Map();
  const reports = {};
  try {
    for (const [key, subject] of entries) {
      const worker = new CaseWorker(subject.case, size);
      workers.set(key, worker);
      await worker.ready;
      reports[key] = { case: subject.case, warmups: [], reps: [] };
    }
    for (const [key, subject] of entries) {
      process.stderr.write(`bench: warming up ${subject.case}\n`);
      for (let i = 0; i < subject.warmups; i++) reports[key].warmups.push(await workers.get(key).request());
    }
    const rounds = Math.max(...entries.map(([, subject]) => subject.reps));
    for (let round = 0; round < rounds; round++) {
      process.stderr.write(`bench: round ${round + 1} of ${rounds}\n`);
      for (const [key, subject] of entries) {
        if (round < subject.reps) reports[key].reps.push(await workers.get(key).request());
      }
    }
  } finally {
    for (const worker of workers.values()) worker.close();
  }
  return reports;
}

/** Reduces a worker's report to the figures of one subject. */
function summarise(subject, report, figure) {
  const runs = report.reps;
  const wallNsMedian = median(runs.map((r) => r.wallNs));
  const events = runs[0].events;
  const fingerprints = [...report.warmups, ...runs].map((r) => r.fingerprint).filter((f) => f !== undefined);
  const summary = {
    subject: subject.label,
    case: report.case,
    metric: subject.metric ?? figure.metric,
    warmups: report.warmups.length,
    repetitions: runs.length,
    events,
    wallMsMedian: wallNsMedian / 1e6,
    wallMsMin: Math.min(...runs.map((r) => r.wallNs)) / 1e6,
    wallMsSamples: runs.map((r) => r.wallNs / 1e6),
    eventsPerSecond: events / (wallNsMedian / 1e9),
    eventsPerSecondSamples: runs.map((r) => r.events / (r.wallNs / 1e9)),
    virtualSecondsPerWallSecond: runs[0].virtualNs === undefined ? undefined : median(runs.map((r) => r.virtualNs / r.wallNs)),
    // The same per CPU second of this process: steadier than wall time when other processes
    // compete for the cores (cpu/wall well below 1 says a run was starved).
    cpuMsMedian: median(runs.map((r) => r.cpuNs)) / 1e6,
    cpuPerWall: median(runs.map((r) => r.cpuNs / r.wallNs)),
    eventsPerCpuSecond: median(runs.map((r) => r.events / (r.cpuNs / 1e9))),
    virtualSecondsPerCpuSecond: runs[0].virtualNs === undefined ? undefined : median(runs.map((r) => r.virtualNs / r.cpuNs)),
  };
  if (runs[0].roundTrips !== undefined) {
    // Request/response workloads: the same per round trip (the count is fixed by the workload).
    summary.roundTrips = runs[0].roundTrips;
    summary.roundTripsPerSecond = summary.roundTrips / (wallNsMedian / 1e9);
    summary.roundTripsPerCpuSecond = median(runs.map((r) => r.roundTrips / (r.cpuNs / 1e9)));
    summary.eventsPerRoundTrip = events / summary.roundTrips;
  }
  if (runs[0].seeds !== undefined) {
    // The explorer: seeds per second (its "events" are seeds).
    summary.seeds = runs[0].seeds;
    summary.seedsPerSecond = summary.seeds / (wallNsMedian / 1e9);
    summary.seedsPerCpuSecond = median(runs.map((r) => r.seeds / (r.cpuNs / 1e9)));
  }
  if (runs[0].loads !== undefined) {
    // Module host loads (figures 9 and 10): CPU and wall ms per load; cpu/wall is the load's own.
    summary.loads = runs[0].loads;
    summary.cpuMsPerLoad = median(runs.map((r) => r.cpuNs / r.loads)) / 1e6;
    summary.wallMsPerLoad = median(runs.map((r) => r.wallNs / r.loads)) / 1e6;
  }
  if (runs[0].starts !== undefined) {
    // Process start-up: milliseconds per start (its "events" are starts).
    summary.starts = runs[0].starts;
    summary.wallMsPerStart = wallNsMedian / 1e6 / summary.starts;
    summary.cpuMsPerStart = median(runs.map((r) => r.cpuNs / 1e6 / r.starts));
  }
  summary.starved = summary.cpuPerWall < STARVED_CPU_PER_WALL;
  if (fingerprints.length > 0) {
    summary.fingerprint = fingerprints[0];
    summary.fingerprints = fingerprints;
    summary.fingerprintConsistent = fingerprints.every((f) => f === fingerprints[0]);
  }
  return summary;
}

function cpuModel() {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'));
    if (line !== undefined) return line.split(':')[1].trim();
  } catch {
    // Not Linux: fall back to what Node reports.
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

function gitRevision() {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT_DIR, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'runtime', 'shims', 'index.ts'], { cwd: ROOT_DIR, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${rev}+dirty` : rev;
  } catch {
    return undefined;
  }
}

function environment() {
  const fakeTimersVersion = JSON.parse(readFileSync(path.join(ROOT_DIR, 'node_modules/@sinonjs/fake-timers/package.json'), 'utf8')).version;
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform} ${os.release()} ${process.arch}`,
    cpuModel: cpuModel(),
    cpuCount: os.availableParallelism?.() ?? os.cpus().length,
    loadAverage1m: os.loadavg()[0],
    fakeTimers: fakeTimersVersion,
    revision: gitRevision(),
  };
}

// ---- formatting -------------------------------------------------------------------------------

function si(value) {
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)} M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)} k`;
  return value.toFixed(1);
}

function formatValue(metric, summary) {
  const value = summary[metric];
  if (metric === 'eventsPerSecond') return `${si(value)} events/s`;
  if (metric === 'roundTripsPerSecond') return `${si(value)} round trips/s`;
  if (metric === 'seedsPerSecond') return `${value.toFixed(1)} seeds/s`;
  if (metric === 'cpuMsPerLoad') return `${value.toFixed(1)} CPU ms/load`;
  if (metric === 'wallMsPerStart') return `${value.toFixed(0)} ms/start (CPU ${summary.cpuMsPerStart.toFixed(0)} ms)`;
  return `${Math.round(value).toLocaleString('en-US')}× real time`;
}

/** Every subject of a figure, in table order: the simulator, its variants, the baselines. */
function subjectsOf(figure) {
  return [figure.simulator, ...Object.values(figure.variants), ...Object.values(figure.baselines)];
}

function printReport(result) {
  const env = result.environment;
  const out = [];
  out.push(`dst-runtime benchmarks${result.quick ? ' (QUICK: sizes too small to mean anything)' : ''}`);
  out.push(`  node ${env.node} (V8 ${env.v8}), ${env.platform}`);
  out.push(`  cpu ${env.cpuModel} x${env.cpuCount}, load ${env.loadAverage1m.toFixed(2)} at start`);
  out.push(`  seed ${result.seed}, @sinonjs/fake-timers ${env.fakeTimers}, revision ${env.revision ?? 'unknown'}`);
  out.push('');
  const rows = [['figure', 'subject', 'median', 'events/s', 'wall ms', 'cpu/wall', 'runs']];
  for (const figure of Object.values(result.figures)) {
    subjectsOf(figure).forEach((s, i) => {
      rows.push([
        i === 0 ? figure.title : '',
        s.subject,
        formatValue(s.metric, s),
        s.metric === 'eventsPerSecond' ? '' : `${si(s.eventsPerSecond)}/s`,
        s.wallMsMedian.toFixed(1),
        `${Math.round(s.cpuPerWall * 100)}%`,
        `${s.warmups} warm-up + ${s.repetitions}`,
      ]);
    });
    rows.push(null);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.filter(Boolean).map((r) => r[c].length)));
  for (const row of rows) {
    if (row === null) {
      out.push('');
      continue;
    }
    out.push(row.map((cell, c) => (c >= 2 && c <= 5 ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd());
  }
  out.push('goals');
  for (const figure of Object.values(result.figures)) {
    for (const goal of figure.goals) {
      out.push(
        goal.judgeBy === 'cpu'
          ? `  ${goal.met ? 'met    ' : 'MISSED '}  ${goal.description}: ${goal.ratioByCpuText} (goal ${goal.targetText}; by wall clock: ${goal.ratioText})`
          : `  ${goal.met ? 'met    ' : 'MISSED '}  ${goal.description}: ${goal.ratioText} (goal ${goal.targetText}; ` +
              `per CPU second instead of wall: ${goal.ratioByCpuText})`,
      );
    }
    for (const comparison of figure.comparisons) {
      out.push(
        `  no goal  ${comparison.description}: ${comparison.ratioText} ` +
          `(per CPU second instead of wall: ${comparison.ratioByCpuText})`,
      );
    }
  }
  for (const { title, reason } of Object.values(result.skipped)) out.push(`  skipped  ${title}: ${reason}`);
  const starved = Object.values(result.figures).flatMap(subjectsOf).filter((s) => s.starved);
  if (starved.length > 0) {
    out.push('');
    out.push(
      `WARNING: other processes competed for the CPU during ${starved.map((s) => s.case).join(', ')} ` +
        `(cpu/wall below ${STARVED_CPU_PER_WALL * 100}%): wall-clock figures are low; rerun on a quiet machine.`,
    );
  }
  out.push('');
  out.push('fingerprints (fixed seed: every run of a case must match)');
  for (const figure of Object.values(result.figures)) {
    for (const s of subjectsOf(figure).filter((subject) => subject.fingerprints !== undefined)) {
      out.push(`  ${s.fingerprintConsistent ? 'same     ' : 'DIFFERENT'}  ${s.case}: ${[...new Set(s.fingerprints)].join(' ')} (${s.fingerprints.length} runs)`);
    }
  }
  console.log(out.join('\n'));
}

// ---- main -----------------------------------------------------------------------------------

const args = parseArgs(process.argv.slice(2));
const size = args.quick ? 'quick' : 'full';
const startedMs = Date.now();
const result = {
  schema: 2,
  date: new Date().toISOString(),
  quick: args.quick,
  seed: BENCH_SEED_TEXT,
  environment: environment(),
  figures: {},
  /** Figures that could not run here (figure 7 without PGlite), with the reason. */
  skipped: {},
  fingerprintsConsistent: true,
  allGoalsMet: true,
  wallSecondsTotal: 0,
};

for (const [id, figure] of Object.entries(FIGURES)) {
  if (args.only.length > 0 && !args.only.includes(id)) continue;
  const plan = figure.plan(size);
  if (plan.skip !== undefined) {
    process.stderr.write(`bench: skipping ${figure.title}: ${plan.skip}\n`);
    result.skipped[id] = { title: figure.title, reason: plan.skip };
    continue;
  }
  process.stderr.write(`bench: ${figure.title}\n`);
  const reports = await runSubjects(plan.subjects, size);
  let simulator;
  const variants = {};
  const baselines = {};
  for (const [key, subject] of Object.entries(plan.subjects)) {
    const summary = summarise(subject, reports[key], figure);
    if (key === 'simulator') simulator = summary;
    else if (subject.variant) variants[key] = summary;
    else baselines[key] = summary;
  }
  const goals = figure.goals.map((goal) => {
    const ratio = goal.ratio(simulator, baselines, 'wall', variants);
    const ratioByCpu = goal.ratio(simulator, baselines, 'cpu', variants);
    return {
      id: goal.id,
      description: goal.description,
      ratio,
      target: goal.target,
      ...(goal.atMost === true ? { atMost: true, judgeBy: goal.judgeBy ?? 'wall' } : {}),
      // Most goals are "at least"; an `atMost` goal (a cost) is met at or below its target, judged
      // by the clock it names (`judgeBy: 'cpu'` where wall time on a shared machine says little).
      met: goal.atMost === true ? (goal.judgeBy === 'cpu' ? ratioByCpu : ratio) <= goal.target : ratio >= goal.target,
      ratioByCpu,
      ratioText: goal.format(ratio),
      ratioByCpuText: goal.format(ratioByCpu),
      targetText: `${goal.atMost === true ? '≤' : '≥'} ${goal.format(goal.target)}${goal.judgeBy === 'cpu' ? ' of CPU' : ''}`,
    };
  });
  // Ratios with no goal to meet (the issue sets none): reported, never judged.
  const comparisons = (figure.comparisons ?? []).map((comparison) => {
    const ratio = comparison.ratio(simulator, baselines, 'wall', variants);
    const ratioByCpu = comparison.ratio(simulator, baselines, 'cpu', variants);
    return {
      id: comparison.id,
      description: comparison.description,
      goal: 'no goal',
      ratio,
      ratioByCpu,
      ratioText: comparison.format(ratio),
      ratioByCpuText: comparison.format(ratioByCpu),
    };
  });
  result.figures[id] = {
    title: figure.title,
    metric: figure.metric,
    unit: figure.unit,
    workload: plan.workload,
    simulator,
    variants,
    baselines,
    goals,
    comparisons,
  };
  // Every fixed-seed simulated subject must repeat itself: the simulator and its variants always
  // report a fingerprint; a baseline does when it is a simulated run too.
  for (const summary of [simulator, ...Object.values(variants)]) {
    if (summary.fingerprintConsistent !== true) result.fingerprintsConsistent = false;
  }
  for (const summary of Object.values(baselines)) {
    if (summary.fingerprintConsistent === false) result.fingerprintsConsistent = false;
  }
  if (goals.some((g) => !g.met)) result.allGoalsMet = false;
}
result.wallSecondsTotal = (Date.now() - startedMs) / 1000;

mkdirSync(path.dirname(args.out), { recursive: true });
writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
printReport(result);
console.log(`\nwrote ${path.relative(process.cwd(), args.out) || args.out} in ${result.wallSecondsTotal.toFixed(1)} s`);

if (!result.fingerprintsConsistent) {
  console.error(
    '\nbench: FAILED: a simulated run with a fixed seed produced different fingerprints across repetitions. ' +
      'The simulator is not deterministic for this workload; this is a bug (compare runs with DST_TRACE).',
  );
  process.exitCode = 1;
}
