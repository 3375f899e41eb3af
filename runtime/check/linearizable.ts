import { UsageError, assert } from '../errors.js';
import { registerModel, type Model, type RegisterInput, type RegisterOutput } from './model.js';
import { formatNs } from './values.js';
import type { LinearizabilityAnomaly, LinearizabilityResult, ModelOp, OpSummary, RegisterOp } from './types.js';

/**
 * Linearizability checking in the style of Wing & Gong / Lowe, as in Porcupine: a depth-first
 * search over the history's call and return events that linearizes one pending call at a time,
 * backtracks when a return is reached whose call is not yet linearized, and remembers every
 * (set of linearized operations, model state) pair it has already explored so no configuration
 * is searched twice. Keys are checked independently (P-compositionality: a history is
 * linearizable iff its restriction to every key is).
 */

export interface LinearizabilityOptions<State = unknown, Input = RegisterInput, Output = RegisterOutput> {
  /**
   * Search steps allowed per key (one step = one operation tried or one backtrack). When a key
   * needs more, the answer is `valid: 'unknown'` naming the key, never a hang. Default 1e6.
   */
  stepsMax?: number;
  /**
   * A custom sequential model. With it, the history holds `ModelOp`s (`input`/`output`);
   * without it, `RegisterOp`s checked against `registerModel`.
   */
  model?: Model<State, Input, Output>;
}

const OPTION_NAMES = ['stepsMax', 'model'];
const STEPS_MAX_DEFAULT = 1_000_000;

/** One operation as the search sees it. */
interface SearchOp<Input, Output> {
  summary: OpSummary;
  input: Input;
  /** `undefined` when the completion is unknown. */
  output: Output | undefined;
  invokeNs: number;
  /** +Infinity when the completion is unknown: it may take effect any time after its call, or never. */
  returnNs: number;
}

/** Checks a register history (`RegisterOp[]`) against `registerModel`. */
export function checkLinearizable(history: readonly RegisterOp[], options?: LinearizabilityOptions): LinearizabilityResult;
/** Checks a history of `ModelOp`s against `options.model`. */
export function checkLinearizable<State, Input, Output>(
  history: readonly ModelOp<Input, Output>[],
  options: LinearizabilityOptions<State, Input, Output> & { model: Model<State, Input, Output> },
): LinearizabilityResult;
export function checkLinearizable(history: readonly unknown[], options: LinearizabilityOptions<any, any, any> = {}): LinearizabilityResult {
  validateOptions(options);
  if (!Array.isArray(history)) throw new UsageError(`Failed to check linearizability: the history must be an array of operations (got ${typeof history})`);
  const stepsMax = options.stepsMax ?? STEPS_MAX_DEFAULT;
  const model: Model<any, any, any> = options.model ?? registerModel;
  const byKey = new Map<string, SearchOp<any, any>[]>();
  for (let i = 0; i < history.length; i++) {
    const op = options.model === undefined ? fromRegisterOp(history[i] as RegisterOp, i) : fromModelOp(history[i] as ModelOp<any, any>, i, model);
    if (op === undefined) continue;
    const key = (history[i] as { key: string }).key;
    let ops = byKey.get(key);
    if (ops === undefined) byKey.set(key, (ops = []));
    ops.push(op);
  }

  const anomalies: LinearizabilityAnomaly[] = [];
  const undecided: string[] = [];
  let steps = 0;
  let operations = 0;
  for (const [key, ops] of byKey) {
    operations += ops.length;
    const outcome = searchKey(model, ops, stepsMax);
    steps += outcome.steps;
    if (outcome.kind === 'too-large') {
      undecided.push(`key ${JSON.stringify(key)} (${ops.length} operations)`);
    } else if (outcome.kind === 'violation') {
      anomalies.push(explain(model, key, ops, outcome.prefix, outcome.state));
    }
  }
  const stats = { operations, keys: byKey.size, steps };
  if (anomalies.length > 0) {
    const first = anomalies[0]!;
    const blocked = first.unplaced[0];
    const message =
      `not linearizable: ${anomalies.length} of ${byKey.size} key${byKey.size === 1 ? '' : 's'} without a valid order; key ${JSON.stringify(first.key)}: ` +
      `after ${first.prefix.length} operations (state ${first.stateAfterPrefix}), ` +
      (blocked === undefined ? 'no operation could be placed' : `${blocked.op.description} by process ${blocked.op.process} could not be placed`) +
      (undecided.length > 0 ? `; undecided: ${undecided.join(', ')}` : '');
    return { valid: false, checker: 'linearizability', anomalies, message, stats };
  }
  if (undecided.length > 0) {
    return {
      valid: 'unknown',
      checker: 'linearizability',
      reason: `too large: ${undecided.join(', ')} needed more than stepsMax=${stepsMax} search steps; raise stepsMax or record shorter histories per key`,
      stats,
    };
  }
  return { valid: true, checker: 'linearizability', stats };
}

