/**
 * Errors the runtime raises about itself (as opposed to Node-compatible errors the shims raise
 * on behalf of Node APIs). Messages follow "Failed to <verb> <object>: <reason>".
 */

/** Bad input from the user: an invalid seed, option or environment variable. */
export class UsageError extends Error {
  readonly code = 'DST_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A bug in dst-runtime itself: an internal assertion that did not hold. */
export class AssertionFailure extends Error {
  readonly code = 'DST_ASSERTION';
  constructor(message: string) {
    super(`dst-runtime internal assertion failed: ${message} (this is a bug in dst-runtime)`);
    this.name = 'AssertionFailure';
  }
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionFailure(message);
}

/** An API that the simulation cannot provide; names the API and what to do instead. */
export class UnsupportedError extends Error {
  readonly code = 'DST_UNSUPPORTED';
  constructor(api: string, instead: string) {
    super(`${api} is not supported inside a dst-runtime simulation: ${instead}`);
    this.name = 'UnsupportedError';
  }
}
