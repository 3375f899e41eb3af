/**
 * The workloads the benchmark measures, written once and run by every subject (the simulator,
 * @sinonjs/fake-timers, the raw driver baseline). Each takes the timer functions it should use,
 * so the simulator and fake-timers execute exactly the same schedule.
 */

/** The seed of every simulated run: fixed, so fingerprints must repeat exactly. */
export const BENCH_SEED = 0xbe7c4;

/** Sizes of each workload; `quick` is for the smoke test (seconds, not minutes). */
export const SIZES = {
  full: {
    timers: { hostsCount: 4, chainsPerHost: 250, stepsPerChain: 1000, delayMsMax: 10 },
    interval: { hostsCount: 5, intervalMs: 100, durationMs: 3_600_000 },
    immediateEvents: 1_000_000,
  },
  quick: {
    timers: { hostsCount: 2, chainsPerHost: 20, stepsPerChain: 50, delayMsMax: 10 },
    interval: { hostsCount: 5, intervalMs: 100, durationMs: 60_000 },
    immediateEvents: 20_000,
  },
};

/**
 * A small xorshift32 generator for the chains' delays. The delays must not depend on whether
 * Math.random is simulated (the simulator's fingerprint has to be stable across repetitions,
 * and fake-timers must see the very same delays), so they come from here. Math.random is still
 * called by the work itself, as real code would.
 */
export function delayStream(hostIndex, chainIndex) {
  let state = (Math.imul(hostIndex + 1, 0x9e3779b1) ^ Math.imul(chainIndex + 1, 0x85ebca6b)) | 0;
  if (state === 0) state = 0x2545f491;
  return function nextUint32() {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}

/**
 * "A little work": one Math.random draw and one small allocation that lives a few steps (in an
 * eight-slot ring), like a handler that builds a record and keeps it briefly.
 */
export function littleWork(ring, step) {
  const record = { step, value: Math.random() };
  const slot = step & 7;
  const previous = ring[slot];
  ring[slot] = record;
  return previous === undefined ? 0 : previous.value;
}

/**
 * Starts `chainsPerHost` concurrent setTimeout chains of one host. Each chain runs
 * `stepsPerChain` steps; each step does a little work and re-arms itself after a random delay
 * of 1..delayMsMax ms. Calls `onDone` once when every chain has finished.
 * `timers` is anything with a setTimeout (the global object inside a simulated host, or a
 * fake-timers clock).
 */
export function startTimerChains(timers, hostIndex, params, onDone) {
  const { chainsPerHost, stepsPerChain, delayMsMax } = params;
  let chainsRunning = chainsPerHost;
  let checksum = 0;
  for (let c = 0; c < chainsPerHost; c++) {
    const nextUint32 = delayStream(hostIndex, c);
    const ring = new Array(8);
    let stepsLeft = stepsPerChain;
    const step = () => {
      checksum += littleWork(ring, stepsLeft);
      stepsLeft--;
      if (stepsLeft === 0) {
        chainsRunning--;
        if (chainsRunning === 0) onDone(checksum);
        return;
      }
      timers.setTimeout(step, 1 + (nextUint32() % delayMsMax));
    };
    timers.setTimeout(step, 1 + (nextUint32() % delayMsMax));
  }
}

/** Timer callbacks one run of the timer workload fires in total. */
export function timerCallbacksTotal(params) {
  return params.hostsCount * params.chainsPerHost * params.stepsPerChain;
}

/** Virtual ms after which every chain has certainly finished. */
export function timerWorkloadSpanMs(params) {
  return params.stepsPerChain * params.delayMsMax + 1;
}

/** The body of one interval host: a setInterval that does a little random work each tick. */
export function startIntervalHost(timers, params) {
  const ring = new Array(8);
  let ticks = 0;
  timers.setInterval(() => {
    ticks++;
    littleWork(ring, ticks);
    // A few short-lived allocations, like building a small message.
    const message = { kind: 'heartbeat', ticks, payload: [ticks, ticks + 1, ticks + 2] };
    ring[(ticks + 4) & 7] = { step: ticks, value: message.payload.length * Math.random() };
  }, params.intervalMs);
}
