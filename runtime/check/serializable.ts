import { UsageError } from '../errors.js';
import { DependencyGraph, shortestPath, stronglyConnected } from './graph.js';
import type {
  DependencyEdge,
  Micro,
  SerializabilityAnomaly,
  SerializabilityAnomalyType,
  SerializabilityResult,
  TxnRecord,
  TxnSummary,
} from './types.js';
import { formatValue, valueKey } from './values.js';

/**
 * Serializability of read-write register transactions, after Adya's anomalies as Elle checks
 * them. Written values are unique per key, so every read names the one write it saw (wr), and
 * the version order of each key (ww) and the anti-dependencies (rw) follow from what can be
 * inferred soundly; a cycle in the resulting graph means no serial order explains the history.
 */

export interface SerializabilityOptions {
  /**
   * Use the `commitTs` of `'ok'` transactions as the version order: of two committed writes to
   * a key, the one with the smaller commitTs installed the earlier version (equal timestamps
   * give no order). Right for stores that install versions in commit-timestamp order (MVCC).
   * Default true; it only has an effect when transactions carry commitTs.
   */
  commitTsVersionOrder?: boolean;
  /**
   * Also require the commit timestamps to be a serial order consistent with real time: every
   * dependency edge between two transactions with commitTs goes from the smaller to the larger
   * timestamp, and a transaction that completed before another was invoked has the smaller
   * timestamp. Together with no cycles this is strict serializability for the transactions
   * that carry commitTs. Default false.
   */
  strictCommitTs?: boolean;
  /**
   * A version order known from elsewhere: for each key, values in the order they were
   * installed (the initial absent state excluded). Only consecutive pairs are used; values
   * written by no committed transaction are skipped.
   */
  versionOrder?: Record<string, readonly unknown[]> | Map<string, readonly unknown[]>;
  /** At most this many anomalies are reported. Default 20. */
  anomaliesMax?: number;
  /** Dependency edges allowed before the answer is `'unknown'` (too large). Default 10,000,000. */
  edgesMax?: number;
}

const OPTION_NAMES = ['commitTsVersionOrder', 'strictCommitTs', 'versionOrder', 'anomaliesMax', 'edgesMax'];
const ANOMALIES_MAX_DEFAULT = 20;
const EDGES_MAX_DEFAULT = 10_000_000;
/** rw edges tried per component when looking for a G-single cycle before settling for G2. */
const SINGLE_RW_TRIES_MAX = 256;
/** The key of the initial version: every key starts absent. */
const INITIAL = valueKey(null);

/** Who wrote a value of a key, and whether it was the transaction's last write to that key. */
interface Writer {
  txn: number;
  final: boolean;
  value: unknown;
}

interface ExternalRead {
  key: string;
  value: unknown;
}

class TooLarge extends Error {}

/**
 * Checks a transaction history for serializability (see docs/check.md for what is inferred).
 * Throws a UsageError when the history breaks the model's premises (a value written twice to
 * one key, a write of null, an 'ok' read without a value).
 */
