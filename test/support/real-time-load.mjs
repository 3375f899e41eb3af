/**
 * A machine under load, for a process to preload BEFORE dst-runtime (`node --import this
 * --import dst-runtime/register program`): a real interval, made before the runtime installs its
 * timers, that busy-waits the main thread for a random 0 to LOAD_SPIN_MS ms (default 8) every
 * millisecond, and forces a garbage collection on about a third of its ticks when the process
 * runs with --expose-gc. Its randomness is its own (LOAD_SEED), never the simulation's: what a
 * simulated program prints must not depend on it.
 */
const spinMsMax = Number(process.env.LOAD_SPIN_MS ?? 8);
let state = Number(process.env.LOAD_SEED ?? 1) >>> 0 || 1;
function draw() {
  // xorshift32: enough to vary the pauses, and repeatable for a given LOAD_SEED.
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 2 ** 32;
}
const realNow = performance.now.bind(performance);
const gc = globalThis.gc;
const interval = setInterval(() => {
  const endMs = realNow() + draw() * spinMsMax;
  while (realNow() < endMs) {
    // busy: the machine's other processes have the CPU
  }
  if (gc !== undefined && draw() < 0.3) gc();
}, 1);
interval.unref();
