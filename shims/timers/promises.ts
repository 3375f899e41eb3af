/**
 * node:timers/promises on virtual time: setTimeout, setImmediate, the setInterval async
 * iterator and scheduler.wait/yield, with AbortSignal support and Node's validation (errors are
 * returned as rejected promises, as Node does). Also the util.promisify.custom of the simulated
 * setTimeout/setImmediate, and AbortSignal.timeout (Node's own captures real timers when its
 * internal module loads and clears them from a FinalizationRegistry, so it is replaced whole).
 */
import timersPromises from 'node:timers/promises';
import { currentHost } from '../context.js';
import { nodeError, validateAbortSignal, validateBoolean, validateNumber, validateObject, validateUint32 } from '../node-errors.js';
import { type PatchSet, privateSymbolFinder } from '../registry.js';
import type { Shim } from '../shim.js';
import { createImmediate, createTimeout, type Immediate, setPromisifyCustom, simulatedTimers, type Timeout } from './timers.js';

const real = {
  setTimeout: timersPromises.setTimeout,
  setImmediate: timersPromises.setImmediate,
  setInterval: timersPromises.setInterval,
  abortSignalTimeout: AbortSignal.timeout,
};

/** Node's AbortError (code ABORT_ERR), as thrown by timers/promises on abort. */
export class AbortError extends Error {
  readonly code = 'ABORT_ERR';
  constructor(message = 'The operation was aborted', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AbortError';
  }
}

/** Promise.withResolvers, which Node 20 lacks. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (reason: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface TimerOptions {
  signal?: AbortSignal;
  ref?: boolean;
}

function validateOptions(options: unknown): TimerOptions {
  validateObject(options, 'options');
  const o = options as TimerOptions;
  if (typeof o.signal !== 'undefined') validateAbortSignal(o.signal, 'options.signal');
  if (typeof o.ref !== 'undefined') validateBoolean(o.ref, 'options.ref');
  return o;
}

/** Settles `promise` like Node: on abort, clear the handle and reject with an AbortError. */
function withAbort<T>(
  promise: Promise<T>,
  reject: (reason: unknown) => void,
  signal: AbortSignal | undefined,
  handle: Timeout | Immediate,
  clear: (handle: Timeout | Immediate) => void,
): Promise<T> {
  if (signal === undefined) return promise;
  const onAbort = () => {
    if (!handle._destroyed) {
      clear(handle);
      reject(new AbortError(undefined, { cause: signal.reason }));
    }
  };
  signal.addEventListener('abort', onAbort);
  return promise.finally(() => signal.removeEventListener('abort', onAbort));
}

function setTimeoutPromise<T = void>(after?: number, value?: T, options: TimerOptions = {}): Promise<T> {
  const host = currentHost();
  if (host === undefined) return real.setTimeout(after, value, options);
  let o: TimerOptions;
  try {
    if (typeof after !== 'undefined') validateNumber(after, 'delay');
    o = validateOptions(options);
  } catch (error) {
    return Promise.reject(error);
  }
  const { signal, ref = true } = o;
  if (signal?.aborted) return Promise.reject(new AbortError(undefined, { cause: signal.reason }));
  const { promise, resolve, reject } = deferred<T>();
  const timeout = createTimeout(host, resolve, after, [value], false, ref);
  return withAbort(promise, reject, signal, timeout, simulatedTimers.clearTimeout);
}

function setImmediatePromise<T = void>(value?: T, options: TimerOptions = {}): Promise<T> {
  const host = currentHost();
  if (host === undefined) return real.setImmediate(value, options);
  let o: TimerOptions;
  try {
    o = validateOptions(options);
  } catch (error) {
    return Promise.reject(error);
  }
  const { signal, ref = true } = o;
  if (signal?.aborted) return Promise.reject(new AbortError(undefined, { cause: signal.reason }));
  const { promise, resolve, reject } = deferred<T>();
  const immediate = createImmediate(host, resolve, [value]);
  if (!ref) immediate.unref();
  return withAbort(promise, reject, signal, immediate, simulatedTimers.clearImmediate);
}

async function* simIntervalIterator<T>(after: number | undefined, value: T, options: TimerOptions): AsyncGenerator<T> {
  if (typeof after !== 'undefined') validateNumber(after, 'delay');
  const { signal, ref = true } = validateOptions(options);
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
  const host = currentHost()!;
  let onCancel: (() => void) | undefined;
  let interval: Timeout | undefined;
  try {
    let notYielded = 0;
    let callback: ((value?: unknown) => void) | undefined;
    interval = createTimeout(
      host,
      () => {
        notYielded++;
        if (callback) {
          callback();
          callback = undefined;
        }
      },
      after,
      undefined,
      true,
      ref,
    );
    if (signal) {
      onCancel = () => {
        simulatedTimers.clearInterval(interval);
        if (callback) {
          callback(Promise.reject(new AbortError(undefined, { cause: signal.reason })));
          callback = undefined;
        }
      };
      signal.addEventListener('abort', onCancel, { once: true });
    }
    while (!signal?.aborted) {
      if (notYielded === 0) await new Promise((resolve) => (callback = resolve));
      for (; notYielded > 0; notYielded--) yield value;
    }
    throw new AbortError(undefined, { cause: signal?.reason });
  } finally {
    simulatedTimers.clearInterval(interval);
    if (onCancel !== undefined) signal?.removeEventListener('abort', onCancel);
  }
}

