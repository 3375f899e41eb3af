/** Virtual time is an integer number of nanoseconds held in a JS number (exact up to ~104 days). */
export const NS_PER_US = 1_000;
export const NS_PER_MS = 1_000_000;
export const NS_PER_S = 1_000_000_000;

/** The largest virtual time a run may reach: 90 days, well inside Number.MAX_SAFE_INTEGER ns. */
export const TIME_NS_MAX = 90 * 24 * 3600 * NS_PER_S;

/** Formats a virtual time as seconds with nanosecond digits: "12.480000000 s". */
export function formatTimeNs(timeNs: number): string {
  const s = Math.floor(timeNs / NS_PER_S);
  const ns = timeNs - s * NS_PER_S;
  return `${s}.${String(ns).padStart(9, '0')} s`;
}

/**
 * Parses a duration for a limit option: a number of milliseconds, or a string with a unit
 * ("500ms", "10s", "5m", "2h", "1d"). Returns nanoseconds, or undefined if malformed.
 */
export function parseDurationNs(input: string | number): number | undefined {
  if (typeof input === 'number') {
    return Number.isFinite(input) && input >= 0 ? Math.round(input * NS_PER_MS) : undefined;
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ns|us|ms|s|m|h|d)?\s*$/.exec(input);
  if (!m) return undefined;
  const value = Number(m[1]);
  const unitNs: Record<string, number> = {
    ns: 1,
    us: NS_PER_US,
    ms: NS_PER_MS,
    s: NS_PER_S,
    m: 60 * NS_PER_S,
    h: 3600 * NS_PER_S,
    d: 86400 * NS_PER_S,
  };
  return Math.round(value * unitNs[m[2] ?? 'ms']!);
}
