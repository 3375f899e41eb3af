/**
 * The measured subjects. Each case runs its workload once and returns what happened:
 * `{ events, wallNs, cpuNs, fingerprint?, virtualNs? }`. Times are read with the real clocks
 * captured here at load time, outside every simulation.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import tls from 'node:tls';
import FakeTimers from '@sinonjs/fake-timers';
import { Sim } from 'dst-runtime';
import {
  BENCH_SEED,
  gossipHostName,
  runRpcConnection,
  startGossipHost,
  startIntervalHost,
  startRpcServer,
  startTimerChains,
  timerCallbacksTotal,
  timerWorkloadSpanMs,
  plainTransport,
  tlsTransport,
} from './workloads.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'cli', 'dst.mjs');
const realHrtimeNs = process.hrtime.bigint;
const realSetImmediate = globalThis.setImmediate;
const realMathRandom = Math.random;
const realCpuUsage = process.cpuUsage;

/**
 * DST_BENCH_NONDETERMINISM=1 adds one timer with a really random delay to every simulated
 * workload: a self-test that the bench notices fingerprints that differ between repetitions.
 */
const injectNondeterminism = process.env.DST_BENCH_NONDETERMINISM === '1';

/** Mirrors runtime/driver/driver.ts DRIVER_BATCH: original immediates queued per loop turn. */
const BASELINE_BATCH = 256;

/**
 * Starts measuring; `stop()` returns wall-clock ns and the CPU ns this process used meanwhile
 * (all its threads: V8's concurrent GC threads included). When other processes compete for the
 * cores, wall time grows but CPU time does not: their ratio shows how starved a run was.
 */
function stopwatch() {
  const cpuStart = realCpuUsage();
  const wallStartNs = realHrtimeNs();
  return {
    stop() {
      const wallNs = Number(realHrtimeNs() - wallStartNs);
      const cpu = realCpuUsage(cpuStart);
      return { wallNs, cpuNs: (cpu.user + cpu.system) * 1000 };
    },
  };
}

function check(condition, message) {
  if (!condition) throw new Error(`Failed to validate benchmark run: ${message}`);
}

/**
 * Calls `runOne` once per callback of the ORIGINAL setImmediate, BASELINE_BATCH of them queued
 * per loop turn and refilled when used up (as the driver does), until it returns false.
 */
function driveImmediates(runOne) {
  let pending = 0;
  let done = false;
  const refill = () => {
    for (let i = 0; i < BASELINE_BATCH; i++) realSetImmediate(step);
    pending += BASELINE_BATCH;
  };
  function step() {
    pending--;
    if (done) return;
    if (pending === 0) refill();
    if (!runOne()) done = true;
  }
  refill();
}

/**
 * The baseline's one AsyncLocalStorage, made once per process as the simulator's is: on Node 20
 * and 22 every live storage adds an init hook to every async resource made afterwards, so one
 * per run made each repetition slower than the one before (the sixth 2.7x the first).
 */
const baselineAls = new AsyncLocalStorage();

/**
 * The driver's theoretical ceiling: a chain of ORIGINAL setImmediate callbacks, 256 queued per
 * loop turn (refilled when the batch is used up, as the driver does), each doing one
 * AsyncLocalStorage run() with a trivial body. No queue, no timers, no user work.
 */
export function immediateAlsBaseline(sizes) {
  const eventsTotal = sizes.immediateEvents;
  const als = baselineAls;
  const store = { name: 'baseline' };
  let sink = 0;
  const body = () => {
    sink += als.getStore() === store ? 1 : 0;
  };
  return new Promise((resolve) => {
    let eventsRun = 0;
    const watch = stopwatch();
    driveImmediates(() => {
      als.run(store, body);
      eventsRun++;
      if (eventsRun < eventsTotal) return true;
      const time = watch.stop();
      check(sink === eventsTotal, `the baseline's ALS store was lost (${sink} of ${eventsTotal})`);
      resolve({ events: eventsRun, ...time });
      return false;
    });
  });
}

