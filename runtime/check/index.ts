/**
 * dst-runtime/check: history checkers for distributed stores. Clients record every
 * operation's invocation and completion; these functions decide whether the history is
 * linearizable (single-key registers) or serializable (multi-key transactions).
 *
 * This entry point patches nothing: importing it installs no simulator shim, so a checker can
 * run in any process, inside or outside a simulation.
 * @packageDocumentation
 */
export { checkLinearizable, type LinearizabilityOptions } from './linearizable.js';
export { checkSerializable, type SerializabilityOptions } from './serializable.js';
export { registerModel, type Model, type StepResult, type RegisterInput, type RegisterOutput } from './model.js';
export { txnsToRegisterOps } from './adapter.js';
export { formatCheckResult, type FormatOptions } from './format.js';
export { UsageError } from '../errors.js';
export type {
  Micro,
  OpStatus,
  TxnRecord,
  RegisterOp,
  ModelOp,
  OpSummary,
  TxnSummary,
  DependencyEdge,
  Anomaly,
  LinearizabilityAnomaly,
  SerializabilityAnomaly,
  SerializabilityAnomalyType,
  CheckResult,
  CheckerName,
  CheckStats,
  LinearizabilityResult,
  SerializabilityResult,
} from './types.js';
