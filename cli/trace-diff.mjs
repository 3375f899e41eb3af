// Compares two DST_TRACE files (JSON lines: n, tNs, host, boot, kind, seq, site) and names the
// first event where they differ. Only events (and the crashed/exited records of hosts going
// down) are compared, what the fingerprint hashes: the annotations between them (messages,
// faults, the failure) follow from the events.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** Event records of a trace: those with a seq, and hosts going down. */
function isEventLine(line) {
  return line.includes('"seq":') || line.includes('"kind":"crashed"') || line.includes('"kind":"exited"');
}

async function* eventLines(file) {
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (isEventLine(line)) yield line;
}

function lines(file) {
  return eventLines(file);
}

const LOOKAHEAD = 10_000;

async function readAhead(iterator, count) {
  const records = [];
  for (let i = 0; i < count; i++) {
    const next = await iterator.next();
    if (next.done) break;
    records.push(JSON.parse(next.value));
  }
  return records;
}

function sameEvent(x, y) {
  return x.seq !== undefined && x.seq === y.seq && x.host === y.host && x.boot === y.boot && x.kind === y.kind && x.site === y.site;
}

/**
 * The first divergent record of two traces: { index, a, b, fields } (a or b undefined when one
 * trace ended first; fields lists the keys whose values differ; counterpartA is the record of
 * a's event in trace B if it ran within the next 10,000 records, counterpartB likewise), or
 * undefined when they are equal, with `compared` the number of records read.
 */
export async function firstDivergence(fileA, fileB) {
  const ia = lines(fileA);
  const ib = lines(fileB);
  let index = 0;
  try {
    for (;;) {
      const [ra, rb] = await Promise.all([ia.next(), ib.next()]);
      if (ra.done && rb.done) return { divergence: undefined, compared: index };
      index++;
      if (!ra.done && !rb.done && ra.value === rb.value) continue;
      const a = ra.done ? undefined : JSON.parse(ra.value);
      const b = rb.done ? undefined : JSON.parse(rb.value);
      const keys = [...new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])];
      const fields = a === undefined || b === undefined ? [] : keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
      // Where each side's event ran in the other run, if it did soon after: the same host
      // incarnation, kind, scheduling order (seq) and site.
      const [aLater, bLater] = await Promise.all([readAhead(ia, LOOKAHEAD), readAhead(ib, LOOKAHEAD)]);
      const counterpartA = a === undefined ? undefined : [b, ...bLater].find((r) => r !== undefined && sameEvent(r, a));
      const counterpartB = b === undefined ? undefined : [a, ...aLater].find((r) => r !== undefined && sameEvent(r, b));
      return { divergence: { index, a, b, fields, counterpartA, counterpartB }, compared: index };
    }
  } finally {
    await ia.return?.();
    await ib.return?.();
  }
}

/** One trace record as a line of text. */
export function describeRecord(record) {
  if (record === undefined) return '(the run ended here: no more events)';
  const t = (record.tNs / 1e9).toFixed(9);
  const unknown = record.host === 'chaos' ? 'inside dst-runtime (the scenario fault driver)' : 'an unknown place (inside dst-runtime or Node)';
  const where = record.site === undefined ? (record.seq === undefined ? '' : `   scheduled ${unknown.startsWith('inside') ? '' : 'at '}${unknown}`) : `   scheduled at ${record.site}`;
  return `event ${record.n}   ${t} s (virtual)   host ${record.host} (boot ${record.boot})   ${record.kind}${where}`;
}