/**
 * The timer workload's floor in the driver's design: the same chains (same delays, real
 * Math.random) on the cheapest scheduler that still runs each callback in its own ORIGINAL
 * setImmediate (256 queued per loop turn, as the driver does) under an AsyncLocalStorage store
 * set per event: one FIFO per instant, a sorted list of instants, plain closures for timers.
 * No Timeout objects, ids, refs, limits, fingerprint or host clocks. What a simulator of this
 * design could reach if its own bookkeeping cost nothing; the simulator cannot beat it.
 */
export function floorTimers(sizes) {
  const params = sizes.timers;
  const store = baselineAls;
  const hosts = [];
  for (let h = 0; h < params.hostsCount; h++) hosts.push({ name: `host-${h}` });
  return new Promise((resolve) => {
    let nowMs = 0;
    let arming;
    const instants = new Map();
    const due = [];
    const timers = {
      setTimeout(fn, ms) {
        const at = nowMs + ms;
        let fifo = instants.get(at);
        if (fifo === undefined) {
          fifo = { fns: [], hosts: [], head: 0 };
          instants.set(at, fifo);
          let i = due.length;
          due.push(at);
          while (i > 0 && due[i - 1] > at) {
            due[i] = due[i - 1];
            i--;
          }
          due[i] = at;
        }
        fifo.fns.push(fn);
        fifo.hosts.push(arming);
      },
    };
    let hostsRunning = params.hostsCount;
    for (let h = 0; h < params.hostsCount; h++) {
      arming = hosts[h];
      startTimerChains(timers, h, params, () => hostsRunning--);
    }
    let fifo;
    let dueIndex = 0;
    let eventsRun = 0;
    const watch = stopwatch();
    driveImmediates(() => {
      while (fifo === undefined || fifo.head === fifo.fns.length) {
        if (fifo !== undefined) instants.delete(nowMs);
        if (dueIndex === due.length) {
          const time = watch.stop();
          check(hostsRunning === 0, `${hostsRunning} floor hosts still had chains running when the queue ran dry`);
          resolve({ events: eventsRun, ...time });
          return false;
        }
        nowMs = due[dueIndex++];
        fifo = instants.get(nowMs);
      }
      const i = fifo.head++;
      arming = fifo.hosts[i];
      eventsRun++;
      store.run(arming, fifo.fns[i]);
      return true;
    });
  });
}

/**
 * Figure 2's floor: the interval workload (five hosts, one setInterval each, one virtual hour) on
 * the same cheapest scheduler as floorTimers: each callback in its own ORIGINAL setImmediate (256
 * per loop turn) under an AsyncLocalStorage store set per event, one FIFO per instant, a sorted
 * list of instants, an interval re-armed by pushing its closure again. No Timeout objects, ids,
 * refs, limits, fingerprint or host clocks: the virtual speed a simulator of this design would
 * reach if its own bookkeeping cost nothing.
 */
export function floorInterval(sizes) {
  const params = sizes.interval;
  const store = baselineAls;
  const hosts = [];
  for (let h = 0; h < params.hostsCount; h++) hosts.push({ name: `node-${h}` });
  return new Promise((resolve) => {
    let nowMs = 0;
    let arming;
    const instants = new Map();
    const due = [];
    const queue = (fn, at) => {
      let fifo = instants.get(at);
      if (fifo === undefined) {
        fifo = { fns: [], hosts: [], head: 0 };
        instants.set(at, fifo);
        let i = due.length;
        due.push(at);
        while (i > 0 && due[i - 1] > at) {
          due[i] = due[i - 1];
          i--;
        }
        due[i] = at;
      }
      fifo.fns.push(fn);
      fifo.hosts.push(arming);
    };
    const timers = {
      setInterval(fn, ms) {
        const tick = () => {
          queue(tick, nowMs + ms);
          fn();
        };
        queue(tick, nowMs + ms);
      },
    };
    for (let h = 0; h < params.hostsCount; h++) {
      arming = hosts[h];
      startIntervalHost(timers, params);
    }
    let fifo;
    let dueIndex = 0;
    let eventsRun = 0;
    const watch = stopwatch();
    driveImmediates(() => {
      while (fifo === undefined || fifo.head === fifo.fns.length) {
        if (fifo !== undefined) instants.delete(nowMs);
        if (dueIndex === due.length || due[dueIndex] > params.durationMs) {
          const time = watch.stop();
          const ticks = params.hostsCount * Math.floor(params.durationMs / params.intervalMs);
          check(eventsRun === ticks, `the interval floor ran ${eventsRun} ticks, expected ${ticks}`);
          resolve({ events: eventsRun, ...time, virtualNs: params.durationMs * 1e6 });
          return false;
        }
        nowMs = due[dueIndex++];
        fifo = instants.get(nowMs);
      }
      const i = fifo.head++;
      arming = fifo.hosts[i];
      eventsRun++;
      store.run(arming, fifo.fns[i]);
      return true;
    });
  });
}

