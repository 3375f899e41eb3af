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
