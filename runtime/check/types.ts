/**
 * The history formats the checkers read. Clients of a store record one entry per operation:
 * when it was invoked, when (and whether) it completed, and what it did. The shapes are a
 * fixed contract with the history recorders; change them only together.
 */

/** A read (`value` is what the read returned, `null` = key absent) or a write of `value`. */
export type Micro = { f: 'r'; key: string; value: unknown } | { f: 'w'; key: string; value: unknown };

/** How an operation ended, as far as its client knows. */
export type OpStatus = 'ok' | 'fail' | 'unknown';

/**
 * One transaction as its client saw it.
 *
 * - `'ok'`: committed; its reads carry the values read.
 * - `'fail'`: definitely did not take effect (aborted); nobody may observe its writes.
 * - `'unknown'`: the client does not know (timeout, crash); it may or may not have committed,
 *   and its reads are not known. It has no `completeNs`.
 */
export interface TxnRecord {
  id: number | string;
  /** The client that ran the transaction. */
  process: string | number;
  /** Virtual time of invocation, in ns. */
  invokeNs: number;
  /** Virtual time of completion, in ns; absent when `status` is `'unknown'`. */
  completeNs?: number;
  status: OpStatus;
  /** In program order. */
  ops: Micro[];
  /** Optional commit timestamp of an `'ok'` transaction (see `SerializabilityOptions`). */
  commitTs?: number;
}

/**
 * One operation on a single-key register, for the linearizability checker.
 *
 * - read: `value` is the value returned (`null` = key absent).
 * - write: `value` is the value written.
 * - cas: `expected` → `value`; `status: 'ok'` means it swapped. A cas that did not swap
 *   (compare failed) should be recorded as `'fail'`: it is dropped like any failed op.
 */
export interface RegisterOp {
  id: number | string;
  process: string | number;
  invokeNs: number;
  /** Absent when `status` is `'unknown'`. */
  completeNs?: number;
  status: OpStatus;
  f: 'read' | 'write' | 'cas';
  key: string;
  value: unknown;
  /** For `cas` only. */
  expected?: unknown;
}

/**
 * An operation for a custom `Model`: `input` is what the client asked, `output` what it got
 * back (ignored, and passed to the model as `undefined`, when `status` is `'unknown'`).
 */
export interface ModelOp<Input, Output> {
  id: number | string;
  process: string | number;
  invokeNs: number;
  completeNs?: number;
  status: OpStatus;
  /** Operations on different keys are checked independently (P-compositionality). */
  key: string;
  input: Input;
  output?: Output;
}

/** An operation as reported in an anomaly: where and when it ran, and what it did. */
export interface OpSummary {
  id: number | string;
  process: string | number;
  invokeNs: number;
  /** `null` for an operation whose completion is unknown. */
  completeNs: number | null;
  status: OpStatus;
  /** What the operation did, e.g. `write 3`, `read 1`, `cas 1->2`. */
  description: string;
}

/** A linearizability violation on one key. */
export interface LinearizabilityAnomaly {
  type: 'nonlinearizable';
  key: string;
  /**
   * The longest linearizable prefix the search found, in linearization order. Long prefixes
   * are kept whole here; `formatCheckResult` prints only their tail.
   */
  prefix: OpSummary[];
  /** The model state after `prefix`, described by the model. */
  stateAfterPrefix: string;
  /**
   * After `prefix`, the operation that had to take effect next (the earliest completion not
   * yet placed) and every operation that could have gone before it, each with the reason the
   * model refused it in that state.
   */
  unplaced: { op: OpSummary; why: string }[];
}

/** Kinds of serializability anomaly, after Adya and Elle. */
export type SerializabilityAnomalyType =
  | 'G0'
  | 'G1a'
  | 'G1b'
  | 'G1c'
  | 'G-single'
  | 'G2'
  | 'internal'
  | 'garbage-read'
  | 'commit-ts-order';

/** A transaction as reported in an anomaly. */
export interface TxnSummary {
  id: number | string;
  process: string | number;
  status: OpStatus;
  invokeNs: number;
  completeNs: number | null;
  commitTs: number | null;
  /** E.g. `[r x 5, w y 7]`. */
  description: string;
}

/** A dependency between two transactions. */
export interface DependencyEdge {
  /** ww: `to` wrote a later version; wr: `to` read what `from` wrote; rw: `to` overwrote what `from` read; rt: `from` completed before `to` was invoked. */
  type: 'ww' | 'wr' | 'rw' | 'rt';
  key: string | null;
  /** For ww/rw: the earlier version; for wr: the value read. */
  fromValue: unknown;
  /** For ww/rw: the later version. */
  toValue: unknown;
}

/** One serializability anomaly with the transactions that show it. */
export interface SerializabilityAnomaly {
  type: SerializabilityAnomalyType;
  /** One sentence saying what is wrong. */
  explanation: string;
  /** The transactions involved; for a cycle, in cycle order (the last one leads back to the first). */
  txns: TxnSummary[];
  /** For a cycle: `edges[i]` leads from `txns[i]` to `txns[(i + 1) % txns.length]`. */
  edges: DependencyEdge[];
}

export type Anomaly = LinearizabilityAnomaly | SerializabilityAnomaly;

/**
 * What a checker answers.
 *
 * - `valid: true`: the history is correct under the model checked.
 * - `valid: false`: it is not; `anomalies` holds the evidence (capped by `anomaliesMax`) and
 *   `message` a one-line summary.
 * - `valid: 'unknown'`: the checker could not decide within its limits (`reason` says which
 *   limit and where). A violation found on one key wins over an undecided other key.
 */
export type CheckResult<A extends Anomaly = Anomaly> =
  | { valid: true; checker: CheckerName; stats: CheckStats }
  | { valid: false; checker: CheckerName; anomalies: A[]; message: string; stats: CheckStats }
  | { valid: 'unknown'; checker: CheckerName; reason: string; stats: CheckStats };

export type CheckerName = 'linearizability' | 'serializability';

/** What the checker looked at and how hard it worked. */
export interface CheckStats {
  /** Operations or transactions considered (failed ones dropped). */
  operations: number;
  /** Keys checked (linearizability) or keys touched (serializability). */
  keys: number;
  /** Search steps (linearizability) or dependency edges (serializability). */
  steps: number;
}

export type LinearizabilityResult = CheckResult<LinearizabilityAnomaly>;
export type SerializabilityResult = CheckResult<SerializabilityAnomaly>;
