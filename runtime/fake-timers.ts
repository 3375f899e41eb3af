/**
 * A test's fake timers, seen through. @sinonjs/fake-timers (sinon's install(), Jest's modern
 * jest.useFakeTimers(), Vitest's vi.useFakeTimers()) replaces, on the global it is given (Node's,
 * or a Jest test file's vm context with its copy of process), the timer functions, Date,
 * performance, process.nextTick and process.hrtime, queueMicrotask and Intl; on Node's own global
 * also node:timers' and node:timers/promises' exports and perf_hooks' performance.now. Installed
 * before dst-runtime loads, what runtime/originals.ts captures would be those fakes, and the Date
 * and Intl of a realm the Date shim simulates (shims/clock/date.ts) could be the fakes' too. This
 * module finds the built-in behind a fake, by what the fakes are made of:
 *
 * - A fake function (and the fake Date, Intl and performance) has an own `clock` property, and the
 *   clock keeps the value the fake replaced as `_<name>` (hijackMethod in @sinonjs/fake-timers
 *   11 to 15, and in the copy Vitest bundles).
 * - A fake Date extends the realm's Date (sinon's ClockDate, behind a Proxy that does not trap
 *   getPrototypeOf; Vitest's MockDate, which vi.setSystemTime() puts in place without fake
 *   timers), and a fake Intl's DateTimeFormat.prototype inherits from the realm's: both are found
 *   by walking up from the fake, whoever made it.
 *
 * The runtime only reads here. During a run each slot the fakes replace resolves to the simulation
 * and afterwards to the test's fake again: that is done by the shims that own each slot (timers,
 * clock/date, clock/performance, clock/process-clock, process/process-host); docs/guide.md,
 * "Fake timers".
 */

const functionToString = Function.prototype.toString;

/** What Function.prototype.toString prints for a realm's own Date, and for nothing else. */
const NATIVE_DATE_SOURCE = 'function Date() { [native code] }';

/** How far up a fake is looked through: install() refuses a second fake on a global, and a subclass is one step. */
const FAKE_DEPTH_MAX = 4;

/** The value of `target`'s own data property `key`, without running a getter; undefined otherwise. */
function ownData(target: unknown, key: string): { value: unknown } | undefined {
  if ((typeof target !== 'object' && typeof target !== 'function') || target === null) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  return descriptor !== undefined && 'value' in descriptor ? { value: descriptor.value } : undefined;
}

/**
 * `value`, or, if it is a @sinonjs/fake-timers fake of the API `name` ('setImmediate',
 * 'nextTick', 'queueMicrotask', ...), the value it replaced (through a fake of a fake too).
 */
export function behindFake<T>(value: T, name: string): T {
  let current: unknown = value;
  for (let depth = 0; depth < FAKE_DEPTH_MAX; depth++) {
    const clock = ownData(current, 'clock');
    const replaced = clock === undefined ? undefined : ownData(clock.value, `_${name}`);
    if (replaced === undefined) break;
    current = replaced.value;
  }
  return current as T;
}

/**
 * The clock of the fake `setTimeout` of `global` if it moves itself (Jest's `useFakeTimers({
 * advanceTimers: true })`, Vitest's and sinon's `shouldAdvanceTime`: a real interval calls
 * `clock.tick` every few milliseconds), or undefined. The slot is read without running a getter
 * (a Jest context's copies Node's function when read).
 */
export function selfAdvancingClock(global: object): { tick: unknown } | undefined {
  const clock = ownData(ownData(global, 'setTimeout')?.value, 'clock')?.value as { attachedInterval?: unknown; tick?: unknown } | undefined;
  if (clock === undefined || clock === null || typeof clock !== 'object') return undefined;
  if (clock.attachedInterval === undefined || typeof ownData(clock, 'tick')?.value !== 'function') return undefined;
  return clock as { tick: unknown };
}

/** Whether `value` is a realm's own Date constructor (not a Proxy, a bound copy or a subclass of it). */
function isNativeDate(value: unknown): value is DateConstructor {
  return typeof value === 'function' && Reflect.apply(functionToString, value, []) === NATIVE_DATE_SOURCE;
}

/**
 * The realm's own Date behind `value` (a realm's global Date): `value` itself, or the Date a fake
 * Date extends; undefined if there is none (a stand-in that is not a Date class).
 */
export function genuineDate(value: unknown): DateConstructor | undefined {
  let current = value;
  for (let depth = 0; depth <= FAKE_DEPTH_MAX && typeof current === 'function'; depth++) {
    if (isNativeDate(current)) return current;
    current = Object.getPrototypeOf(current);
  }
  return undefined;
}

/**
 * The realm's own Intl.DateTimeFormat behind `intl` (a realm's global Intl, or a fake of it): the
 * constructor whose prototype has the built-in `format` accessor, found from the prototype of
 * `intl.DateTimeFormat` up; undefined if there is none.
 */
export function genuineDateTimeFormat(intl: unknown): typeof Intl.DateTimeFormat | undefined {
  if ((typeof intl !== 'object' && typeof intl !== 'function') || intl === null) return undefined;
  const DateTimeFormat = (intl as { DateTimeFormat?: unknown }).DateTimeFormat;
  if (typeof DateTimeFormat !== 'function') return undefined;
  let prototype: unknown = DateTimeFormat.prototype;
  for (let depth = 0; depth <= FAKE_DEPTH_MAX && typeof prototype === 'object' && prototype !== null; depth++) {
    const format = Object.getOwnPropertyDescriptor(prototype, 'format');
    if (typeof format?.get === 'function' && typeof ownData(prototype, 'formatToParts')?.value === 'function') {
      const constructor = ownData(prototype, 'constructor')?.value as { prototype?: unknown } | undefined;
      return typeof constructor === 'function' && constructor.prototype === prototype ? (constructor as typeof Intl.DateTimeFormat) : undefined;
    }
    prototype = Object.getPrototypeOf(prototype);
  }
  return undefined;
}