/** With DST_BENCH_NONDETERMINISM=1: one more client, whose one timer has a really random delay. */
function addNondeterminism(sim) {
  if (!injectNondeterminism) return;
  sim.client('nondeterministic', () => new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(realMathRandom() * 1000))));
}

/** The timer-heavy workload on the simulator: one client per host, seed fixed. */
export async function simTimers(sizes) {
  const params = sizes.timers;
  const sim = new Sim({ seed: BENCH_SEED });
  for (let h = 0; h < params.hostsCount; h++) {
    sim.client(`host-${h}`, () => new Promise((resolve) => startTimerChains(globalThis, h, params, resolve)));
  }
  addNondeterminism(sim);
  const watch = stopwatch();
  const result = await sim.run();
  const time = watch.stop();
  const callbacks = timerCallbacksTotal(params);
  check(result.stopReason === 'clients-done', `the simulated run stopped for "${result.stopReason}", expected "clients-done"`);
  check(result.events >= callbacks, `the simulator ran ${result.events} events, expected at least ${callbacks} timer callbacks`);
  return { events: result.events, ...time, fingerprint: result.fingerprint, virtualNs: result.elapsedNs };
}

/** The same timer workload on @sinonjs/fake-timers, driven by clock.tickAsync (never install()). */
export async function fakeTimersTimers(sizes) {
  const params = sizes.timers;
  const watch = stopwatch();
  const clock = FakeTimers.withGlobal(globalThis).createClock();
  let hostsRunning = params.hostsCount;
  for (let h = 0; h < params.hostsCount; h++) startTimerChains(clock, h, params, () => hostsRunning--);
  await clock.tickAsync(timerWorkloadSpanMs(params));
  const time = watch.stop();
  check(hostsRunning === 0, `${hostsRunning} fake-timers hosts still had chains running at the end of the tick`);
  return { events: timerCallbacksTotal(params), ...time, virtualNs: clock.now * 1e6 };
}

/** Five (or so) hosts with a 100 ms setInterval each, for one virtual hour. */
export async function simInterval(sizes) {
  const params = sizes.interval;
  const sim = new Sim({ seed: BENCH_SEED, durationMs: params.durationMs });
  for (let h = 0; h < params.hostsCount; h++) sim.host(`node-${h}`, () => startIntervalHost(globalThis, params));
  const watch = stopwatch();
  const result = await sim.run();
  const time = watch.stop();
  const ticks = params.hostsCount * Math.floor(params.durationMs / params.intervalMs);
  check(result.stopReason === 'duration', `the simulated run stopped for "${result.stopReason}", expected "duration"`);
  check(result.elapsedNs === params.durationMs * 1e6, `the run ended at ${result.elapsedNs} ns, expected ${params.durationMs * 1e6}`);
  check(result.events >= ticks - params.hostsCount, `the simulator ran ${result.events} events, expected about ${ticks} interval ticks`);
  return { events: result.events, ...time, fingerprint: result.fingerprint, virtualNs: result.elapsedNs };
}

