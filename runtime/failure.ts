import { formatTimeNs } from './clock/units.js';
import { userStack } from './trace/site.js';

/**
 * How a run failed. 'aborted': stopped from outside before it ended (its AbortSignal,
 * sim.abort(), wallClockLimitMs), so it says nothing about the system under test.
 */
export type FailureKind = 'crash' | 'unhandled-rejection' | 'limit' | 'idle' | 'safety' | 'liveness' | 'nondeterminism' | 'escape' | 'aborted';

/** Everything needed to understand and replay a failed run. */
export interface FailureReport {
  kind: FailureKind;
  /** One line: what happened. */
  summary: string;
  error: unknown;
  seed: string;
  timeNs: number;
  event: number;
  host: string | undefined;
  incarnation: number | undefined;
  /** The command that replays this run exactly. */
  replay: string;
  /** The fault mix the run ran with (DST_FAULTS), when faults were on. */
  faults?: string;
  /**
   * The run's fingerprint up to the failure (a hash of every event run): two failing runs are
   * the same run exactly when these are equal.
   */
  fingerprint?: string;
  /** Where the failure was raised in the program (file:line:col), when known. */
  site?: string;
}

/**
 * An error the runtime raises about the run itself (a limit, an escape): its stack would only
 * show dst-runtime's internals, so reports print its message alone.
 */
export function runtimeError(message: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}`;
  return error;
}

/** Formats a failure as the block every dst failure prints (see docs/architecture.md). */
export function formatFailure(report: FailureReport, options: { withError?: boolean } = {}): string {
  const lines = [`dst: ${report.summary}`];
  if (options.withError !== false && report.error !== undefined) {
    const text = report.error instanceof Error ? userStack(report.error.stack ?? String(report.error)) : String(report.error);
    for (const line of text.split('\n')) lines.push(`    ${line}`);
  }
  const where =
    report.host === undefined ? '' : `   host ${report.host}${report.incarnation !== undefined ? ` (boot ${report.incarnation})` : ''}`;
  lines.push(`  seed     ${report.seed}`);
  lines.push(`  time     ${formatTimeNs(report.timeNs)} (virtual)   event ${report.event}${where}`);
  if (report.faults !== undefined) lines.push(`  faults   ${report.faults}`);
  lines.push(`  replay   ${report.replay}`);
  lines.push(`  trace    add DST_TRACE=trace.jsonl to record every event`);
  return lines.join('\n');
}

/**
 * Thrown by Sim.run() when the simulated system failed. Carries the full report. A run stopped
 * from outside (report.kind 'aborted') is named 'AbortError', as code that tells a cancelled
 * operation from a failed one checks `error.name === 'AbortError'`; its `cause` is the abort
 * reason.
 */
export class SimulationError extends Error {
  readonly code = 'DST_SIMULATION_FAILED';
  readonly report: FailureReport;
  constructor(report: FailureReport) {
    super(formatFailure(report));
    this.name = report.kind === 'aborted' ? 'AbortError' : 'SimulationError';
    this.report = report;
    if (report.error !== undefined) (this as { cause?: unknown }).cause = report.error;
  }
}