export function checkSerializable(history: readonly TxnRecord[], options: SerializabilityOptions = {}): SerializabilityResult {
  validateOptions(options);
  const txns: readonly TxnRecord[] = history;
  if (!Array.isArray(history)) throw new UsageError(`Failed to check serializability: the history must be an array of transactions (got ${typeof history})`);
  history.forEach(validateTxn);
  const anomaliesMax = options.anomaliesMax ?? ANOMALIES_MAX_DEFAULT;
  const edgesMax = options.edgesMax ?? EDGES_MAX_DEFAULT;
  const n = txns.length;
  const anomalies: SerializabilityAnomaly[] = [];
  const report = (anomaly: SerializabilityAnomaly) => {
    if (anomalies.length < anomaliesMax) anomalies.push(anomaly);
  };
  const summaries: TxnSummary[] = txns.map(summarize);

  // Who wrote what. Values are unique per key, so a value names its write.
  const writers = new Map<string, Map<string, Writer>>();
  const keys = new Set<string>();
  for (let t = 0; t < n; t++) {
    const lastWrite = new Map<string, number>();
    txns[t]!.ops.forEach((op, i) => {
      keys.add(op.key);
      if (op.f === 'w') lastWrite.set(op.key, i);
    });
    txns[t]!.ops.forEach((op, i) => {
      if (op.f !== 'w') return;
      let byValue = writers.get(op.key);
      if (byValue === undefined) writers.set(op.key, (byValue = new Map()));
      const vk = valueKey(op.value);
      const earlier = byValue.get(vk);
      if (earlier !== undefined) {
        throw new UsageError(
          `Failed to check serializability: value ${formatValue(op.value)} is written to key ${JSON.stringify(op.key)} twice ` +
            `(transactions ${txns[earlier.txn]!.id} and ${txns[t]!.id}); the checker needs unique written values per key, e.g. write \`\${process}-\${seq}\``,
        );
      }
      byValue.set(vk, { txn: t, final: lastWrite.get(op.key) === i, value: op.value });
    });
  }

  // Reads of 'ok' transactions: internal consistency first, then what each external read saw.
  const externalReads: ExternalRead[][] = txns.map(() => []);
  const committed = txns.map((t) => t.status === 'ok');
  for (let t = 0; t < n; t++) {
    if (txns[t]!.status !== 'ok') continue;
    const local = new Map<string, { value: unknown; own: boolean }>();
    for (const op of txns[t]!.ops) {
      const known = local.get(op.key);
      if (op.f === 'w') {
        local.set(op.key, { value: op.value, own: true });
        continue;
      }
      if (known === undefined) {
        local.set(op.key, { value: op.value, own: false });
        externalReads[t]!.push({ key: op.key, value: op.value });
      } else if (valueKey(known.value) !== valueKey(op.value)) {
        report({
          type: 'internal',
          explanation:
            `${txnName(txns[t]!)} reads ${op.key}=${formatValue(op.value)} after ` +
            `${known.own ? 'writing' : 'reading'} ${op.key}=${formatValue(known.value)} itself`,
          txns: [summaries[t]!],
          edges: [],
        });
      }
    }
  }
  // An 'unknown' transaction whose write someone read did commit.
  for (let t = 0; t < n; t++) {
    for (const read of externalReads[t]!) {
      const writer = writers.get(read.key)?.get(valueKey(read.value));
      if (writer !== undefined && txns[writer.txn]!.status === 'unknown') committed[writer.txn] = true;
    }
  }

  // wr edges, and the anomalies a single read shows.
  const graph = new DependencyGraph(n);
  const readersOf = new Map<string, Map<string, number[]>>(); // key -> version -> readers
  const addReader = (key: string, vk: string, t: number) => {
    let byVersion = readersOf.get(key);
    if (byVersion === undefined) readersOf.set(key, (byVersion = new Map()));
    let readers = byVersion.get(vk);
    if (readers === undefined) byVersion.set(vk, (readers = []));
    readers.push(t);
  };
  /** Versions each committed 'ok' transaction read before writing the same key: key -> [read, written]. */
  const readThenWrote: { key: string; from: string; to: string }[] = [];
  for (let t = 0; t < n; t++) {
    const txn = txns[t]!;
    for (const read of externalReads[t]!) {
      const vk = valueKey(read.value);
      const finalWrite = lastWriteOf(txn.ops, read.key);
      if (vk === INITIAL) {
        addReader(read.key, vk, t);
        if (finalWrite !== undefined) readThenWrote.push({ key: read.key, from: vk, to: valueKey(finalWrite) });
        continue;
      }
      const writer = writers.get(read.key)?.get(vk);
      const at = `${txnName(txn)} reads ${read.key}=${formatValue(read.value)}`;
      if (writer === undefined) {
        report({ type: 'garbage-read', explanation: `${at}, a value no transaction wrote`, txns: [summaries[t]!], edges: [] });
      } else if (writer.txn === t) {
        report({ type: 'internal', explanation: `${at} before it writes that value itself`, txns: [summaries[t]!], edges: [] });
      } else if (txns[writer.txn]!.status === 'fail') {
        report({
          type: 'G1a',
          explanation: `aborted read: ${at}, written only by failed ${txnName(txns[writer.txn]!)}`,
          txns: [summaries[t]!, summaries[writer.txn]!],
          edges: [],
        });
      } else if (!writer.final) {
        report({
          type: 'G1b',
          explanation:
            `intermediate read: ${at}, which ${txnName(txns[writer.txn]!)} overwrote within itself ` +
            `with ${read.key}=${formatValue(lastWriteOf(txns[writer.txn]!.ops, read.key))}`,
          txns: [summaries[t]!, summaries[writer.txn]!],
          edges: [],
        });
      } else {
        graph.add(writer.txn, t, { type: 'wr', key: read.key, fromValue: read.value, toValue: read.value });
        addReader(read.key, vk, t);
        if (finalWrite !== undefined) readThenWrote.push({ key: read.key, from: vk, to: valueKey(finalWrite) });
      }
    }
  }

  // The version order of each key, as a graph of versions (value keys). Sources, all sound:
  // a committed transaction that read v1 and then wrote v2 orders v1 before v2; commit
  // timestamps (if enabled) and a caller-supplied order; and the initial absent version
  // precedes every version with no other known predecessor.
  const versionNext = new Map<string, Map<string, Set<string>>>();
  const isVersion = (key: string, vk: string) => {
    const writer = writers.get(key)?.get(vk);
    return writer !== undefined && writer.final && committed[writer.txn]!;
  };
  const order = (key: string, from: string, to: string) => {
    if (from === to) return;
    let byVersion = versionNext.get(key);
    if (byVersion === undefined) versionNext.set(key, (byVersion = new Map()));
    let nexts = byVersion.get(from);
    if (nexts === undefined) byVersion.set(from, (nexts = new Set()));
    nexts.add(to);
  };
  for (const { key, from, to } of readThenWrote) if (isVersion(key, to)) order(key, from, to);
  if (options.commitTsVersionOrder ?? true) {
    for (const key of keys) {
      const stamped: { ts: number; vk: string }[] = [];
      for (const [vk, writer] of writers.get(key) ?? []) {
        const ts = txns[writer.txn]!.commitTs;
        if (writer.final && txns[writer.txn]!.status === 'ok' && ts !== undefined) stamped.push({ ts, vk });
      }
      stamped.sort((a, b) => a.ts - b.ts);
      // Versions with equal timestamps are not ordered among themselves: join every version
      // of one timestamp to every version of the next. The initial version comes first.
      let previous: string[] = [INITIAL];
      for (let i = 0; i < stamped.length; ) {
        const group: string[] = [];
        const ts = stamped[i]!.ts;
        for (; i < stamped.length && stamped[i]!.ts === ts; i++) group.push(stamped[i]!.vk);
        for (const from of previous) for (const to of group) order(key, from, to);
        previous = group;
      }
    }
  }
  const supplied = options.versionOrder instanceof Map ? [...options.versionOrder] : Object.entries(options.versionOrder ?? {});
  for (const [key, values] of supplied) {
    if (!Array.isArray(values)) throw new UsageError(`Failed to check serializability: versionOrder[${JSON.stringify(key)}] must be an array of values`);
    const present = values.map(valueKey).filter((vk) => isVersion(key, vk));
    for (let i = 1; i < present.length; i++) order(key, present[i - 1]!, present[i]!);
  }
  for (const key of keys) {
    const hasPredecessor = new Set<string>();
    for (const nexts of versionNext.get(key)?.values() ?? []) for (const vk of nexts) hasPredecessor.add(vk);
    for (const [vk, writer] of writers.get(key) ?? []) {
      if (writer.final && committed[writer.txn] && !hasPredecessor.has(vk)) order(key, INITIAL, vk);
    }
  }

  // ww and rw edges from the version order.
  try {
    for (const [key, byVersion] of versionNext) {
      for (const [from, nexts] of byVersion) {
        for (const to of nexts) {
          const later = writers.get(key)!.get(to)!;
          if (from !== INITIAL) {
            const earlier = writers.get(key)!.get(from)!;
            graph.add(earlier.txn, later.txn, { type: 'ww', key, fromValue: earlier.value, toValue: later.value });
          }
          for (const reader of readersOf.get(key)?.get(from) ?? []) {
            const read = externalReads[reader]!.find((r) => r.key === key)!;
            graph.add(reader, later.txn, { type: 'rw', key, fromValue: read.value, toValue: later.value });
          }
          if (graph.edgeCount > edgesMax) throw new TooLarge();
        }
      }
    }
  } catch (error) {
    if (!(error instanceof TooLarge)) throw error;
    return {
      valid: 'unknown',
      checker: 'serializability',
      reason: `too large: the dependency graph grew past edgesMax=${edgesMax} edges; raise edgesMax, or supply a version order (commitTs or versionOrder) so blind writes need fewer edges`,
      stats: { operations: n, keys: keys.size, steps: graph.edgeCount },
    };
  }

  findCycles(graph, summaries, report);
  if (options.strictCommitTs === true) checkCommitTs(txns, graph, summaries, report);

  const stats = { operations: txns.filter((t, i) => committed[i] || t.status === 'unknown').length, keys: keys.size, steps: graph.edgeCount };
  if (anomalies.length === 0) return { valid: true, checker: 'serializability', stats };
  const counts = new Map<SerializabilityAnomalyType, number>();
  for (const a of anomalies) counts.set(a.type, (counts.get(a.type) ?? 0) + 1);
  const message =
    `not serializable: ${[...counts].map(([type, count]) => `${type} x${count}`).join(', ')}` +
    `${anomalies.length >= anomaliesMax ? ` (first ${anomaliesMax} reported)` : ''}; ${anomalies[0]!.explanation}`;
  return { valid: false, checker: 'serializability', anomalies, message, stats };
}

