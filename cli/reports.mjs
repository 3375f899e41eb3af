// Explore reports: merging the reports of shards (`dst explore --shard k/n --report f.json`).

const bySeed = (a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

/** What must agree between shards of one exploration. */
const SAME = [
  ['scenario', 'scenario'],
  ['file', 'file'],
  ['target', 'target (scenario or app)'],
  ['first', '--first'],
  ['seeds', '--seeds'],
  ['swarm', '--swarm'],
  ['settings', 'settings (DST_* environment, --time-limit, machine time zone and locale)'],
];

/**
 * Merges shard reports into one: seeds ran as a union, failing rows by seed, coverage summed.
 * Throws an Error naming the first setting two reports disagree on. `names` label the reports.
 */
export function mergeReports(reports, names = reports.map((_, i) => `report ${i + 1}`)) {
  if (reports.length === 0) throw new Error('Failed to merge reports: no reports given');
  const base = reports[0];
  reports.forEach((report, i) => {
    if (report === null || typeof report !== 'object' || !Array.isArray(report.ran) || !Array.isArray(report.failing)) {
      throw new Error(`Failed to merge reports: ${names[i]} is not a dst explore report (write one with dst explore --report)`);
    }
    for (const [key, label] of SAME) {
      const a = JSON.stringify(base[key] ?? null);
      const b = JSON.stringify(report[key] ?? null);
      if (a !== b) throw new Error(`Failed to merge reports: ${names[i]} has ${label} ${b} but ${names[0]} has ${label} ${a}; merge only shards of one exploration`);
    }
  });
  const ran = [...new Set(reports.flatMap((r) => r.ran))].sort(bySeed);
  const failingBySeed = new Map();
  for (const report of reports) for (const row of report.failing) if (!failingBySeed.has(row.seed)) failingBySeed.set(row.seed, row);
  const failing = [...failingBySeed.values()].sort((a, b) => bySeed(a.seed, b.seed));
  const coverage = new Map();
  for (const report of reports) {
    for (const c of report.coverage ?? []) {
      const entry = coverage.get(c.message) ?? { message: c.message, kind: c.kind, seeds: 0, hits: 0 };
      entry.seeds += c.seeds;
      entry.hits += c.hits;
      coverage.set(c.message, entry);
    }
  }
  const shards = reports.map((r) => r.shard ?? null);
  const elapsedMs = reports.reduce((sum, r) => sum + (r.elapsedMs ?? 0), 0);
  return {
    ...Object.fromEntries(SAME.map(([key]) => [key, base[key] ?? null])),
    format: base.format,
    shard: null,
    merged: shards,
    ran,
    missing: base.seeds - ran.length,
    passed: ran.length - failing.length,
    failing,
    coverage: [...coverage.values()].sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0)),
    elapsedMs,
    seedsPerSecond: elapsedMs > 0 ? Math.round((ran.length / (elapsedMs / 1000)) * 10) / 10 : null,
  };
}
