/**
 * What a seed of a plain program did that the worker process running it cannot reproduce at all
 * (program-seeds.ts runs many seeds per process), noted where it happens: the seed's result then
 * says its seeds must each run in a process of their own, this one included (its result here may
 * differ from its replay's), and the worker is not fit for another seed.
 */
let aloneReason: string | undefined;

/** Notes why this program's seeds must each run alone (the first reason noted is kept). */
export function everySeedAlone(why: string): void {
  aloneReason ??= why;
}

/** The reason noted since the last call, if any; clears it. */
export function takeAloneReason(): string | undefined {
  const taken = aloneReason;
  aloneReason = undefined;
  return taken;
}

/**
 * Why the worker cannot run another seed after this one, though this seed's own result stands:
 * the seed changed something of the process that lasts and cannot be put back (loader hooks,
 * the process's priority or user ids, its one stdin, V8 flags, a once-per-process warning),
 * noted where it happens; process-state.ts reports it after the seed.
 */
let unfitReason: string | undefined;

/** Notes that the worker cannot run another seed after this one (the first reason noted is kept). */
export function noSeedAfterThis(why: string): void {
  unfitReason ??= why;
}

/** The reason noted since the last call, if any; clears it. */
export function takeUnfitReason(): string | undefined {
  const taken = unfitReason;
  unfitReason = undefined;
  return taken;
}