function validateOptions(options: LinearizabilityOptions<any, any, any>): void {
  if (options === null || typeof options !== 'object') throw new UsageError(`Failed to check linearizability: options must be an object (got ${options})`);
  for (const name of Object.keys(options)) {
    if (!OPTION_NAMES.includes(name)) {
      const hint = name === 'maxSteps' ? ' (did you mean stepsMax?)' : '';
      throw new UsageError(`Failed to check linearizability: unknown option "${name}"${hint}; known options: ${OPTION_NAMES.join(', ')}`);
    }
  }
  if (options.model !== undefined) {
    const missing = ['init', 'step', 'hash', 'describeState', 'describeOperation'].filter(
      (name) => typeof (options.model as unknown as Record<string, unknown>)[name] !== 'function',
    );
    if (missing.length > 0) throw new UsageError(`Failed to check linearizability: the model lacks ${missing.join(', ')}; see the Model interface`);
  }
  const { stepsMax } = options;
  if (stepsMax !== undefined && !(Number.isInteger(stepsMax) && stepsMax > 0)) {
    throw new UsageError(`Failed to check linearizability: stepsMax must be a positive integer (got ${stepsMax})`);
  }
}

/** Checks what every operation needs: times, status, key. */
function validateCommon(op: Partial<RegisterOp> | undefined, index: number): asserts op is RegisterOp {
  const where = `Failed to check linearizability: operation ${index}`;
  if (op === null || typeof op !== 'object') throw new UsageError(`${where} is not an object (got ${op})`);
  if (op.status !== 'ok' && op.status !== 'fail' && op.status !== 'unknown') {
    throw new UsageError(`${where} (id ${op.id}) has status ${JSON.stringify(op.status)}; use 'ok', 'fail' or 'unknown'`);
  }
  if (typeof op.key !== 'string') throw new UsageError(`${where} (id ${op.id}) has no string key (got ${typeof op.key}); use key: 'x' for a single register`);
  if (typeof op.invokeNs !== 'number' || !Number.isFinite(op.invokeNs)) {
    throw new UsageError(`${where} (id ${op.id}) has no finite invokeNs (got ${op.invokeNs})`);
  }
  if (op.status === 'ok' && !(typeof op.completeNs === 'number' && Number.isFinite(op.completeNs) && op.completeNs >= op.invokeNs)) {
    throw new UsageError(
      `${where} (id ${op.id}) is 'ok' but its completeNs (${op.completeNs}) is not a finite time >= invokeNs (${op.invokeNs}); record completeNs, or mark the op 'unknown'`,
    );
  }
}

function summary(op: RegisterOp | ModelOp<unknown, unknown>, description: string): OpSummary {
  return {
    id: op.id,
    process: op.process,
    invokeNs: op.invokeNs,
    completeNs: op.status === 'unknown' ? null : (op.completeNs ?? null),
    status: op.status,
    description,
  };
}

