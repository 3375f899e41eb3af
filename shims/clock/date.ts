/**
 * Date on the host's clock: inside a simulated host, `Date.now()`, `new Date()` and `Date()`
 * read `host.dateNowMs()` (epoch + skew + elapsed virtual time, integer ms), so time stands still
 * during synchronous code and moves only when virtual time moves. Outside every host (the test
 * runner in library mode) each of them is the native one.
 *
 * globalThis.Date becomes a Proxy over the native Date rather than a subclass or a wrapper
 * function, because a Proxy forwards everything we do not trap: `Date.prototype` is the native
 * prototype (dates made before install keep working and pass `instanceof`), `Date.parse`,
 * `Date.UTC`, `Date.name`, `Date.length` and any custom static property are the native ones, and
 * `class X extends Date` gets the Proxy's [[Construct]] through `super()`.
 *
 * `Date.now` is patched on the native Date itself (through the PatchSet), not answered by a get
 * trap: that keeps `Date.now === Date.now`, keeps the property's descriptor consistent with what
 * a read returns, and a program that assigns `Date.now = stub` inside a host sees its stub and
 * cannot leak it past uninstall (the PatchSet restores the slot). It also gives virtual time to
 * code that captured the native Date before install and calls `.now()` on it.
 *
 * `Intl.DateTimeFormat`'s `format()` and `formatToParts()` called without a date format "now",
 * which the spec reads from the intrinsic Date.now (V8: the real clock): inside a host they
 * format the host's virtual time.
 *
 * Known limits, both from V8: `Function.prototype.toString.call(Date)` on any Proxy gives
 * "function () { [native code] }" (without the name; `String(Date)` and `Date.toString()` are
 * mirrored exactly by the get trap), and a class that extended the native Date BEFORE install
 * calls the native constructor from `super()`, so it reads the real clock.
 */
import { originals } from '../../runtime/originals.js';
import { currentHost } from '../context.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

const NativeDate = originals.Date;
const nativeNow = originals.dateNow;
/** `Date()` returns ToDateString(now): exactly what Date.prototype.toString prints. */
const nativeDateToString = NativeDate.prototype.toString;
const functionToString = Function.prototype.toString;
/** "function Date() { [native code] }" */
const nativeDateSource = Reflect.apply(functionToString, NativeDate, []) as string;

// Method shorthand: like the built-ins, these are not constructors and have no `prototype`.
const statics = {
  now(): number {
    const host = currentHost();
    return host === undefined ? nativeNow() : host.dateNowMs();
  },
  /** What `Date.toString` resolves to while the Proxy is installed. */
  toString(this: unknown): string {
    return this === SimDate ? nativeDateSource : (Reflect.apply(functionToString, this, []) as string);
  },
};

const handler: ProxyHandler<DateConstructor> = {
  // `new Date()` and `super()` of a class extending the simulated Date. Only the zero-argument
  // form reads the clock; every other form is the native constructor's business.
  construct(target, args, newTarget) {
    const host = args.length === 0 ? currentHost() : undefined;
    if (newTarget === SimDate) {
      return host === undefined ? Reflect.construct(target, args) : new NativeDate(host.dateNowMs());
    }
    // A subclass: the object must come from newTarget.prototype, as with the native Date.
    return Reflect.construct(target, host === undefined ? args : [host.dateNowMs()], newTarget);
  },
  // `Date(...)` without new ignores its arguments and returns the current time as a string.
  apply(target, thisArg, args) {
    const host = currentHost();
    if (host === undefined) return Reflect.apply(target, thisArg, args);
    return Reflect.apply(nativeDateToString, new NativeDate(host.dateNowMs()), []);
  },
  get(target, key, receiver) {
    const value: unknown = Reflect.get(target, key, receiver);
    // Date.toString is the inherited Function.prototype.toString, which prints any Proxy
    // without its name; answer with the native Date's text instead.
    return key === 'toString' && value === functionToString ? statics.toString : value;
  },
};

/** The simulated Date: one Proxy for the life of the process, so classes extending it keep working. */
export const SimDate: DateConstructor = new Proxy(NativeDate, handler);

// ---- Intl.DateTimeFormat: format() and formatToParts() without a date mean "now" -------------

// The spec has them read %Date.now% (the intrinsic, which V8 answers from the real clock), not
// the global Date.now: inside a host they get the host's virtual time instead.
const dtfPrototype = Intl.DateTimeFormat.prototype;
const nativeFormatGetter = Object.getOwnPropertyDescriptor(dtfPrototype, 'format')!.get!;
const nativeFormatToParts = dtfPrototype.formatToParts;
type FormatFunction = (date?: Date | number) => string;
/** Each DateTimeFormat's simulated bound format: one per object, like the spec's [[BoundFormat]]. */
const boundFormats = new WeakMap<object, FormatFunction>();

/** `date`, or the host's current time when it is undefined inside a host. */
function dateOrNow(date: unknown): unknown {
  if (date !== undefined) return date;
  const host = currentHost();
  return host === undefined ? undefined : host.dateNowMs();
}

const formatAccessor = Object.getOwnPropertyDescriptor(
  {
    get format(): FormatFunction {
      // Throws Node's own TypeError for a receiver that is not a DateTimeFormat.
      const native = Reflect.apply(nativeFormatGetter, this, []) as FormatFunction;
      let bound = boundFormats.get(this as object);
      if (bound === undefined) {
        // Like the native one: anonymous, length 1, not a constructor.
        bound = [(date?: Date | number): string => native(dateOrNow(date) as Date | number | undefined)][0]!;
        boundFormats.set(this as object, bound);
      }
      return bound;
    },
  },
  'format',
)!.get!;

const intlMethods = {
  formatToParts(this: Intl.DateTimeFormat, date?: Date | number): Intl.DateTimeFormatPart[] {
    return Reflect.apply(nativeFormatToParts, this, [dateOrNow(date)]) as Intl.DateTimeFormatPart[];
  },
};

export const dateShim: Shim = {
  name: 'date',
  install(patches: PatchSet) {
    patches.replace(NativeDate, 'now', statics.now);
    // `new Date().constructor === Date` while installed; dates made earlier share the prototype.
    patches.replace(NativeDate.prototype, 'constructor', SimDate);
    patches.replace(globalThis, 'Date', SimDate);
    patches.defineGetter(dtfPrototype, 'format', formatAccessor, false);
    patches.replace(dtfPrototype, 'formatToParts', intlMethods.formatToParts);
  },
};