/** The interval workload on fake-timers, for reference. */
export async function fakeTimersInterval(sizes) {
  const params = sizes.interval;
  const watch = stopwatch();
  const clock = FakeTimers.withGlobal(globalThis).createClock();
  for (let h = 0; h < params.hostsCount; h++) startIntervalHost(clock, params);
  await clock.tickAsync(params.durationMs);
  const time = watch.stop();
  clock.reset();
  return { events: params.hostsCount * Math.floor(params.durationMs / params.intervalMs), ...time, virtualNs: params.durationMs * 1e6 };
}

/**
 * TCP request/response: a server host answering each request line, a client host running
 * `roundTrips` sequential round trips spread over `connections` concurrent connections.
 */
async function simTcpRoundTrips(params, { secure = false, connectionPerRequest = false } = {}) {
  const sim = new Sim({ seed: BENCH_SEED });
  const transport = secure ? tlsTransport(tls, sim.tls(), 'server') : plainTransport;
  sim.host('server', () => startRpcServer(net, params, transport));
  let answered = 0;
  sim.client('client', async () => {
    if (connectionPerRequest) {
      // A new connection (and, over TLS, a full handshake: no session is kept) per round trip.
      for (let i = 0; i < params.roundTrips; i++) answered += await runRpcConnection(net, 'server', params, i, 1, transport);
      return;
    }
    const perConnection = Math.ceil(params.roundTrips / params.connections);
    const connections = [];
    for (let c = 0; c < params.connections; c++) connections.push(runRpcConnection(net, 'server', params, c, perConnection, transport));
    for (const count of await Promise.all(connections)) answered += count;
  });
  addNondeterminism(sim);
  const watch = stopwatch();
  const result = await sim.run();
  const time = watch.stop();
  const expected = params.connections * Math.ceil(params.roundTrips / params.connections);
  check(result.stopReason === 'clients-done', `the simulated run stopped for "${result.stopReason}", expected "clients-done"`);
  check(answered === expected, `the client got ${answered} answers, expected ${expected}`);
  return { events: result.events, ...time, fingerprint: result.fingerprint, virtualNs: result.elapsedNs, roundTrips: answered };
}

export const simTcpSequential = (sizes) => simTcpRoundTrips(sizes.rpc);
export const simTcpConcurrent = (sizes) => simTcpRoundTrips(sizes.rpcConcurrent);
/** Figure 6: the figure 3 workload over TLS, and its plain-TCP baseline of the same size. */
export const simTlsRequests = (sizes) => simTcpRoundTrips(sizes.tlsRequests, { secure: true });
export const simTcpRequestsTlsSize = (sizes) => simTcpRoundTrips(sizes.tlsRequests);
/** Figure 6: one connection per round trip, with a TLS handshake each, and its plain-TCP baseline. */
export const simTlsHandshakes = (sizes) => simTcpRoundTrips(sizes.tlsHandshakes, { secure: true, connectionPerRequest: true });
export const simTcpConnects = (sizes) => simTcpRoundTrips(sizes.tlsHandshakes, { connectionPerRequest: true });

/** Five hosts gossiping over UDP every 100 ms, for `durationMs` of virtual time. */
export async function simGossip(sizes) {
  const params = sizes.gossip;
  const sim = new Sim({ seed: BENCH_SEED, durationMs: params.durationMs });
  const stats = { sent: 0, received: 0 };
  for (let h = 0; h < params.hostsCount; h++) sim.host(gossipHostName(h), () => startGossipHost(dgram, dns, h, params, stats));
  addNondeterminism(sim);
  const watch = stopwatch();
  const result = await sim.run();
  const time = watch.stop();
  const sends = params.hostsCount * Math.floor(params.durationMs / params.intervalMs);
  check(result.stopReason === 'duration', `the simulated run stopped for "${result.stopReason}", expected "duration"`);
  check(result.elapsedNs === params.durationMs * 1e6, `the run ended at ${result.elapsedNs} ns, expected ${params.durationMs * 1e6}`);
  check(stats.sent === sends, `the hosts sent ${stats.sent} datagrams, expected ${sends}`);
  // No loss on the default network: only the last few datagrams may still be in flight at the end.
  check(stats.received >= sends - params.hostsCount, `the hosts received ${stats.received} of ${sends} datagrams`);
  return { events: result.events, ...time, fingerprint: result.fingerprint, virtualNs: result.elapsedNs, datagrams: stats.received };
}

