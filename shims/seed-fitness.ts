/**
 * What a seed of a plain program did that no later seed in the same worker process can be
 * isolated from, noted where it happens (program-seeds.ts runs many seeds per process): the
 * seed's result then says the process is not fit for another seed, and the explorer replaces it,
 * so the next seed runs in a fresh process, as its replay does. process-state.ts reads it with
 * what it finds itself.
 */
let reason: string | undefined;
let aloneReason: string | undefined;

/** Notes why the worker process cannot run another seed (the first reason noted is kept). */
export function unfitForAnotherSeed(why: string): void {
  reason ??= why;
}

/** The reason noted since the last call, if any; clears it. */
export function takeUnfitReason(): string | undefined {
  const taken = reason;
  reason = undefined;
  return taken;
}

/**
 * Notes that this program cannot run as a worker's seed at all, not even as its first: what it
 * does comes out differently than in a process of its own (the seed's result is not kept; it and
 * every later seed run alone, as their replays run).
 */
export function everySeedAlone(why: string): void {
  aloneReason ??= why;
  unfitForAnotherSeed(why);
}

/** The reason noted by everySeedAlone since the last call, if any; clears it. */
export function takeAloneReason(): string | undefined {
  const taken = aloneReason;
  aloneReason = undefined;
  return taken;
}
