/**
 * What the bench reports: each figure names its simulator subject, its variants (other
 * simulated runs of the same figure, `variant: true`), its baselines (measured in the same run,
 * in the same rounds) and its goals. A goal's `ratio(simulator, baselines, clock, variants)` is
 * computed from wall-clock figures (clock 'wall', the headline) and from CPU-time figures (clock
 * 'cpu'). `comparisons` are ratios reported the same way but with no goal to meet. A subject's
 * `metric` (default: the figure's) is the figure shown for it in the table. The subjects' `case`
 * names are the functions in cases.mjs.
 */
import { npmHostsMissing } from './npm-hosts.mjs';
import { postgresMissing } from './postgres.mjs';
import { BENCH_SEED, SIZES, timerCallbacksTotal } from './workloads.mjs';

export const BENCH_SEED_TEXT = `0x${BENCH_SEED.toString(16)}`;

/**
 * Repetitions per subject (after the warm-ups), sized to keep the whole bench under two minutes.
 * The network figures warm up twice: their code paths (Node's streams, net and dgram over the
 * simulated handles) still get faster on a process's second run (4.5-5 against 3-3.5 µs of CPU
 * per event from the third on). Figure 1's subjects warm up three times: the simulator and the
 * workload floor still ran 20-60% slower on their second run than from the fourth on (V8 is
 * still re-optimizing; measured on Node 20), which a single warm-up left in the median.
 */
const REPS = {
  full: { warmups: 1, timerWarmups: 3, networkWarmups: 2, fast: 5, slow: 3 },
  quick: { warmups: 1, timerWarmups: 1, networkWarmups: 1, fast: 2, slow: 2 },
};

const times = (ratio) => `${ratio.toFixed(2)}×`;
const percent = (ratio) => `${(ratio * 100).toFixed(0)}%`;
/** For ratios that may be a few percent: one decimal below 10%. */
const finePercent = (ratio) => `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)}%`;

/** The raw driver's ceiling, measured again in every figure that compares with it (same rounds). */
const driverCeiling = (r, warmups = r.warmups) => ({
  label: 'ceiling: batched setImmediate + ALS.run',
  case: 'baseline-immediate-als',
  metric: 'eventsPerSecond',
  warmups,
  reps: r.fast,
});

/** A subject's virtual seconds per wall-clock or per CPU second. */
const virtualRate = (subject, clock) => (clock === 'cpu' ? subject.virtualSecondsPerCpuSecond : subject.virtualSecondsPerWallSecond);
const virtualSpeed = (ratio) => `${Math.round(ratio).toLocaleString('en-US')}×`;

/** A subject's events per second, per wall-clock or per CPU second. */
const eventsRate = (subject, clock) => (clock === 'cpu' ? subject.eventsPerCpuSecond : subject.eventsPerSecond);

