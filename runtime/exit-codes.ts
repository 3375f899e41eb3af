import type { FailureKind } from './failure.js';

/**
 * Process exit codes used by register mode and the `dst` CLI. They are distinct so a script can
 * tell a crashed program from a misuse of the tool. 1 stays Node's own code for an uncaught
 * exception or unhandled rejection, so a program under the simulator exits as it would plainly.
 */
export const ExitCode = {
  ok: 0,
  /** An uncaught exception or unhandled rejection in a host (Node's own code). */
  hostCrash: 1,
  /** Invalid DST_SEED, option or argument. (EX_USAGE from sysexits.h) */
  usage: 64,
  /** A run limit tripped: events per run or virtual time per run. */
  limit: 70,
  /** A safety invariant was violated. */
  safety: 71,
  /** A liveness check failed at the end of the run. */
  liveness: 72,
  /** The same seed produced two different executions. */
  nondeterminism: 73,
  /** Strict mode: real asynchronous work (a real timer, socket, ...) escaped the simulation. */
  escape: 74,
  /**
   * Register mode: the program went idle for ever. Nothing is scheduled and no real work is
   * pending, yet ref'd simulated handles (a listening server, a socket waiting for data no
   * peer will send, a write blocked on a peer that never reads) keep it alive: real Node would
   * wait for ever. The report names each handle and where it was created. DST_IDLE=exit
   * exits with the program's own code instead (for programs meant to end that way).
   */
  idle: 75,
} as const;

export type ExitCodeName = keyof typeof ExitCode;

/**
 * The exit code of each failure kind: the one table register mode and the `dst` CLI both read,
 * so a program fails with the same code whichever of them ran it. A Record over FailureKind, so
 * a new kind cannot be left out. Its kinds come gravest first: `dst explore` exits with the code
 * of the gravest kind among its failing seeds, and a code shared by two kinds (1) reads back as
 * the first of them (see failureKindOfExitCode).
 */
export const FAILURE_EXIT_CODES: Readonly<Record<FailureKind, number>> = Object.freeze({
  nondeterminism: ExitCode.nondeterminism,
  safety: ExitCode.safety,
  liveness: ExitCode.liveness,
  limit: ExitCode.limit,
  escape: ExitCode.escape,
  idle: ExitCode.idle,
  crash: ExitCode.hostCrash,
  'unhandled-rejection': ExitCode.hostCrash,
});

/**
 * The exit code of a run that failed this way (see FAILURE_EXIT_CODES); undefined for a string
 * that is no failure kind (a caller in plain JavaScript).
 */
export function exitCodeOfFailure(kind: FailureKind): number | undefined {
  return Object.hasOwn(FAILURE_EXIT_CODES, kind) ? FAILURE_EXIT_CODES[kind] : undefined;
}

/**
 * The failure kind an exit code stands for (the inverse of exitCodeOfFailure; 1 reads as
 * 'crash'), or undefined for a code no failure kind uses (a program's own process.exit(n)).
 */
export function failureKindOfExitCode(code: number): FailureKind | undefined {
  for (const [kind, kindCode] of Object.entries(FAILURE_EXIT_CODES)) {
    if (kindCode === code) return kind as FailureKind;
  }
  return undefined;
}