function setIntervalPromise<T = void>(after?: number, value?: T, options: TimerOptions = {}): AsyncGenerator<T> {
  // The host is decided when the iterator is created, like the real generator's first call.
  if (currentHost() === undefined) return real.setInterval(after, value, options) as AsyncGenerator<T>;
  return simIntervalIterator(after, value as T, options);
}

Object.defineProperty(setTimeoutPromise, 'name', { value: 'setTimeout' });
Object.defineProperty(setImmediatePromise, 'name', { value: 'setImmediate' });
Object.defineProperty(setIntervalPromise, 'name', { value: 'setInterval' });

const kScheduler = Symbol('kScheduler');

function invalidThis(type: string): Error {
  return nodeError(TypeError, 'ERR_INVALID_THIS', `Value of "this" must be of type ${type}`);
}

// `this[kScheduler]` without optional chaining: an unbound call throws Node's own TypeError
// ("Cannot read properties of undefined (reading 'Symbol(kScheduler)')").
function schedulerWait(this: { [kScheduler]?: boolean }, delay: number, options?: TimerOptions): Promise<void> {
  if (!this[kScheduler]) throw invalidThis('Scheduler');
  return setTimeoutPromise(delay, undefined, options);
}
Object.defineProperty(schedulerWait, 'name', { value: 'wait' });

function schedulerYield(this: { [kScheduler]?: boolean }): Promise<void> {
  if (!this[kScheduler]) throw invalidThis('Scheduler');
  return setImmediatePromise();
}
Object.defineProperty(schedulerYield, 'name', { value: 'yield' });

/**
 * The private symbol Node marks its timeout signals with (kTimeout in internal/abort_controller):
 * with it a signal stays alive while it has an 'abort' listener, and only then (Node's
 * kNewListener/kRemoveListener keep it in gcPersistentSignals). Found once, on a signal of
 * Node's own made with the longest delay a timer takes (its real timer is unref'd and is cleared
 * when that signal is collected).
 */
const timeoutMark = privateSymbolFinder('kTimeout', () => Reflect.apply(real.abortSignalTimeout, AbortSignal, [0x7fffffff]) as AbortSignal);

/** The controller of each simulated timeout signal, held no longer than its signal. */
const timeoutControllers = new WeakMap<AbortSignal, AbortController>();

/**
 * AbortSignal.timeout(delay) on virtual time: an unref'd timer aborts with a TimeoutError. As in
 * Node, the timer holds the signal weakly: a signal nobody listens to can be collected before
 * its timer fires (Node's test-abortcontroller); the timer then fires and does nothing.
 */
function abortSignalTimeout(this: unknown, delay: unknown): AbortSignal {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(real.abortSignalTimeout, this, [delay]);
  validateUint32(delay, 'delay', false, abortSignalTimeout);
  const controller = new AbortController();
  const signal = controller.signal;
  const mark = timeoutMark(signal);
  if (mark !== undefined) (signal as unknown as Record<symbol, unknown>)[mark] = true;
  timeoutControllers.set(signal, controller);
  const weak = new WeakRef(signal);
  createTimeout(
    host,
    () => {
      const target = weak.deref();
      if (target === undefined) return;
      timeoutControllers.get(target)?.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    },
    delay,
    undefined,
    false,
    false,
  );
  return signal;
}
Object.defineProperty(abortSignalTimeout, 'name', { value: 'timeout' });
Object.defineProperty(abortSignalTimeout, 'length', { value: real.abortSignalTimeout.length });

setPromisifyCustom(setTimeoutPromise, setImmediatePromise);

export const simulatedTimersPromises = {
  setTimeout: setTimeoutPromise,
  setImmediate: setImmediatePromise,
  setInterval: setIntervalPromise,
};


export const timersPromisesShim: Shim = {
  name: 'timers-promises',
  install(patches: PatchSet) {
    const mod = timersPromises as unknown as Record<string, unknown>;
    patches.replace(mod, 'setTimeout', setTimeoutPromise);
    patches.replace(mod, 'setImmediate', setImmediatePromise);
    patches.replace(mod, 'setInterval', setIntervalPromise);
    // scheduler is an object with prototype methods: shadow them on the instance, so references
    // taken earlier (timersPromises.scheduler) reach the simulation too.
    const scheduler = (mod.scheduler ?? undefined) as Record<PropertyKey, unknown> | undefined;
    if (scheduler !== undefined) {
      patches.replace(scheduler, kScheduler, true);
      patches.replace(scheduler, 'wait', schedulerWait);
      patches.replace(scheduler, 'yield', schedulerYield);
    }
    patches.replace(AbortSignal, 'timeout', abortSignalTimeout as typeof AbortSignal.timeout);
  },
};