/** A register op for the search; `undefined` for ops that cannot matter (failed ops, unknown reads). */
function fromRegisterOp(op: RegisterOp, index: number): SearchOp<RegisterInput, RegisterOutput> | undefined {
  validateCommon(op, index);
  let input: RegisterInput;
  switch (op.f) {
    case 'read':
      input = { f: 'read' };
      break;
    case 'write':
      input = { f: 'write', value: op.value };
      break;
    case 'cas':
      input = { f: 'cas', expected: op.expected, value: op.value };
      break;
    default:
      throw new UsageError(`Failed to check linearizability: operation ${index} (id ${op.id}) has f ${JSON.stringify(op.f)}; use 'read', 'write' or 'cas'`);
  }
  // A failed op definitely did not happen. A read whose result is unknown changed nothing and
  // told nothing, so it can always be left out.
  if (op.status === 'fail') return undefined;
  if (op.status === 'unknown' && op.f === 'read') return undefined;
  if (op.status === 'ok' && op.f === 'read' && op.value === undefined) {
    throw new UsageError(`Failed to check linearizability: read ${index} (id ${op.id}) is 'ok' but has no value; use null for an absent key`);
  }
  const output = op.status === 'ok' && op.f === 'read' ? op.value : undefined;
  return {
    summary: summary(op, registerModel.describeOperation(input, output)),
    input,
    output,
    invokeNs: op.invokeNs,
    returnNs: op.status === 'unknown' ? Infinity : op.completeNs!,
  };
}

function fromModelOp(op: ModelOp<unknown, unknown>, index: number, model: Model<any, any, any>): SearchOp<unknown, unknown> | undefined {
  validateCommon(op as unknown as Partial<RegisterOp>, index);
  if (op.status === 'fail') return undefined;
  const output = op.status === 'unknown' ? undefined : op.output;
  return {
    summary: summary(op, model.describeOperation(op.input, output)),
    input: op.input,
    output,
    invokeNs: op.invokeNs,
    returnNs: op.status === 'unknown' ? Infinity : op.completeNs!,
  };
}

type SearchOutcome<State> =
  | { kind: 'linearizable'; steps: number }
  | { kind: 'too-large'; steps: number }
  | { kind: 'violation'; steps: number; prefix: number[]; state: State };

/** Deterministic per-operation hash words for the incremental set hash of the memo cache. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * The search on one key. Events are the calls of every op and the returns of ops that
 * completed; ops of unknown completion have no return event (their return is at +infinity),
 * so they never force a backtrack and may stay unlinearized: the search succeeds as soon as
 * every op that completed is linearized.
 */