export const FIGURES = {
  timerThroughput: {
    title: '1. timer-heavy events/s',
    metric: 'eventsPerSecond',
    unit: 'events per wall-clock second',
    plan(size) {
      const t = SIZES[size].timers;
      const r = REPS[size];
      return {
        workload: {
          ...t,
          timerCallbacks: timerCallbacksTotal(t),
          description:
            `${t.hostsCount} hosts x ${t.chainsPerHost} concurrent setTimeout chains x ${t.stepsPerChain} steps, ` +
            `delays 1..${t.delayMsMax} ms, each step one Math.random, one small allocation, a short loop`,
          driverCeilingEvents: SIZES[size].immediateEvents,
        },
        subjects: {
          simulator: { label: 'dst-runtime Sim', case: 'sim-timers', warmups: r.timerWarmups, reps: r.fast },
          driverCeiling: driverCeiling(r, r.timerWarmups),
          workloadFloor: { label: 'floor: same chains, minimal scheduler', case: 'floor-timers', warmups: r.timerWarmups, reps: r.fast },
          fakeTimers: { label: 'fake-timers clock.tickAsync', case: 'fake-timers-timers', warmups: r.warmups, reps: r.slow },
        },
      };
    },
    goals: [
      {
        // Issue 16: the floor, not the driver ceiling, is what a simulator of this design can
        // reach (docs/benchmarks.md, figure 1). The ceiling stays, as a comparison.
        id: 'simulator-vs-workload-floor',
        description: 'simulator / workload floor',
        target: 0.75,
        format: percent,
        ratio: (sim, base, clock) => eventsRate(sim, clock) / eventsRate(base.workloadFloor, clock),
      },
      {
        id: 'simulator-vs-fake-timers',
        description: 'simulator / fake-timers',
        target: 3,
        format: times,
        ratio: (sim, base, clock) =>
          clock === 'cpu' ? sim.eventsPerCpuSecond / base.fakeTimers.eventsPerCpuSecond : sim.eventsPerSecond / base.fakeTimers.eventsPerSecond,
      },
    ],
    comparisons: [
      {
        // The most any simulator of this design could score against the ceiling with this workload.
        id: 'workload-floor-vs-driver-ceiling',
        description: 'workload floor / driver ceiling (a zero-cost simulator)',
        format: percent,
        ratio: (_sim, base, clock) => eventsRate(base.workloadFloor, clock) / eventsRate(base.driverCeiling, clock),
      },
      {
        // The goal of issue 2, kept for comparison with earlier results.
        id: 'simulator-vs-driver-ceiling',
        description: 'simulator / driver ceiling',
        format: percent,
        ratio: (sim, base, clock) => eventsRate(sim, clock) / eventsRate(base.driverCeiling, clock),
      },
    ],
  },
  virtualSpeed: {
    title: '2. virtual s per wall s',
    metric: 'virtualSecondsPerWallSecond',
    unit: 'virtual seconds per wall-clock second',
    plan(size) {
      const v = SIZES[size].interval;
      const r = REPS[size];
      return {
        workload: {
          ...v,
          description:
            `${v.hostsCount} hosts, one ${v.intervalMs} ms setInterval each with a little random work, ` +
            `durationMs ${v.durationMs}`,
        },
        subjects: {
          simulator: { label: 'dst-runtime Sim', case: 'sim-interval', warmups: r.warmups, reps: r.fast },
          workloadFloor: { label: 'floor: same intervals, minimal scheduler', case: 'floor-interval', warmups: r.warmups, reps: r.fast },
          fakeTimers: { label: 'fake-timers clock.tickAsync', case: 'fake-timers-interval', warmups: r.warmups, reps: r.fast },
        },
      };
    },
    goals: [
      {
        id: 'simulator-virtual-speed',
        description: 'simulator virtual speed',
        target: 50_000,
        format: virtualSpeed,
        ratio: (sim, _base, clock) => virtualRate(sim, clock),
      },
    ],
    comparisons: [
      {
        // What a simulator of this design whose own bookkeeping cost nothing would reach: the
        // goal cannot be met where this is below it.
        id: 'workload-floor-virtual-speed',
        description: 'workload floor virtual speed (a zero-cost simulator)',
        format: virtualSpeed,
        ratio: (_sim, base, clock) => virtualRate(base.workloadFloor, clock),
      },
      {
        id: 'simulator-vs-workload-floor',
        description: 'simulator / workload floor',
        format: percent,
        ratio: (sim, base, clock) => virtualRate(sim, clock) / virtualRate(base.workloadFloor, clock),
      },
    ],
  },
  tcpRoundTrips: {
    title: '3. TCP round trips/s',
    metric: 'roundTripsPerSecond',
    unit: 'request/response round trips per wall-clock second',
    plan(size) {
      const seq = SIZES[size].rpc;
      const conc = SIZES[size].rpcConcurrent;
      const r = REPS[size];
      return {
        workload: {
          sequential: seq,
          concurrent: conc,
          description:
            `host "server": net.createServer on port ${seq.port}, answers every request line with one line after a little work; ` +
            `client host: ${seq.roundTrips} sequential round trips (write a line of about ${seq.payload.length + 14} bytes, await the answer line) ` +
            `over ${seq.connections} connection; variant: the same over ${conc.connections} concurrent connections; ` +
            'default network (latency 1-5 ms uniform)',
          driverCeilingEvents: SIZES[size].immediateEvents,
        },
        subjects: {
          simulator: {
            label: `dst-runtime Sim, ${seq.connections} connection`,
            case: 'sim-tcp-sequential',
            warmups: r.networkWarmups,
            reps: r.fast,
          },
          concurrent: {
            label: `dst-runtime Sim, ${conc.connections} connections`,
            case: 'sim-tcp-concurrent',
            variant: true,
            warmups: r.networkWarmups,
            reps: r.fast,
          },
          driverCeiling: driverCeiling(r, r.networkWarmups),
        },
      };
    },
    goals: [],
    comparisons: [
      {
        id: 'sequential-events-vs-driver-ceiling',
        description: 'simulator events/s (1 connection) / driver ceiling',
        format: finePercent,
        ratio: (sim, base, clock) => eventsRate(sim, clock) / eventsRate(base.driverCeiling, clock),
      },
      {
        id: 'concurrent-events-vs-driver-ceiling',
        description: 'simulator events/s (concurrent connections) / driver ceiling',
        format: finePercent,
        ratio: (_sim, base, clock, variants) => eventsRate(variants.concurrent, clock) / eventsRate(base.driverCeiling, clock),
      },
    ],
  },
  udpGossip: {
    title: '4. UDP gossip, virtual s per wall s',
    metric: 'virtualSecondsPerWallSecond',
    unit: 'virtual seconds per wall-clock second',
    plan(size) {
      const g = SIZES[size].gossip;
      const v = SIZES[size].interval;
      const r = REPS[size];
      return {
        workload: {
          ...g,
          description:
            `${g.hostsCount} hosts, each a dgram socket on port ${g.port} sending a small datagram to a peer picked at random ` +
            `every ${g.intervalMs} ms and parsing and merging every datagram it receives with a little work, durationMs ${g.durationMs}; ` +
            'default network (latency 1-5 ms uniform)',
          driverCeilingEvents: SIZES[size].immediateEvents,
          interval: v,
        },
        subjects: {
          simulator: { label: 'dst-runtime Sim, UDP gossip', case: 'sim-gossip', warmups: r.networkWarmups, reps: r.fast },
          driverCeiling: driverCeiling(r, r.networkWarmups),
          interval: {
            label: 'dst-runtime Sim, figure 2 workload (setInterval only)',
            case: 'sim-interval',
            warmups: r.networkWarmups,
            reps: r.fast,
          },
        },
      };
    },
    goals: [],
    comparisons: [
      {
        id: 'gossip-events-vs-driver-ceiling',
        description: 'simulator events/s (UDP gossip) / driver ceiling',
        format: finePercent,
        ratio: (sim, base, clock) => eventsRate(sim, clock) / eventsRate(base.driverCeiling, clock),
      },
      {
        id: 'gossip-vs-interval-virtual-speed',
        description: 'virtual speed, UDP gossip / figure 2 interval workload',
        format: finePercent,
        ratio: (sim, base, clock) =>
          clock === 'cpu'
            ? sim.virtualSecondsPerCpuSecond / base.interval.virtualSecondsPerCpuSecond
            : sim.virtualSecondsPerWallSecond / base.interval.virtualSecondsPerWallSecond,
      },
    ],
  },
  exploreSeeds: {
    title: '5. dst explore seeds/s, 2 workers vs 1',
    metric: 'seedsPerSecond',
    unit: 'seeds per wall-clock second',
    plan(size) {
      const e = SIZES[size].explore;
      const r = REPS[size];
      return {
        workload: {
          ...e,
          description: `dst explore ${e.scenario} --seeds ${e.seeds} (every seed passes), run as a child process; CPU is its children's`,
        },
        subjects: {
          simulator: { label: 'dst explore --jobs 2', case: 'explore-jobs-2', warmups: r.warmups, reps: r.slow },
          oneJob: { label: 'dst explore --jobs 1', case: 'explore-jobs-1', metric: 'seedsPerSecond', warmups: r.warmups, reps: r.slow },
          twoExplorers: {
            label: 'two dst explore --jobs 1 at once, half the seeds each',
            case: 'explore-two-explorers',
            metric: 'seedsPerSecond',
            warmups: r.warmups,
            reps: r.slow,
          },
        },
      };
    },
    goals: [
      {
        // Issue 16's goal. docs/benchmarks.md shows why two cores cannot give it: one worker
        // already keeps about 1.36 cores busy (V8's background threads), so the second has
        // about 0.64 of a core to itself. The comparison below is the goal proposed instead.
        id: 'explore-two-workers-vs-one',
        description: 'seeds/s with 2 workers / with 1',
        target: 1.8,
        format: times,
        ratio: (sim, base, clock) => (clock === 'cpu' ? sim.seedsPerCpuSecond / base.oneJob.seedsPerCpuSecond : sim.seedsPerSecond / base.oneJob.seedsPerSecond),
      },
    ],
    comparisons: [
      {
        // The proposed goal: `--jobs N` keeps >= 90% of N free cores busy (the children's CPU
        // seconds over N x wall seconds). Only meaningful on a machine with N free cores.
        id: 'explore-two-workers-cores-busy',
        description: 'CPU of 2 workers / (2 x wall), proposed goal >= 90% on 2 free cores',
        format: percent,
        ratio: (sim) => sim.seedsPerSecond / sim.seedsPerCpuSecond / 2,
      },
      {
        // What this machine gives two independent processes of the same work: the explorer's
        // own cost of running workers side by side is whatever --jobs 2 falls short of it.
        id: 'explore-two-workers-vs-two-explorers',
        description: 'seeds/s with 2 workers / two separate --jobs 1 explorers at once (the machine\'s own scaling)',
        format: percent,
        ratio: (sim, base, clock) =>
          clock === 'cpu' ? sim.seedsPerCpuSecond / base.twoExplorers.seedsPerCpuSecond : sim.seedsPerSecond / base.twoExplorers.seedsPerSecond,
      },
      {
        id: 'explore-two-explorers-vs-one',
        description: 'seeds/s of two separate --jobs 1 explorers at once / one (the most --jobs 2 can reach here)',
        format: times,
        ratio: (_sim, base, clock) =>
          clock === 'cpu' ? base.twoExplorers.seedsPerCpuSecond / base.oneJob.seedsPerCpuSecond : base.twoExplorers.seedsPerSecond / base.oneJob.seedsPerSecond,
      },
      {
        id: 'explore-one-worker-cores-busy',
        description: 'CPU of 1 worker / wall (above 100%: V8 background threads)',
        format: percent,
        ratio: (_sim, base) => base.oneJob.seedsPerSecond / base.oneJob.seedsPerCpuSecond,
      },
    ],
  },
  registerStartup: {
    title: '12. node --import dst-runtime/register: start-up of an empty program',
    metric: 'wallMsPerStart',
    unit: 'ms per start (CPU: user + sys of the children)',
    plan(size) {
      const s = SIZES[size].startup;
      const r = REPS[size];
      return {
        workload: {
          ...s,
          description: `${s.starts} starts of bench/programs/empty.mjs one after the other, under register mode and plainly, with the Node running the bench`,
        },
        subjects: {
          simulator: { label: 'node --import dst-runtime/register', case: 'register-startup', warmups: r.warmups, reps: r.fast },
          node: { label: 'node (bare)', case: 'node-startup', metric: 'wallMsPerStart', warmups: r.warmups, reps: r.fast },
        },
      };
    },
    goals: [
      {
        id: 'register-startup-added',
        description: 'ms register mode adds to a start (by CPU: user + sys)',
        target: 50,
        atMost: true,
        judgeBy: 'cpu',
        format: (ms) => `${ms.toFixed(0)} ms`,
        ratio: (sim, base, clock) =>
          clock === 'cpu' ? sim.cpuMsPerStart - base.node.cpuMsPerStart : sim.wallMsPerStart - base.node.wallMsPerStart,
      },
    ],
    comparisons: [],
  },
  programSeeds: {
    title: '6. dst explore of a plain program: seeds/s, worker vs a process per seed',
    metric: 'seedsPerSecond',
    unit: 'seeds per wall-clock second',
    plan(size) {
      const p = SIZES[size].program;
      const r = REPS[size];
      return {
        workload: {
          ...p,
          description:
            `dst explore ${p.file} --jobs 1: ${p.seeds} seeds in worker processes (many seeds each), ` +
            `${p.seedsPerSeedProcess} with --process-per-seed; every seed passes; CPU is the children's`,
        },
        subjects: {
          simulator: { label: 'dst explore (seeds in a worker)', case: 'explore-program-workers', warmups: r.warmups, reps: r.slow },
          processPerSeed: { label: 'dst explore --process-per-seed', case: 'explore-program-process-per-seed', metric: 'seedsPerSecond', warmups: r.warmups, reps: r.slow },
        },
      };
    },
    goals: [
      {
        id: 'program-worker-vs-process-per-seed',
        description: 'seeds/s in a worker / with a process per seed',
        target: 10,
        format: times,
        ratio: (sim, base, clock) =>
          clock === 'cpu' ? sim.seedsPerCpuSecond / base.processPerSeed.seedsPerCpuSecond : sim.seedsPerSecond / base.processPerSeed.seedsPerSecond,
      },
    ],
    comparisons: [],
  },
  postgresSeeds: {
    title: '7. Postgres bank demo, seeds/s',
    metric: 'seedsPerSecond',
    unit: 'seeds per wall-clock second',
    plan(size) {
      // PGlite is an optional peer dependency: without it the figure is skipped, saying why.
      const missing = postgresMissing();
      if (missing !== undefined) return { skip: missing };
      const p = SIZES[size].postgres;
      const r = REPS[size];
      return {
        workload: {
          ...p,
          description:
            `dst explore ${p.scenario} --seeds ${p.seeds} --jobs 1 (the fixed API: every seed passes; each seed boots Postgres from its template), ` +
            `against the same database work per seed in plain Node (bench/postgres.mjs: PGlite from the same template, pglite-socket, node:http, pg.Pool)`,
        },
        subjects: {
          simulator: { label: 'dst explore --jobs 1, bank demo', case: 'explore-postgres', warmups: r.warmups, reps: r.slow },
          plainNode: { label: 'plain Node: the same work per seed', case: 'plain-postgres', metric: 'seedsPerSecond', warmups: r.warmups, reps: r.slow },
        },
      };
    },
    goals: [],
    comparisons: [
      {
        id: 'postgres-explore-vs-plain-node',
        description: 'bank demo seeds/s under dst explore / the same work in plain Node',
        format: percent,
        ratio: (sim, base, clock) => (clock === 'cpu' ? sim.seedsPerCpuSecond / base.plainNode.seedsPerCpuSecond : sim.seedsPerSecond / base.plainNode.seedsPerSecond),
      },
    ],
  },
  tlsRequests: {
    title: '8. TLS: requests/s and handshakes/s, next to plain TCP',
    metric: 'roundTripsPerSecond',
    unit: 'request/response round trips per wall-clock second',
    plan(size) {
      const req = SIZES[size].tlsRequests;
      const hs = SIZES[size].tlsHandshakes;
      const r = REPS[size];
      return {
        workload: {
          requests: req,
          handshakes: hs,
          description:
            `figure 3's workload over TLS (tls.createServer with a certificate from sim.tls(), tls.connect verifying it): ` +
            `${req.roundTrips} sequential round trips over 1 connection; variant: ${hs.roundTrips} connections one after the other, ` +
            'each a full TLS handshake (no session kept), one round trip and a close; baselines: both over plain TCP, same sizes; ' +
            'default network (latency 1-5 ms uniform)',
        },
        subjects: {
          simulator: { label: 'dst-runtime Sim, TLS, 1 connection', case: 'sim-tls-requests', warmups: r.networkWarmups, reps: r.fast },
          handshakes: { label: 'dst-runtime Sim, TLS, a connection per request', case: 'sim-tls-handshakes', variant: true, warmups: r.networkWarmups, reps: r.fast },
          tcpRequests: { label: 'plain TCP, 1 connection', case: 'sim-tcp-requests-tls-size', warmups: r.networkWarmups, reps: r.fast },
          tcpConnects: { label: 'plain TCP, a connection per request', case: 'sim-tcp-connects', warmups: r.networkWarmups, reps: r.fast },
        },
      };
    },
    goals: [],
    comparisons: [
      {
        id: 'tls-vs-tcp-requests',
        description: 'requests/s over TLS / over plain TCP (1 connection)',
        format: percent,
        ratio: (sim, base, clock) =>
          clock === 'cpu' ? sim.roundTripsPerCpuSecond / base.tcpRequests.roundTripsPerCpuSecond : sim.roundTripsPerSecond / base.tcpRequests.roundTripsPerSecond,
      },
      {
        id: 'tls-handshakes-vs-tcp-connects',
        description: 'TLS handshakes/s / plain TCP connects/s (a connection per request)',
        format: percent,
        ratio: (_sim, base, clock, variants) =>
          clock === 'cpu'
            ? variants.handshakes.roundTripsPerCpuSecond / base.tcpConnects.roundTripsPerCpuSecond
            : variants.handshakes.roundTripsPerSecond / base.tcpConnects.roundTripsPerSecond,
      },
    ],
  },
  kvReload: hostReloadFigure({
    title: '9. host re-load vs first load: the KV replica (ES modules)',
    target: 'kv',
    what: 'a module host importing the KV store (packages/kv/src/index.mjs: its replica, client and transport, ES modules)',
  }),
  mqttReload: hostReloadFigure({
    title: '10. host re-load vs first load: mqtt.js (CommonJS, ~100 files)',
    target: 'mqtt',
    what: 'a module host importing mqtt.js 5.16.0 (about 100 CommonJS files with its dependencies)',
    missing: npmHostsMissing,
  }),
  mqttSeeds: {
    title: '11. three hosts booting npm packages with crash faults: seeds/s',
    metric: 'seedsPerSecond',
    unit: 'seeds per wall-clock second',
    plan(size) {
      const missing = npmHostsMissing();
      if (missing !== undefined) return { skip: missing };
      const m = SIZES[size].mqttScenario;
      const r = REPS[size];
      return {
        workload: {
          ...m,
          description:
            `dst explore ${m.scenario} --seeds ${m.seeds} --jobs 1: an aedes broker and two mqtt.js clients (QoS 1 publisher and subscriber) ` +
            'as module hosts, each crashed and restarted (1 crash/s), every boot loading its packages again; every seed passes; ' +
            "baseline: the same with DST_CODE_CACHE=0; CPU is the children's",
        },
        subjects: {
          simulator: { label: 'dst explore, code cache on', case: 'explore-mqtt', warmups: r.warmups, reps: r.slow },
          noCodeCache: { label: 'dst explore, DST_CODE_CACHE=0', case: 'explore-mqtt-no-cache', metric: 'seedsPerSecond', warmups: r.warmups, reps: r.slow },
        },
      };
    },
    goals: [],
    comparisons: [
      {
        id: 'mqtt-seeds-code-cache-vs-none',
        description: 'mqtt scenario seeds/s with the code cache / without',
        format: times,
        ratio: (sim, base, clock) => (clock === 'cpu' ? sim.seedsPerCpuSecond / base.noCodeCache.seedsPerCpuSecond : sim.seedsPerSecond / base.noCodeCache.seedsPerSecond),
      },
    ],
  },
};

