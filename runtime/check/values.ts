/**
 * Value identity for the checkers. Values in histories are whatever the client stored (numbers,
 * strings, JSON-like objects), so two values are the same when their canonical text is: object
 * keys sorted, `undefined` kept distinct from `null`. This is the equality both checkers use.
 */

/** Canonical text of a value: equal values give equal text. */
export function valueKey(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  switch (typeof value) {
    case 'number':
      return Object.is(value, -0) ? 'n:0' : `n:${value}`;
    case 'bigint':
      return `b:${value}`;
    case 'string':
      return `s:${JSON.stringify(value)}`;
    case 'boolean':
      return `${value}`;
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(valueKey).join(',')}]`;
      const keys = Object.keys(value as object).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${valueKey((value as Record<string, unknown>)[k])}`).join(',')}}`;
    }
    default:
      return `?:${String(value)}`;
  }
}

/** Short readable text of a value for reports: `5`, `"a"`, `nil` for absent. */
export function formatValue(value: unknown): string {
  if (value === null) return 'nil';
  if (value === undefined) return '?';
  if (typeof value === 'string') return /^[\w.:-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** `12.5ms`-style text for a virtual time in ns; `∞` for unknown completion. */
export function formatNs(ns: number | null | undefined): string {
  if (ns === null || ns === undefined) return '∞';
  if (ns % 1e6 === 0) return `${ns / 1e6}ms`;
  return `${(ns / 1e6).toFixed(6).replace(/0+$/, '')}ms`;
}
