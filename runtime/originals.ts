/**
 * Built-ins captured when dst-runtime is first loaded, before any shim can replace them. The
 * runtime drives the simulation with these; it never reads the patched versions. A test's fake
 * timers installed before dst-runtime loaded are seen through (runtime/fake-timers.ts): the
 * driver's setImmediate must be Node's, whatever the test faked.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { behindFake, genuineDate, genuineDateTimeFormat } from './fake-timers.js';

/** Node's Date; a stand-in with no Date behind it is kept, and the Date shim refuses to run on it. */
const NodeDate = genuineDate(globalThis.Date) ?? globalThis.Date;
const hrtime = behindFake(process.hrtime, 'hrtime');

export const originals = {
  setImmediate: behindFake(globalThis.setImmediate, 'setImmediate'),
  clearImmediate: behindFake(globalThis.clearImmediate, 'clearImmediate'),
  setTimeout: behindFake(globalThis.setTimeout, 'setTimeout'),
  clearTimeout: behindFake(globalThis.clearTimeout, 'clearTimeout'),
  setInterval: behindFake(globalThis.setInterval, 'setInterval'),
  clearInterval: behindFake(globalThis.clearInterval, 'clearInterval'),
  dateNow: NodeDate.now,
  Date: NodeDate,
  /** Node's Intl.DateTimeFormat, for the Date shim; undefined if a stand-in hides it. */
  DateTimeFormat: genuineDateTimeFormat(globalThis.Intl),
  mathRandom: Math.random,
  AsyncLocalStorage,
  hrtime,
  hrtimeBigint: hrtime.bigint,
  /** Node's process object: a program may replace the global (`globalThis.process = {}`). */
  process,
  nextTick: behindFake(process.nextTick, 'nextTick'),
  queueMicrotask: behindFake(globalThis.queueMicrotask, 'queueMicrotask'),
  /** Node's runNextTicks (kept on process under its old name): drains the ticks and microtasks. */
  tickCallback: (process as unknown as { _tickCallback: () => void })._tickCallback,
} as const;
