/**
 * Built-ins captured when dst-runtime is first loaded, before any shim can replace them. The
 * runtime drives the simulation with these; it never reads the patched versions.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { genuineDate, genuineDateTimeFormat } from './fake-timers.js';

/** Node's Date; a stand-in with no Date behind it is kept, and the Date shim refuses to run on it. */
const NodeDate = genuineDate(globalThis.Date) ?? globalThis.Date;

export const originals = {
  setImmediate: globalThis.setImmediate,
  clearImmediate: globalThis.clearImmediate,
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setInterval: globalThis.setInterval,
  clearInterval: globalThis.clearInterval,
  dateNow: NodeDate.now,
  Date: NodeDate,
  /** Node's Intl.DateTimeFormat, for the Date shim; undefined if a stand-in hides it. */
  DateTimeFormat: genuineDateTimeFormat(globalThis.Intl),
  mathRandom: Math.random,
  AsyncLocalStorage,
  hrtime: process.hrtime,
  hrtimeBigint: process.hrtime.bigint,
  performanceNow: performance.now.bind(performance),
  /** Node's process object: a program may replace the global (`globalThis.process = {}`). */
  process,
  nextTick: process.nextTick,
  /** Node's runNextTicks (kept on process under its old name): drains the ticks and microtasks. */
  tickCallback: (process as unknown as { _tickCallback: () => void })._tickCallback,
} as const;
