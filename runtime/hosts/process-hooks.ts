import type { Host } from './host.js';

/**
 * Per-host process behaviour, provided by shims/process/process-host.ts: what a host's crash, a
 * signal and an exit mean for its `process` object. The runtime asks through here and never
 * touches `process` itself.
 */
export interface HostProcessHooks {
  /**
   * Gives a host's error to what Node would (the node:domain it was thrown in, its own
   * 'uncaughtException' / 'unhandledRejection' listeners): true if handled, or `{ fatal }`, the
   * error the host dies of instead (a domain's error handler threw).
   */
  handleUncaught(host: Host, error: unknown, origin: 'uncaughtException' | 'unhandledRejection'): boolean | { fatal: unknown };
  /** Delivers a signal (SIGTERM for a graceful stop) to a host. */
  signal(host: Host, signal: string): void;
  exitCode(host: Host): number | undefined;
  /** True for the private exception process.exit() throws to unwind a host's code. */
  isExit(error: unknown): boolean;
}

let hostProcessHooks: HostProcessHooks | undefined;

export function setHostProcessHooks(value: HostProcessHooks): void {
  hostProcessHooks = value;
}

export function getHostProcessHooks(): HostProcessHooks | undefined {
  return hostProcessHooks;
}
