import type { Host } from './host.js';

/**
 * Per-host process behaviour, provided by shims/process/process-host.ts: what a host's crash, a
 * signal and an exit mean for its `process` object. The runtime asks through here and never
 * touches `process` itself.
 */
export interface HostProcessHooks {
  /** Runs a host's own 'uncaughtException' / 'unhandledRejection' listeners; true if handled. */
  handleUncaught(host: Host, error: unknown, origin: 'uncaughtException' | 'unhandledRejection'): boolean;
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
