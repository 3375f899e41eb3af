/**
 * What the bench reports: each figure names its simulator subject, its baselines (measured in
 * the same run) and its goals. A goal's `ratio(simulator, baselines, clock)` is computed from
 * wall-clock figures (clock 'wall', the headline) and from CPU-time figures (clock 'cpu'). The subjects' `case` names are the functions in cases.mjs.
 */
import { BENCH_SEED, SIZES, timerCallbacksTotal } from './workloads.mjs';

export const BENCH_SEED_TEXT = `0x${BENCH_SEED.toString(16)}`;

/** Repetitions per subject (after the warm-ups), sized to keep the whole bench near a minute. */
const REPS = {
  full: { warmups: 1, fast: 5, slow: 3 },
  quick: { warmups: 1, fast: 2, slow: 2 },
};

const times = (ratio) => `${ratio.toFixed(2)}×`;
const percent = (ratio) => `${(ratio * 100).toFixed(0)}%`;

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
          simulator: { label: 'dst-runtime Sim', case: 'sim-timers', warmups: r.warmups, reps: r.fast },
          driverCeiling: {
            label: 'ceiling: batched setImmediate + ALS.run',
            case: 'baseline-immediate-als',
            warmups: r.warmups,
            reps: r.fast,
          },
          fakeTimers: { label: 'fake-timers clock.tickAsync', case: 'fake-timers-timers', warmups: r.warmups, reps: r.slow },
        },
      };
    },
    goals: [
      {
        id: 'simulator-vs-driver-ceiling',
        description: 'simulator / driver ceiling',
        target: 0.5,
        format: percent,
        ratio: (sim, base, clock) =>
          clock === 'cpu'
            ? sim.eventsPerCpuSecond / base.driverCeiling.eventsPerCpuSecond
            : sim.eventsPerSecond / base.driverCeiling.eventsPerSecond,
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
          fakeTimers: { label: 'fake-timers clock.tickAsync', case: 'fake-timers-interval', warmups: r.warmups, reps: r.fast },
        },
      };
    },
    goals: [
      {
        id: 'simulator-virtual-speed',
        description: 'simulator virtual speed',
        target: 10_000,
        format: (ratio) => `${Math.round(ratio).toLocaleString('en-US')}×`,
        ratio: (sim, _base, clock) => (clock === 'cpu' ? sim.virtualSecondsPerCpuSecond : sim.virtualSecondsPerWallSecond),
      },
    ],
  },
};