/**
 * CPU time of this process's waited-for children so far (Linux: cutime + cstime of
 * /proc/self/stat, in clock ticks of 10 ms); undefined where /proc is missing.
 */
function childrenCpuNs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the ')' the fields start at field 3 (state); cutime and cstime are fields 16 and 17.
    return (Number(fields[13]) + Number(fields[14])) * 10_000_000;
  } catch {
    return undefined;
  }
}

/**
 * Figure 5: `dst explore` over `jobs` worker processes, seeds per second. Runs the CLI as a
 * child (as a user would); CPU time is the children's. The fingerprint digests which seeds ran
 * and which failed, so a repetition that explores differently is caught like any other.
 */
function exploreSeeds(params, jobs, { file = params.scenario, seeds = params.seeds, flags = [], env = {} } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dst-bench-explore-'));
  const report = path.join(dir, 'report.json');
  try {
    const cpuBefore = childrenCpuNs();
    const time = stopwatch();
    const run = spawnSync(process.execPath, [CLI, 'explore', file, '--seeds', String(seeds), '--jobs', String(jobs), '--report', report, ...flags], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DST_SEED: '', ...env },
    });
    const { wallNs } = time.stop();
    const cpuAfter = childrenCpuNs();
    check(run.status === 0, `dst explore exited with ${run.status}: ${run.stderr}`);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    check(json.ran.length === seeds && json.passed === seeds, `expected ${seeds} passing seeds, got ${json.passed}/${json.ran.length}`);
    const digest = createHash('sha256').update(JSON.stringify([json.ran, json.passed, json.failing.map((f) => f.seed)])).digest('hex').slice(0, 16);
    const cpuNs = cpuBefore === undefined || cpuAfter === undefined ? wallNs : cpuAfter - cpuBefore;
    return { events: seeds, seeds, wallNs, cpuNs, fingerprint: digest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Figure 5's machine baseline: two separate `dst explore --jobs 1` processes started at once,
 * each with half the seeds (the second from seed seeds/2 + 1). What two independent processes of
 * this work get from this machine's cores, against which `--jobs 2` is judged: their seeds/s is
 * the seeds over the wall time until both have finished. The fingerprint digests the two reports
 * together, in seed order.
 */
async function twoExplorers(params) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dst-bench-explore-'));
  const half = Math.floor(params.seeds / 2);
  const shares = [
    { first: 1, seeds: half },
    { first: half + 1, seeds: params.seeds - half },
  ];
  try {
    const cpuBefore = childrenCpuNs();
    const time = stopwatch();
    const runs = await Promise.all(
      shares.map((share, i) => {
        const report = path.join(dir, `report-${i}.json`);
        const args = [CLI, 'explore', params.scenario, '--seeds', String(share.seeds), '--first', String(share.first), '--jobs', '1', '--report', report];
        return new Promise((resolve, reject) => {
          const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, DST_SEED: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
          let stderr = '';
          child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
          child.on('error', reject);
          child.on('close', (status) => resolve({ status, stderr, report, share }));
        });
      }),
    );
    const { wallNs } = time.stop();
    const cpuAfter = childrenCpuNs();
    const ran = [];
    const failing = [];
    let passed = 0;
    for (const run of runs) {
      check(run.status === 0, `dst explore --first ${run.share.first} exited with ${run.status}: ${run.stderr}`);
      const json = JSON.parse(readFileSync(run.report, 'utf8'));
      check(json.ran.length === run.share.seeds && json.passed === run.share.seeds, `expected ${run.share.seeds} passing seeds, got ${json.passed}/${json.ran.length}`);
      ran.push(...json.ran);
      passed += json.passed;
      failing.push(...json.failing.map((f) => f.seed));
    }
    const digest = createHash('sha256').update(JSON.stringify([ran, passed, failing])).digest('hex').slice(0, 16);
    const cpuNs = cpuBefore === undefined || cpuAfter === undefined ? wallNs : cpuAfter - cpuBefore;
    return { events: params.seeds, seeds: params.seeds, wallNs, cpuNs, fingerprint: digest };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An empty program, for figure 9: what a start of Node costs, and what register mode adds to it. */
const EMPTY_PROGRAM = path.join(ROOT, 'bench/programs/empty.mjs');
const REGISTER_ENTRY = path.join(ROOT, 'dist/register.mjs');
/** The fingerprint of a run with no event (FNV-1a's offset basis, then the seed's mix): any seed. */
const EMPTY_RUN = /fingerprint (\S+) +virtual 0\.000000000 s +events 0 +exit 0/;

/**
 * Figure 9: `starts` processes of the empty program one after the other, each plainly or under
 * `node --import dst-runtime/register`, with the Node running the bench. CPU time is the
 * children's (user + sys). Node's compile cache (runtime/compile-cache.ts) is warm after the
 * first start, as on any machine that ran dst-runtime before; the warm-up start fills it.
 */
function startEmpty(params, register) {
  const cpuBefore = childrenCpuNs();
  const time = stopwatch();
  let fingerprint;
  for (let i = 0; i < params.starts; i++) {
    const args = register ? ['--import', REGISTER_ENTRY, EMPTY_PROGRAM] : [EMPTY_PROGRAM];
    const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, DST_SEED: `0x${BENCH_SEED.toString(16)}`, DST_QUIET: '' } });
    check(run.status === 0, `${register ? 'register mode' : 'node'} of an empty program exited with ${run.status}: ${run.stderr}`);
    if (register) {
      const match = EMPTY_RUN.exec(run.stderr);
      check(match !== null, `register mode of an empty program printed no empty run: ${run.stderr}`);
      fingerprint = match[1];
    }
  }
  const { wallNs } = time.stop();
  const cpuAfter = childrenCpuNs();
  const cpuNs = cpuBefore === undefined || cpuAfter === undefined ? wallNs : cpuAfter - cpuBefore;
  return { events: params.starts, starts: params.starts, wallNs, cpuNs, ...(fingerprint === undefined ? {} : { fingerprint }) };
}