const WW = new Set<DependencyEdge['type']>(['ww']);
const WW_WR = new Set<DependencyEdge['type']>(['ww', 'wr']);
const ALL = new Set<DependencyEdge['type']>(['ww', 'wr', 'rw']);

/**
 * Cycles, weakest class first: G0 among ww edges, G1c among ww+wr, then in each remaining
 * component a cycle with exactly one rw edge (G-single) or else any cycle (G2). One cycle is
 * reported per component; a component holding a cycle already reported at a weaker level is
 * explained by it and skipped.
 */
function findCycles(graph: DependencyGraph, summaries: TxnSummary[], report: (a: SerializabilityAnomaly) => void): void {
  const explained: number[][] = [];
  const isExplained = (component: Set<number>) => explained.some((cycle) => cycle.every((t) => component.has(t)));
  const cycleAnomaly = (type: SerializabilityAnomalyType, nodes: number[], preference: DependencyEdge['type'][]): SerializabilityAnomaly => {
    const edges = nodes.map((from, i) => graph.label(from, nodes[(i + 1) % nodes.length]!, preference));
    const rw = edges.filter((e) => e.type === 'rw').length;
    const explanation = {
      G0: 'write cycle: the transactions overwrite each other in a circle (every edge is ww)',
      G1c: 'circular information flow: each transaction sees or overwrites the next one, with no anti-dependency',
      'G-single': 'read skew: a cycle with exactly one anti-dependency (rw): a transaction missed a write that the rest of the cycle depends on',
      G2: `anti-dependency cycle (write skew, lost update): a cycle with ${rw} rw edges`,
    }[type as 'G0' | 'G1c' | 'G-single' | 'G2'];
    explained.push(nodes);
    return { type, explanation: `${explanation} (${nodes.length} transactions)`, txns: nodes.map((t) => summaries[t]!), edges };
  };
  const levels: [SerializabilityAnomalyType, ReadonlySet<DependencyEdge['type']>][] = [
    ['G0', WW],
    ['G1c', WW_WR],
  ];
  for (const [type, allowed] of levels) {
    const successors = (t: number) => graph.successors(t, allowed);
    for (const component of stronglyConnected(graph.size, successors)) {
      const within = new Set(component);
      if (isExplained(within)) continue;
      const path = shortestPath(component[0]!, component[0]!, within, successors);
      if (path !== null) report(cycleAnomaly(type, path, ['ww', 'wr']));
    }
  }
  const all = (t: number) => graph.successors(t, ALL);
  const weak = (t: number) => graph.successors(t, WW_WR);
  for (const component of stronglyConnected(graph.size, all)) {
    const within = new Set(component);
    if (isExplained(within)) continue;
    let single: number[] | null = null;
    let tries = 0;
    search: for (const from of component) {
      for (const [to, labels] of graph.out[from]!) {
        if (!within.has(to) || !labels.some((l) => l.type === 'rw')) continue;
        if (++tries > SINGLE_RW_TRIES_MAX) break search;
        const back = shortestPath(to, from, within, weak);
        if (back !== null) {
          single = [from, ...back];
          break search;
        }
      }
    }
    if (single !== null) {
      const anomaly = cycleAnomaly('G-single', single, ['ww', 'wr', 'rw']);
      // The first edge is the anti-dependency; label it so even if ww/wr also relate the pair.
      anomaly.edges[0] = graph.label(single[0]!, single[1]!, ['rw']);
      report(anomaly);
      continue;
    }
    const path = shortestPath(component[0]!, component[0]!, within, all);
    if (path === null) continue;
    // The G-single search gives up after SINGLE_RW_TRIES_MAX rw edges; the shortest cycle
    // found instead may still have just one.
    const rwCount = path.filter((from, i) => graph.label(from, path[(i + 1) % path.length]!, ['ww', 'wr', 'rw']).type === 'rw').length;
    report(cycleAnomaly(rwCount === 1 ? 'G-single' : 'G2', path, ['ww', 'wr', 'rw']));
  }
}