function searchKey<State>(model: Model<State, unknown, unknown>, ops: SearchOp<unknown, unknown>[], stepsMax: number): SearchOutcome<State> {
  const n = ops.length;
  // Events sorted by time. At equal times calls come first: an op returning at t and one
  // invoked at t are not ordered in real time, so they are treated as concurrent (the more
  // permissive reading, which never reports a violation that a tie could explain).
  const events: { op: number; isCall: boolean; timeNs: number }[] = [];
  for (let i = 0; i < n; i++) {
    events.push({ op: i, isCall: true, timeNs: ops[i]!.invokeNs });
    if (ops[i]!.returnNs !== Infinity) events.push({ op: i, isCall: false, timeNs: ops[i]!.returnNs });
  }
  events.sort((a, b) => a.timeNs - b.timeNs || (a.isCall === b.isCall ? a.op - b.op : a.isCall ? -1 : 1));

  // A doubly linked list over event slots 1..m with sentinel 0 (dancing links: a lifted event
  // keeps its own pointers, so lifts are undone in reverse order).
  const m = events.length;
  const next = new Int32Array(m + 2);
  const prev = new Int32Array(m + 2);
  const returnSlot = new Int32Array(n).fill(-1);
  for (let s = 0; s <= m; s++) {
    next[s] = s + 1 <= m ? s + 1 : -1;
    prev[s] = s - 1;
  }
  for (let s = 1; s <= m; s++) {
    const e = events[s - 1]!;
    if (!e.isCall) returnSlot[e.op] = s;
  }
  const unlink = (s: number) => {
    next[prev[s]!] = next[s]!;
    if (next[s] !== -1) prev[next[s]!] = prev[s]!;
  };
  const relink = (s: number) => {
    next[prev[s]!] = s;
    if (next[s] !== -1) prev[next[s]!] = s;
  };
  const lift = (callSlot: number, op: number) => {
    unlink(callSlot);
    if (returnSlot[op]! !== -1) unlink(returnSlot[op]!);
  };
  const unlift = (callSlot: number, op: number) => {
    if (returnSlot[op]! !== -1) relink(returnSlot[op]!);
    relink(callSlot);
  };

  let definiteLeft = 0;
  for (const op of ops) if (op.returnNs !== Infinity) definiteLeft++;
  if (definiteLeft === 0) return { kind: 'linearizable', steps: 0 };

  const words = (n + 31) >>> 5;
  const linearized = new Uint32Array(words);
  let hashA = 0;
  let hashB = 0;
  const seen = new Map<string, Uint32Array[]>();
  const remember = (stateHash: string): boolean => {
    const k = `${hashA}:${hashB}:${stateHash}`;
    const bucket = seen.get(k);
    if (bucket === undefined) {
      seen.set(k, [linearized.slice()]);
      return true;
    }
    for (const bits of bucket) if (bits.every((w, i) => w === linearized[i])) return false;
    bucket.push(linearized.slice());
    return true;
  };
  const toggle = (op: number) => {
    linearized[op >>> 5]! ^= 1 << (op & 31);
    hashA ^= mix32(op * 2 + 1);
    hashB ^= mix32(op * 2 + 0x9e3779b9);
  };

  const stack: { slot: number; op: number; state: State }[] = [];
  let best: number[] = [];
  let bestState = model.init();
  let state = model.init();
  let slot = next[0]!;
  let steps = 0;
  while (true) {
    if (++steps > stepsMax) return { kind: 'too-large', steps: steps - 1 };
    // Past the last event only calls of ops with unknown completion remain, yet an op that
    // completed is still unlinearized: its return would have stopped the cursor first.
    assert(slot !== -1, 'linearizability search ran past the last event with completed ops left');
    const e = events[slot - 1]!;
    if (e.isCall) {
      const op = ops[e.op]!;
      const result = model.step(state, op.input, op.output);
      if (result.ok) {
        toggle(e.op);
        if (remember(model.hash(result.state))) {
          stack.push({ slot, op: e.op, state });
          state = result.state;
          lift(slot, e.op);
          if (op.returnNs !== Infinity && --definiteLeft === 0) return { kind: 'linearizable', steps };
          slot = next[0]!;
          continue;
        }
        toggle(e.op);
      }
      slot = next[slot]!;
      continue;
    }
    // A return whose call is not linearized: whatever was linearized last must move.
    if (stack.length > best.length) {
      best = stack.map((f) => f.op);
      bestState = state;
    }
    const top = stack.pop();
    if (top === undefined) return { kind: 'violation', steps, prefix: best, state: bestState };
    unlift(top.slot, top.op);
    toggle(top.op);
    if (ops[top.op]!.returnNs !== Infinity) definiteLeft++;
    state = top.state;
    slot = next[top.slot]!;
  }
}

/** How many operations the explanation lists as "could not be placed". */
const UNPLACED_MAX = 10;

/**
 * Builds the explanation from the longest prefix: the op that had to come next (earliest
 * completion not yet placed) and the ops concurrent with it, each with the model's refusal.
 */
function explain<State>(
  model: Model<State, unknown, unknown>,
  key: string,
  ops: SearchOp<unknown, unknown>[],
  prefix: number[],
  state: State,
): LinearizabilityAnomaly {
  const placed = new Set(prefix);
  let blocking = -1;
  for (let i = 0; i < ops.length; i++) {
    if (placed.has(i) || ops[i]!.returnNs === Infinity) continue;
    if (blocking === -1 || ops[i]!.returnNs < ops[blocking]!.returnNs) blocking = i;
  }
  const unplaced: { op: OpSummary; why: string }[] = [];
  const deadlineNs = blocking === -1 ? Infinity : ops[blocking]!.returnNs;
  const candidates = [blocking];
  for (let i = 0; i < ops.length; i++) {
    if (i !== blocking && !placed.has(i) && ops[i]!.invokeNs <= deadlineNs) candidates.push(i);
  }
  for (const i of candidates) {
    if (i === -1 || unplaced.length >= UNPLACED_MAX) continue;
    const op = ops[i]!;
    const result = model.step(state, op.input, op.output);
    const why = result.ok
      ? `accepted in state ${model.describeState(state)}, but no order of the remaining operations works after it`
      : result.why;
    unplaced.push({ op: op.summary, why: i === blocking ? `${why} (it completed at ${formatNs(op.returnNs)}, so it must take effect before any op invoked later)` : why });
  }
  return {
    type: 'nonlinearizable',
    key,
    prefix: prefix.map((i) => ops[i]!.summary),
    stateAfterPrefix: model.describeState(state),
    unplaced,
  };
}
