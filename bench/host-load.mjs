/**
 * Figures 9 and 10: what loading a module host's packages costs, the first time in a process and
 * again (a restarted host, a host of the next run). One load is one simulation whose module host
 * (bench/programs/load-host.mjs) imports the target package with `await import()`; the CPU and
 * wall time between the marks it sets just before and just after that import are the load:
 * resolving, reading, compiling and evaluating the package's module graph, not the simulation
 * around it. The marks read the real clocks, captured here before any simulation installs its
 * shims.
 *
 *   node bench/host-load.mjs <kv|mqtt> <loads>   # a fresh process: warm the runtime, then load
 *                                                # <loads> times; prints one JSON line
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Sim } from 'dst-runtime';
import { BENCH_SEED } from './workloads.mjs';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const LOAD_HOST = path.join(BENCH_DIR, 'programs', 'load-host.mjs');
const EMPTY_HOST = path.join(BENCH_DIR, 'programs', 'empty-host.mjs');
const realCpuUsage = process.cpuUsage;
const realHrtimeNs = process.hrtime.bigint;

/** The file each target's host imports: the KV store's package, mqtt.js's entry as bench/npm-hosts installed it. */
export function targetUrl(target) {
  if (target === 'kv') return pathToFileURL(path.join(BENCH_DIR, '..', 'packages', 'kv', 'src', 'index.mjs')).href;
  if (target === 'mqtt') return pathToFileURL(createRequire(path.join(BENCH_DIR, 'npm-hosts', 'package.json')).resolve('mqtt')).href;
  throw new Error(`Failed to load a host: unknown target "${target}" (kv or mqtt)`);
}

let marks = {};
globalThis[Symbol.for('dst-bench.mark')] = (name) => {
  const cpu = realCpuUsage();
  marks[name] = { cpuNs: (cpu.user + cpu.system) * 1000, wallNs: Number(realHrtimeNs()) };
};

/** One simulation whose host imports `url`: the load's CPU and wall ns, and the run's fingerprint. */
export async function loadHostOnce(url) {
  marks = {};
  const sim = new Sim({ seed: BENCH_SEED });
  sim.host('loader', { main: LOAD_HOST, env: { DST_BENCH_TARGET: url } });
  const result = await sim.run();
  if (marks.start === undefined || marks.end === undefined) throw new Error(`Failed to load ${url} in a host: its marks are missing (${Object.keys(marks)})`);
  return { cpuNs: marks.end.cpuNs - marks.start.cpuNs, wallNs: marks.end.wallNs - marks.start.wallNs, fingerprint: result.fingerprint };
}

/** What runs before a first load: a few simulations of a module host importing nothing, so the runtime and Node's loader are warm. */
export async function warmRuntime() {
  for (let i = 0; i < 3; i++) {
    const sim = new Sim({ seed: BENCH_SEED });
    sim.host('empty', { main: EMPTY_HOST });
    await sim.run();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [target, loadsText = '1'] = process.argv.slice(2);
  const url = targetUrl(target);
  await warmRuntime();
  const loads = [];
  for (let i = 0; i < Number(loadsText); i++) loads.push(await loadHostOnce(url));
  console.log(JSON.stringify({ loads }));
}