/**
 * With `strictCommitTs`: every dependency edge between transactions with commitTs must go
 * forward in timestamp, and real-time order (completed before invoked) must agree too.
 */
function checkCommitTs(txns: readonly TxnRecord[], graph: DependencyGraph, summaries: TxnSummary[], report: (a: SerializabilityAnomaly) => void): void {
  for (let from = 0; from < txns.length; from++) {
    const tsFrom = txns[from]!.commitTs;
    if (tsFrom === undefined || txns[from]!.status !== 'ok') continue;
    for (const [to, labels] of graph.out[from]!) {
      const tsTo = txns[to]!.commitTs;
      if (tsTo === undefined || txns[to]!.status !== 'ok' || tsFrom < tsTo) continue;
      const edge = labels[0]!;
      report({
        type: 'commit-ts-order',
        explanation: `${txnName(txns[from]!)} -${edge.type}(${edge.key})-> ${txnName(txns[to]!)} but commitTs ${tsFrom} is not below ${tsTo}`,
        txns: [summaries[from]!, summaries[to]!],
        edges: [edge, edge],
      });
    }
  }
  // Real time: walking down the timestamps, remember the earliest completion among larger or
  // equal timestamps; a transaction invoked after it has a timestamp that is too small.
  const stamped = txns
    .map((txn, index) => ({ txn, index }))
    .filter(({ txn }) => txn.status === 'ok' && txn.commitTs !== undefined)
    .sort((a, b) => b.txn.commitTs! - a.txn.commitTs! || a.index - b.index);
  let earliest: { txn: TxnRecord; index: number } | undefined;
  for (let i = 0; i < stamped.length; ) {
    const ts = stamped[i]!.txn.commitTs!;
    const group: typeof stamped = [];
    for (; i < stamped.length && stamped[i]!.txn.commitTs === ts; i++) group.push(stamped[i]!);
    for (const g of group) if (earliest === undefined || g.txn.completeNs! < earliest.txn.completeNs!) earliest = g;
    for (const g of group) {
      if (earliest !== undefined && earliest.txn.completeNs! < g.txn.invokeNs) {
        report({
          type: 'commit-ts-order',
          explanation:
            `${txnName(earliest.txn)} completed before ${txnName(g.txn)} was invoked, ` +
            `but its commitTs ${earliest.txn.commitTs} is not below ${g.txn.commitTs}`,
          txns: [summaries[earliest.index]!, summaries[g.index]!],
          edges: [
            { type: 'rt', key: null, fromValue: null, toValue: null },
            { type: 'rt', key: null, fromValue: null, toValue: null },
          ],
        });
      }
    }
  }
}

