// `dst shrink`: a small fault schedule that still fails the same way. The seed's run records the
// faults its fault driver injected (its schedule); each candidate is that schedule with faults
// dropped, downtimes shortened or faults moved later, run deterministically with the same seed
// (runScenario's `schedule` option: the hosts' randomness still comes from the seed). Delta
// debugging (ddmin) drops faults until no single one can be removed; then each fault's downtime
// is shortened and the fault moved later where the failure survives it; then single removals are
// tried once more.
//
// A candidate "fails the same way" when it fails with the original's kind and the same invariant
// (safety, liveness), or the same message up to numbers (a crash, a limit). Candidates run only
// until 2 x the original failure time + 1 s (a safety failure that has not happened by then
// counts as gone): their events before that are the full run's, so the verdict is exact for what
// it says. A liveness failure is judged at the end of the budget: those run in full.
//
// Candidates run `jobs` at a time, in a fixed order; the first that fails the same way in that
// order is taken, so the result does not depend on which worker finishes first.

/** What must stay equal for a failure to be "the same": kind and invariant, or the message without its numbers. */
export function failureSignature(failure) {
  return `${failure.kind}:${failure.invariant ?? failure.message.replace(/\d+/g, '#')}`;
}

/**
 * Shrinks seed `seed` of `scenario`. `run({ seed, schedule?, stopAtMs? })` runs one candidate (in
 * a worker) and resolves with its ScenarioResult. Resolves with { passed: true } when the seed
 * passes, else { original, final, faults, runs, elapsedMs }.
 */
export async function shrink({ scenario, seed, run, jobs = 1, log = () => {} }) {
  const started = Date.now();
  let runs = 0;
  const exec = (message) => {
    runs++;
    return run(message);
  };
  const original = await exec({ seed });
  if (original.ok) return { passed: true, runs, elapsedMs: Date.now() - started };
  const signature = failureSignature(original.failure);
  const same = (r) => !r.ok && failureSignature(r.failure) === signature;
  const tickMs = scenario.faults?.tickMs ?? 10;
  const downMsMin = scenario.faults?.downMsMin ?? 50;
  const liveness = original.failure.kind === 'liveness';
  const stopAtMs = liveness ? undefined : Math.min(scenario.durationMs, Math.ceil((2 * original.failure.timeNs) / 1e6 + 1000));
  const t = (r) => `${(r.failure.timeNs / 1e9).toFixed(3)} s`;
  log(`seed ${seed} fails (${original.failure.kind}${original.failure.invariant ? `: ${original.failure.invariant}` : ''}) at ${t(original)} after ${original.schedule.length} fault(s)`);

  // The recorded schedule replays the run exactly (the same fingerprint): the premise of the search.
  const replayed = await exec({ seed, schedule: original.schedule });
  if (!same(replayed)) {
    throw new Error(`Failed to shrink seed ${seed}: its recorded fault schedule does not fail the same way (${replayed.ok ? 'it passes' : `${replayed.failure.kind}: ${replayed.failure.message}`}); the scenario's faults may depend on more than the fault driver's draws`);
  }
  if (replayed.fingerprint !== original.fingerprint) log(`note: the recorded schedule fails the same way but not identically (${replayed.fingerprint} vs ${original.fingerprint})`);

  let current = original.schedule;
  let currentResult = replayed;
  /** The first candidate, in order, that fails the same way: its result, and the faults it really applied. */
  const firstFailing = async (candidates) => {
    for (let i = 0; i < candidates.length; i += jobs) {
      const window = candidates.slice(i, i + jobs);
      const results = await Promise.all(window.map((schedule) => exec({ seed, schedule, ...(stopAtMs === undefined ? {} : { stopAtMs }) })));
      const j = results.findIndex(same);
      if (j !== -1) return { index: i + j, result: results[j] };
    }
    return undefined;
  };
  const take = (found) => {
    // Faults after the failure, or skipped by the profile's guards, never applied: gone too.
    current = found.result.schedule;
    currentResult = found.result;
  };

  // 1. Drop faults: ddmin over the list, then single removals until none can go.
  const ddmin = async () => {
    let n = 2;
    while (current.length >= 2) {
      const size = Math.ceil(current.length / n);
      const chunks = [];
      for (let i = 0; i < current.length; i += size) chunks.push(current.slice(i, i + size));
      const complements = chunks.map((_, i) => chunks.filter((__, j) => j !== i).flat());
      const candidates = chunks.length === 2 ? chunks : [...chunks, ...complements];
      const found = await firstFailing(candidates);
      if (found !== undefined) {
        take(found);
        n = found.index < chunks.length ? 2 : Math.max(n - 1, 2);
        continue;
      }
      if (n >= current.length) break;
      n = Math.min(current.length, n * 2);
    }
  };
  const removeSingles = async () => {
    for (;;) {
      const candidates = current.length === 0 ? [] : current.map((_, i) => current.filter((__, j) => j !== i));
      const found = await firstFailing(candidates);
      if (found === undefined) return;
      take(found);
    }
  };
  const none = await firstFailing([[]]);
  if (none !== undefined) take(none);
  else {
    await ddmin();
    await removeSingles();
  }
  log(`${original.schedule.length} -> ${current.length} fault(s) after dropping (${runs} runs, ${((Date.now() - started) / 1000).toFixed(1)} s)`);

  // 2. Shorten downtimes: the shortest of a few, down to the profile's downMsMin.
  for (let i = 0; i < current.length; i++) {
    const f = current[i];
    if (f.downMs === undefined || f.downMs <= downMsMin) continue;
    const values = [...new Set([downMsMin, Math.round(downMsMin + (f.downMs - downMsMin) / 4), Math.round(downMsMin + (f.downMs - downMsMin) / 2)])].filter((v) => v < f.downMs);
    const found = await firstFailing(values.map((downMs) => current.map((g, j) => (j === i ? { ...g, downMs } : g))));
    if (found !== undefined) take(found);
  }

  // 3. Move faults later: the latest of a few ticks before the next fault (or the failure).
  for (let i = current.length - 1; i >= 0; i--) {
    const f = current[i];
    const boundMs = i + 1 < current.length ? current[i + 1].atMs : Math.floor(currentResult.failure.timeNs / 1e6 / tickMs) * tickMs;
    const room = boundMs - tickMs - f.atMs;
    if (room < tickMs) continue;
    const steps = [room, Math.floor(room / 2), Math.floor(room / 4)].map((d) => f.atMs + Math.floor(d / tickMs) * tickMs);
    const values = [...new Set(steps)].filter((v) => v > f.atMs);
    const found = await firstFailing(values.map((atMs) => current.map((g, j) => (j === i ? { ...g, atMs } : g))));
    if (found !== undefined) take(found);
  }

  // 4. Once more: a fault that mattered may not any more.
  await removeSingles();

  // The result, run in full: what `dst run --schedule` will show.
  const final = await exec({ seed, schedule: current });
  if (!same(final)) throw new Error(`Failed to shrink seed ${seed}: the shrunk schedule passes when run in full (a bug in dst shrink: please report it)`);
  log(`${original.schedule.length} -> ${current.length} fault(s) in ${runs} runs, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { passed: false, original, final, faults: final.schedule, runs, elapsedMs: Date.now() - started };
}
