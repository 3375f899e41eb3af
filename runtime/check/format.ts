import type { CheckResult, DependencyEdge, LinearizabilityAnomaly, OpSummary, SerializabilityAnomaly, TxnSummary } from './types.js';
import { formatNs, formatValue } from './values.js';

export interface FormatOptions {
  /** How many operations of a longest linearizable prefix are printed (its tail). Default 8. */
  prefixShownMax?: number;
}

/** A readable multi-line report of a checker's answer, for test failures and logs. */
export function formatCheckResult(result: CheckResult, options: FormatOptions = {}): string {
  const prefixShownMax = options.prefixShownMax ?? 8;
  const { stats } = result;
  const noun = result.checker === 'linearizability' ? 'operation' : 'transaction';
  const tally = `${plural(stats.operations, noun)} on ${plural(stats.keys, 'key')}`;
  if (result.valid === true) return `${result.checker}: valid (${tally})`;
  if (result.valid === 'unknown') return `${result.checker}: unknown (${tally}): ${result.reason}`;
  const lines = [`${result.checker}: INVALID (${tally})`, `  ${result.message}`];
  result.anomalies.forEach((anomaly, i) => {
    lines.push('');
    if (anomaly.type === 'nonlinearizable') lines.push(...formatLinearizability(anomaly, i, prefixShownMax));
    else lines.push(...formatSerializability(anomaly, i));
  });
  return lines.join('\n');
}

function formatOp(op: OpSummary): string {
  const status = op.status === 'unknown' ? ' (unknown outcome)' : '';
  return `${op.description} by process ${op.process} [${formatNs(op.invokeNs)}, ${formatNs(op.completeNs)}]${status} (id ${op.id})`;
}

function formatLinearizability(anomaly: LinearizabilityAnomaly, index: number, prefixShownMax: number): string[] {
  const lines = [`#${index + 1} key ${JSON.stringify(anomaly.key)}: not linearizable`];
  const shown = anomaly.prefix.slice(-prefixShownMax);
  const hidden = anomaly.prefix.length - shown.length;
  lines.push(`  longest linearizable prefix (${anomaly.prefix.length} operations${hidden > 0 ? `, last ${shown.length} shown` : ''}):`);
  if (hidden > 0) lines.push(`    ... ${hidden} earlier operations`);
  for (const op of shown) lines.push(`    ${formatOp(op)}`);
  lines.push(`  state after the prefix: ${anomaly.stateAfterPrefix}`);
  lines.push('  could not be placed next:');
  for (const { op, why } of anomaly.unplaced) lines.push(`    ${formatOp(op)}: ${why}`);
  return lines;
}

function formatTxn(txn: TxnSummary): string {
  const notes = [`client ${txn.process}`];
  if (txn.status !== 'ok') notes.push(txn.status);
  if (txn.commitTs !== null) notes.push(`commitTs ${txn.commitTs}`);
  return `T${txn.id} (${notes.join(', ')}) ${txn.description}`;
}

/** `-wr(x=5)->`, `-ww(x 5→7)->`, `-rw(x 5→7)->`, `-rt->`. */
export function formatEdge(edge: DependencyEdge): string {
  switch (edge.type) {
    case 'wr':
      return `-wr(${edge.key}=${formatValue(edge.fromValue)})->`;
    case 'ww':
    case 'rw':
      return `-${edge.type}(${edge.key} ${formatValue(edge.fromValue)}→${formatValue(edge.toValue)})->`;
    case 'rt':
      return '-rt->';
  }
}

function formatSerializability(anomaly: SerializabilityAnomaly, index: number): string[] {
  const lines = [`#${index + 1} ${anomaly.type}: ${anomaly.explanation}`];
  if (anomaly.edges.length === 0) {
    for (const txn of anomaly.txns) lines.push(`  ${formatTxn(txn)}`);
    return lines;
  }
  if (anomaly.type === 'commit-ts-order') {
    lines.push(`  ${formatTxn(anomaly.txns[0]!)}  ${formatEdge(anomaly.edges[0]!)}`, `  ${formatTxn(anomaly.txns[1]!)}`);
    return lines;
  }
  anomaly.txns.forEach((txn, i) => lines.push(`  ${formatTxn(txn)}  ${formatEdge(anomaly.edges[i]!)}`));
  lines.push(`  T${anomaly.txns[0]!.id}`);
  return lines;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
