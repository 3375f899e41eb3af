import { formatValue, valueKey } from './values.js';

/** What a model answers for one operation applied to a state. */
export type StepResult<State> = { ok: true; state: State } | { ok: false; why: string };

/**
 * A sequential specification: the linearizability checker searches for an order of the
 * operations, consistent with real time, that this model accepts.
 *
 * The search memoizes (set of linearized operations, state) pairs, so `hash` must give equal
 * text for equal states and `step` must not mutate `state`.
 */
export interface Model<State, Input, Output> {
  readonly name: string;
  /** The state before any operation. */
  init(): State;
  /**
   * Applies one operation. `output` is `undefined` for an operation whose completion is
   * unknown: the model must then accept any result it cannot check (the checker also tries
   * leaving such operations out).
   */
  step(state: State, input: Input, output: Output | undefined): StepResult<State>;
  /** Canonical text of a state; equal states must give equal text. */
  hash(state: State): string;
  /** Readable text of a state, for reports. */
  describeState(state: State): string;
  /** Readable text of an operation, e.g. `write 3`. */
  describeOperation(input: Input, output: Output | undefined): string;
}

/** What a register operation asks. */
export type RegisterInput = { f: 'read' } | { f: 'write'; value: unknown } | { f: 'cas'; expected: unknown; value: unknown };

/** What a register read returned (`null` = absent); writes and swaps return nothing. */
export type RegisterOutput = unknown;

/**
 * A single register: it starts absent (`null`); a read returns the current value, a write sets
 * it, a cas sets it only if it currently equals `expected` (a cas recorded as `ok` swapped, so
 * it is refused in any other state). Values compare by canonical JSON (see values.ts).
 */
export const registerModel: Model<unknown, RegisterInput, RegisterOutput> = {
  name: 'register',
  init: () => null,
  step(state, input, output) {
    switch (input.f) {
      case 'read':
        if (output === undefined) return { ok: true, state };
        return valueKey(output) === valueKey(state)
          ? { ok: true, state }
          : { ok: false, why: `read ${formatValue(output)} but the register holds ${formatValue(state)}` };
      case 'write':
        return { ok: true, state: input.value };
      case 'cas':
        return valueKey(input.expected) === valueKey(state)
          ? { ok: true, state: input.value }
          : { ok: false, why: `cas expected ${formatValue(input.expected)} but the register holds ${formatValue(state)}` };
    }
  },
  hash: (state) => valueKey(state),
  describeState: (state) => formatValue(state),
  describeOperation(input, output) {
    switch (input.f) {
      case 'read':
        return `read ${formatValue(output)}`;
      case 'write':
        return `write ${formatValue(input.value)}`;
      case 'cas':
        return `cas ${formatValue(input.expected)}->${formatValue(input.value)}`;
    }
  },
};