function lastWriteOf(ops: readonly Micro[], key: string): unknown {
  for (let i = ops.length - 1; i >= 0; i--) if (ops[i]!.f === 'w' && ops[i]!.key === key) return ops[i]!.value;
  return undefined;
}

/** `T12` for id 12 or '12'. */
export function txnName(txn: { id: number | string }): string {
  return `T${txn.id}`;
}

function summarize(txn: TxnRecord): TxnSummary {
  const ops = txn.ops.map((op) => `${op.f} ${op.key} ${txn.status === 'ok' || op.f === 'w' ? formatValue(op.value) : '?'}`);
  return {
    id: txn.id,
    process: txn.process,
    status: txn.status,
    invokeNs: txn.invokeNs,
    completeNs: txn.status === 'unknown' ? null : (txn.completeNs ?? null),
    commitTs: txn.commitTs ?? null,
    description: `[${ops.join(', ')}]`,
  };
}

function validateOptions(options: SerializabilityOptions): void {
  if (options === null || typeof options !== 'object') throw new UsageError(`Failed to check serializability: options must be an object (got ${options})`);
  for (const name of Object.keys(options)) {
    if (!OPTION_NAMES.includes(name)) {
      throw new UsageError(`Failed to check serializability: unknown option "${name}"; known options: ${OPTION_NAMES.join(', ')}`);
    }
  }
  for (const name of ['anomaliesMax', 'edgesMax'] as const) {
    const value = options[name];
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw new UsageError(`Failed to check serializability: ${name} must be a positive integer (got ${value})`);
    }
  }
}