/**
 * Figures 9 and 10: the CPU a module host's load costs when the process loads it again (a
 * restarted host, a host of the next run), against its first load in a process, and against a
 * re-load with the code cache off (DST_CODE_CACHE=0). Goal (issue 16): a re-load costs at most
 * 25% of the first load, that is first / re-load >= 4.
 */
function hostReloadFigure({ title, target, what, missing }) {
  const perLoad = (subject, clock) => (clock === 'cpu' ? subject.cpuMsPerLoad : subject.wallMsPerLoad);
  return {
    title,
    metric: 'cpuMsPerLoad',
    unit: 'CPU ms per load of the host\'s package graph',
    plan(size) {
      const reason = missing?.();
      if (reason !== undefined) return { skip: reason };
      const h = SIZES[size].hostLoads;
      const r = REPS[size];
      return {
        workload: {
          ...h,
          target,
          description:
            `${what}, loaded by \`await import()\` in a simulation of its own, measured between marks around the import; ` +
            `re-loads: ${h.loadsPerRun} per run in one process, after its first; first load: a fresh process each, its runtime warmed first by a host that imports nothing`,
        },
        subjects: {
          simulator: { label: 're-load (code cache on)', case: `host-reload-${target}`, warmups: r.warmups, reps: r.fast },
          firstLoad: { label: 'first load in a process', case: `host-first-load-${target}`, warmups: r.warmups, reps: r.fast },
          noCodeCache: { label: 're-load, DST_CODE_CACHE=0', case: `host-reload-${target}-no-cache`, warmups: r.warmups, reps: r.fast },
          noResolutionCache: { label: 're-load, DST_RESOLUTION_CACHE=0', case: `host-reload-${target}-no-resolution-cache`, warmups: r.warmups, reps: r.fast },
        },
      };
    },
    goals: [
      {
        id: `${target}-reload-vs-first-load`,
        description: `first load / re-load (a re-load costs at most 25% of the first)`,
        target: 4,
        format: times,
        ratio: (sim, base, clock) => perLoad(base.firstLoad, clock) / perLoad(sim, clock),
      },
    ],
    comparisons: [
      {
        id: `${target}-reload-code-cache-vs-none`,
        description: 're-load with DST_CODE_CACHE=0 / with the code cache',
        format: times,
        ratio: (sim, base, clock) => perLoad(base.noCodeCache, clock) / perLoad(sim, clock),
      },
      {
        id: `${target}-reload-resolution-cache-vs-none`,
        description: 're-load with DST_RESOLUTION_CACHE=0 / with the resolution cache',
        format: times,
        ratio: (sim, base, clock) => perLoad(base.noResolutionCache, clock) / perLoad(sim, clock),
      },
    ],
  };
}