/**
 * Figure 6's baseline: the database work of `runs` seeds of the Postgres bank demo in plain Node
 * (bench/postgres.mjs), counted as seeds. Loaded only when the figure runs (it needs PGlite).
 */
async function plainPostgres(params) {
  const { plainBankRun } = await import('./postgres.mjs');
  const time = stopwatch();
  for (let i = 0; i < params.seeds; i++) await plainBankRun();
  return { events: params.seeds, seeds: params.seeds, ...time.stop() };
}

/**
 * Figures 9 and 10: `loadsPerRun` loads of a host importing `target` in this worker, each in a
 * simulation of its own. The worker's first run (a warm-up) holds the process's first load;
 * every measured load is a re-load. `codeCache: false` runs them with DST_CODE_CACHE=0,
 * `resolutionCache: false` with DST_RESOLUTION_CACHE=0.
 */
async function hostReloads(params, target, { codeCache = true, resolutionCache = true } = {}) {
  const { loadHostOnce, targetUrl } = await import('./host-load.mjs');
  const url = targetUrl(target);
  const before = process.env.DST_CODE_CACHE;
  const beforeResolution = process.env.DST_RESOLUTION_CACHE;
  if (!codeCache) process.env.DST_CODE_CACHE = '0';
  if (!resolutionCache) process.env.DST_RESOLUTION_CACHE = '0';
  try {
    let cpuNs = 0;
    let wallNs = 0;
    const fingerprints = new Set();
    for (let i = 0; i < params.loadsPerRun; i++) {
      const load = await loadHostOnce(url);
      cpuNs += load.cpuNs;
      wallNs += load.wallNs;
      fingerprints.add(load.fingerprint);
    }
    check(fingerprints.size === 1, `the loads of one run gave different fingerprints: ${[...fingerprints].join(' ')}`);
    return { events: params.loadsPerRun, loads: params.loadsPerRun, cpuNs, wallNs, fingerprint: [...fingerprints][0] };
  } finally {
    if (before === undefined) delete process.env.DST_CODE_CACHE;
    else process.env.DST_CODE_CACHE = before;
    if (beforeResolution === undefined) delete process.env.DST_RESOLUTION_CACHE;
    else process.env.DST_RESOLUTION_CACHE = beforeResolution;
  }
}

