/**
 * Short runs, many in one process: what a seed of `dst explore` (many seeds per worker) or a
 * test suite's simulations pay that one long run hides. Runs a case sized to a number of events
 * `runs` times in this process and prints the CPU ns per event of each run; the first run is
 * the process's warm-up, later runs show what every run after it costs.
 *
 *     node --expose-gc bench/short-runs.mjs [case=sim-timers] [events=10000] [runs=10]
 *     node bench/short-runs.mjs --jit [case] [events] [runs]
 *
 * Cases: sim-timers and floor-timers (figure 1's workload and its floor: 4 hosts, 250 chains
 * each, so about 1,000 timers pending, with as many steps per chain as make `events`), and
 * sim-interval and floor-interval (figure 2's: 5 hosts, one 100 ms interval each, for as long
 * as makes `events`); program-seed runs one seed of figure 6's plain program per run, as a
 * `dst explore` worker does (each run's own seed, so no fingerprint to compare); every other
 * `sim-*` case of bench/cases.mjs runs at its --quick size.
 *
 * With --jit it runs itself again under V8's --trace-opt and --trace-deopt and counts, per run,
 * the functions compiled by an optimizing tier (TurboFan, and Maglev where it is on), the
 * deoptimizations (bailouts of running code) and the optimized code thrown away because an
 * object it embedded died ("weak objects"; "embedded weak objects cleared" on Node 24: see
 * runtime/scheduler/shape-keeper.ts and docs/benchmarks.md, "Short runs"). The garbage
 * collection before each run is counted with that run. Traced runs are slower: --jit counts,
 * it does not time.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { CASES as BENCH_CASES, floorInterval, floorTimers, simInterval, simTimers } from './cases.mjs';
import { SIZES } from './workloads.mjs';

const HERE = fileURLToPath(import.meta.url);
const PROGRAM = path.join(path.dirname(HERE), 'programs', 'small-program.mjs');
const CHAINS_TOTAL = 1000;
const INTERVAL_HOSTS = 5;
const INTERVAL_MS = 100;

/** The figure-1 and figure-2 workloads, sized to about `events` events. */
const CASES = {
  'sim-timers': (events) => simTimers(timerSizes(events)),
  'floor-timers': (events) => floorTimers(timerSizes(events)),
  'sim-interval': (events) => simInterval(intervalSizes(events)),
  'floor-interval': (events) => floorInterval(intervalSizes(events)),
};

function timerSizes(events) {
  return { timers: { hostsCount: 4, chainsPerHost: CHAINS_TOTAL / 4, stepsPerChain: Math.max(1, Math.round(events / CHAINS_TOTAL)), delayMsMax: 10 } };
}

function intervalSizes(events) {
  const ticksPerHost = Math.max(1, Math.round(events / INTERVAL_HOSTS));
  return { interval: { hostsCount: INTERVAL_HOSTS, intervalMs: INTERVAL_MS, durationMs: ticksPerHost * INTERVAL_MS } };
}

/**
 * One seed of figure 6's plain program, run as a `dst explore` worker runs its seeds
 * (shims/program-seeds.ts; `events` is ignored): seed n+1 for run n+1.
 */
let programSeedsRun = 0;
CASES['program-seed'] = async () => {
  const { runProgramSeed } = createRequire(import.meta.url)('../dist/program-seeds.cjs');
  const seed = `0x${(++programSeedsRun).toString(16)}`;
  const cpuStart = process.cpuUsage();
  const r = await runProgramSeed(PROGRAM, seed, { replay: `DST_SEED=${seed}`, env: { DST_QUIET: '1' } });
  const cpu = process.cpuUsage(cpuStart);
  if (r.exitCode !== 0 || !r.reusable) throw new Error(`Failed to run seed ${seed} of ${PROGRAM}: exit code ${r.exitCode}, reusable ${r.reusable}`);
  return { events: r.events, cpuNs: (cpu.user + cpu.system) * 1000 };
};

