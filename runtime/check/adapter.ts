import { UsageError } from '../errors.js';
import type { RegisterOp, TxnRecord } from './types.js';

/**
 * Turns a KV history whose transactions each touch one key with one operation (a plain get or
 * put recorded as a transaction) into register operations for `checkLinearizable`. A read
 * becomes a `read` returning its value, a write a `write`; status and times carry over.
 * Throws a UsageError naming the first transaction with more than one operation.
 */
export function txnsToRegisterOps(history: readonly TxnRecord[]): RegisterOp[] {
  if (!Array.isArray(history)) throw new UsageError(`Failed to convert transactions to register ops: the history must be an array (got ${typeof history})`);
  return history.map((txn, index) => {
    if (txn === null || typeof txn !== 'object' || !Array.isArray(txn.ops)) {
      throw new UsageError(`Failed to convert transactions to register ops: transaction ${index} has no ops array`);
    }
    if (txn.ops.length !== 1) {
      throw new UsageError(
        `Failed to convert transactions to register ops: transaction ${txn.id} (index ${index}) has ${txn.ops.length} operations; ` +
          'linearizability is checked on single-operation transactions only, use checkSerializable for multi-operation ones',
      );
    }
    const micro = txn.ops[0]!;
    if (micro.f !== 'r' && micro.f !== 'w') {
      throw new UsageError(`Failed to convert transactions to register ops: transaction ${txn.id} has f ${JSON.stringify((micro as { f: unknown }).f)}; use 'r' or 'w'`);
    }
    const op: RegisterOp = {
      id: txn.id,
      process: txn.process,
      invokeNs: txn.invokeNs,
      status: txn.status,
      f: micro.f === 'r' ? 'read' : 'write',
      key: micro.key,
      value: micro.value,
    };
    if (txn.completeNs !== undefined) op.completeNs = txn.completeNs;
    return op;
  });
}