/**
 * Figures 9 and 10's baseline: the first load of a host importing `target` in a process (a fresh
 * child, bench/host-load.mjs, whose runtime is warmed first with a host that imports nothing).
 */
function hostFirstLoad(target) {
  const run = spawnSync(process.execPath, [path.join(ROOT, 'bench', 'host-load.mjs'), target, '1'], { cwd: ROOT, encoding: 'utf8' });
  check(run.status === 0, `bench/host-load.mjs ${target} exited with ${run.status}: ${run.stderr}`);
  const [load] = JSON.parse(run.stdout.trim().split('\n').pop()).loads;
  return { events: 1, loads: 1, cpuNs: load.cpuNs, wallNs: load.wallNs, fingerprint: load.fingerprint };
}

export const CASES = {
  'host-reload-kv': (sizes) => hostReloads(sizes.hostLoads, 'kv'),
  'host-reload-kv-no-cache': (sizes) => hostReloads(sizes.hostLoads, 'kv', { codeCache: false }),
  'host-reload-kv-no-resolution-cache': (sizes) => hostReloads(sizes.hostLoads, 'kv', { resolutionCache: false }),
  'host-first-load-kv': () => hostFirstLoad('kv'),
  'host-reload-mqtt': (sizes) => hostReloads(sizes.hostLoads, 'mqtt'),
  'host-reload-mqtt-no-cache': (sizes) => hostReloads(sizes.hostLoads, 'mqtt', { codeCache: false }),
  'host-reload-mqtt-no-resolution-cache': (sizes) => hostReloads(sizes.hostLoads, 'mqtt', { resolutionCache: false }),
  'host-first-load-mqtt': () => hostFirstLoad('mqtt'),
  // Figure 11: three hosts booting real npm packages (aedes, mqtt.js) under crash faults.
  'explore-mqtt': (sizes) => exploreSeeds(sizes.mqttScenario, 1),
  'explore-mqtt-no-cache': (sizes) => exploreSeeds(sizes.mqttScenario, 1, { env: { DST_CODE_CACHE: '0' } }),
  'explore-postgres': (sizes) => exploreSeeds(sizes.postgres, 1),
  'plain-postgres': (sizes) => plainPostgres(sizes.postgres),
  'register-startup': (sizes) => startEmpty(sizes.startup, true),
  'node-startup': (sizes) => startEmpty(sizes.startup, false),
  'explore-jobs-1': (sizes) => exploreSeeds(sizes.explore, 1),
  'explore-jobs-2': (sizes) => exploreSeeds(sizes.explore, 2),
  'explore-two-explorers': (sizes) => twoExplorers(sizes.explore),
  // Figure 6: a plain program, one job, seeds in a worker process against a process per seed.
  'explore-program-workers': (sizes) => exploreSeeds(sizes.program, 1, { file: sizes.program.file }),
  'explore-program-process-per-seed': (sizes) =>
    exploreSeeds(sizes.program, 1, { file: sizes.program.file, seeds: sizes.program.seedsPerSeedProcess, flags: ['--process-per-seed'] }),
  'baseline-immediate-als': immediateAlsBaseline,
  'floor-timers': floorTimers,
  'sim-timers': simTimers,
  'fake-timers-timers': fakeTimersTimers,
  'sim-interval': simInterval,
  'floor-interval': floorInterval,
  'fake-timers-interval': fakeTimersInterval,
  'sim-tcp-sequential': simTcpSequential,
  'sim-tcp-concurrent': simTcpConcurrent,
  'sim-gossip': simGossip,
  'sim-tls-requests': simTlsRequests,
  'sim-tcp-requests-tls-size': simTcpRequestsTlsSize,
  'sim-tls-handshakes': simTlsHandshakes,
  'sim-tcp-connects': simTcpConnects,
};