function validateTxn(txn: TxnRecord, index: number): void {
  const where = `Failed to check serializability: transaction ${index}`;
  if (txn === null || typeof txn !== 'object') throw new UsageError(`${where} is not an object (got ${txn})`);
  const name = `${where} (id ${txn.id})`;
  if (txn.status !== 'ok' && txn.status !== 'fail' && txn.status !== 'unknown') {
    throw new UsageError(`${name} has status ${JSON.stringify(txn.status)}; use 'ok', 'fail' or 'unknown'`);
  }
  if (!Array.isArray(txn.ops)) throw new UsageError(`${name} has no ops array`);
  if (typeof txn.invokeNs !== 'number' || !Number.isFinite(txn.invokeNs)) throw new UsageError(`${name} has no finite invokeNs (got ${txn.invokeNs})`);
  if (txn.status === 'ok' && !(typeof txn.completeNs === 'number' && txn.completeNs >= txn.invokeNs)) {
    throw new UsageError(`${name} is 'ok' but its completeNs (${txn.completeNs}) is not a time >= invokeNs; record completeNs, or mark it 'unknown'`);
  }
  if (txn.commitTs !== undefined && !(typeof txn.commitTs === 'number' && Number.isFinite(txn.commitTs))) {
    throw new UsageError(`${name} has commitTs ${txn.commitTs}; use a finite number or leave it out`);
  }
  txn.ops.forEach((op, i) => {
    if (op === null || typeof op !== 'object' || (op.f !== 'r' && op.f !== 'w') || typeof op.key !== 'string') {
      throw new UsageError(`${name} op ${i} is not { f: 'r' | 'w', key: string, value }`);
    }
    if (op.f === 'w' && (op.value === null || op.value === undefined)) {
      throw new UsageError(`${name} op ${i} writes ${op.value} to ${JSON.stringify(op.key)}; null means "absent", so write a unique non-null value`);
    }
    if (op.f === 'r' && txn.status === 'ok' && op.value === undefined) {
      throw new UsageError(`${name} op ${i} is a read of an 'ok' transaction without a value; use null for an absent key`);
    }
  });
}