/** Every other simulated case of the bench, at its --quick size (`events` is ignored). */
for (const [name, run] of Object.entries(BENCH_CASES)) {
  if (name.startsWith('sim-') && CASES[name] === undefined) CASES[name] = () => run(SIZES.quick);
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/**
 * Marks the start of run `n` in V8's trace: %DebugPrint(n) prints "DebugPrint: Smi: 0x.. (n)"
 * through the same C stdout buffer as --trace-opt/--trace-deopt, so marks and traces stay in
 * order (console.log writes at once, V8's buffer later). Only under --jit (natives syntax on).
 */
const markRun = process.execArgv.includes('--allow-natives-syntax') ? new Function('n', '%DebugPrint(n)') : () => {};
const RUN_MARK = /DebugPrint: Smi: 0x[0-9a-f]+ \((\d+)\)/;

function parseArgs(argv) {
  const jit = argv.includes('--jit');
  const [caseName = 'sim-timers', eventsText = '10000', runsText = '10'] = argv.filter((a) => a !== '--jit');
  const events = Number(eventsText);
  const runs = Number(runsText);
  if (CASES[caseName] === undefined || !(events >= 1) || !(runs >= 1) || !Number.isInteger(runs)) {
    console.error(`usage: node bench/short-runs.mjs [--jit] [${Object.keys(CASES).join('|')}] [events] [runs]`);
    process.exit(2);
  }
  return { jit, caseName, events, runs };
}

async function measure({ caseName, events, runs }) {
  const cpuPerEvent = [];
  let fingerprint;
  for (let i = 0; i < runs; i++) {
    // The mark comes first: the garbage collection below (which kills the last run's objects,
    // and with them what V8 embedded in optimized code) belongs to this run's count.
    markRun(i + 1);
    globalThis.gc?.();
    const r = await CASES[caseName](events);
    if (r.fingerprint !== undefined) {
      if (fingerprint !== undefined && r.fingerprint !== fingerprint) throw new Error(`Failed to repeat a run: fingerprint ${r.fingerprint} after ${fingerprint}`);
      fingerprint = r.fingerprint;
    }
    cpuPerEvent.push(r.cpuNs / r.events);
    console.log(`${caseName} run ${i + 1}: ${(r.cpuNs / r.events).toFixed(0)} ns CPU per event (${r.events} events)`);
  }
  const later = cpuPerEvent.slice(1);
  console.log(
    `${caseName}, ${events} events: first run ${cpuPerEvent[0].toFixed(0)} ns CPU per event` +
      (later.length > 0 ? `, later runs median ${median(later).toFixed(0)} (${Math.min(...later).toFixed(0)}-${Math.max(...later).toFixed(0)})` : '') +
      (fingerprint === undefined ? '' : `, fingerprint ${fingerprint}`) +
      `; load ${os.loadavg()[0].toFixed(2)}`,
  );
}

/** Runs this script under V8's tracing and counts, per run, what was optimized and thrown away. */
function countJit({ caseName, events, runs }) {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--allow-natives-syntax', '--trace-opt', '--trace-deopt', HERE, caseName, String(events), String(runs)],
    { encoding: 'utf8', maxBuffer: 1 << 30 },
  );
  if (child.status !== 0) throw new Error(`Failed to run traced: exit ${child.status}\n${child.stderr}`);
  const perRun = [];
  let counts;
  // Scanned as one text, not line by line: V8's helper threads print too, and a line of theirs
  // can land inside another.
  const pattern = new RegExp(
    `${RUN_MARK.source}|(\\[compiling method)|(\\[bailout)|\\[marking dependent code[^\\]]*?<SharedFunctionInfo ?([^>]*)>[^\\]]*?reason: (?:embedded )?weak objects`,
    'g',
  );
  for (const match of child.stdout.matchAll(pattern)) {
    if (match[1] !== undefined) {
      counts = { optimized: 0, bailouts: 0, weak: 0, weakNames: new Map() };
      perRun.push(counts);
    } else if (counts === undefined) {
      continue;
    } else if (match[2] !== undefined) {
      counts.optimized++;
    } else if (match[3] !== undefined) {
      counts.bailouts++;
    } else {
      counts.weak++;
      const name = match[4] || '(anonymous)';
      counts.weakNames.set(name, (counts.weakNames.get(name) ?? 0) + 1);
    }
  }
  console.log(`${caseName}, ${events} events, ${runs} runs in one process (Node ${process.versions.node}):`);
  console.log('run  optimized  bailouts  weak-objects  (functions thrown away for weak objects)');
  perRun.forEach((c, i) => {
    const names = [...c.weakNames.keys()].sort().join(' ');
    console.log(`${String(i + 1).padStart(3)}  ${String(c.optimized).padStart(9)}  ${String(c.bailouts).padStart(8)}  ${String(c.weak).padStart(12)}  ${names}`);
  });
  const later = perRun.slice(1);
  if (later.length > 0) {
    const m = (key) => median(later.map((c) => c[key]));
    console.log(`later runs, median: ${m('optimized')} optimized, ${m('bailouts')} bailouts, ${m('weak')} weak-objects`);
  }
}

const args = parseArgs(process.argv.slice(2));
if (args.jit) countJit(args);
else await measure(args);
