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
 * Every realm has its own Date and Intl (a Jest test file's vm context too): each gets its own
 * Proxy over its own native Date, so `new Date() instanceof Date` and `class X extends Date`
 * hold in that realm, made once per realm for the life of the process.
 *
 * A test's fake timers (runtime/fake-timers.ts) may have replaced a realm's Date and Intl before
 * its first run: the Proxy is made over the realm's own Date behind the fake, and the fake Intl's
 * DateTimeFormat (a plain wrapper on the fake clock) is the realm's own while installed. A test
 * file's context whose Intl hides its own DateTimeFormat entirely gets Node's, simulated for
 * Node's realm. A Date stand-in with no Date behind it (not a class extending it) cannot be seen
 * through: the run is refused with a UsageError that says what to do.
 *
 * Known limits, both from V8: `Function.prototype.toString.call(Date)` on any Proxy gives
 * "function () { [native code] }" (without the name; `String(Date)` and `Date.toString()` are
 * mirrored exactly by the get trap), and a class that extended the native Date BEFORE install
 * calls the native constructor from `super()`, so it reads the real clock.
 */
import { UsageError } from '../../runtime/errors.js';
import { genuineDate, genuineDateTimeFormat } from '../../runtime/fake-timers.js';
import { originals } from '../../runtime/originals.js';
import { currentHost } from '../context.js';
import { readGlobal } from '../realms.js';
import type { PatchSet } from '../registry.js';
import type { Realm, Shim } from '../shim.js';

const nativeNow = originals.dateNow;
const functionToString = Function.prototype.toString;

/**
 * Date.now inside a host: the host's clock; outside, the real one (every realm's reads the same
 * clock). Method shorthand: like the built-in, not a constructor and no `prototype`.
 */
const { now } = {
  now(): number {
    const host = currentHost();
    return host === undefined ? nativeNow() : host.dateNowMs();
  },
};

/** A realm's simulated Date and Intl.DateTimeFormat methods, over that realm's natives. */
interface RealmDate {
  NativeDate: DateConstructor;
  SimDate: DateConstructor;
  /** The realm's own Intl.DateTimeFormat, whose prototype the simulated methods go on, or Node's. */
  DateTimeFormat: typeof Intl.DateTimeFormat;
  /** Whether DateTimeFormat is Node's realm's, whose prototype that realm's patches simulate. */
  nodeDateTimeFormat: boolean;
  dtfPrototype: object;
  formatAccessor: () => unknown;
  formatToParts: (this: Intl.DateTimeFormat, date?: Date | number) => Intl.DateTimeFormatPart[];
}

/** `date`, or the host's current time when it is undefined inside a host. */
function dateOrNow(date: unknown): unknown {
  if (date !== undefined) return date;
  const host = currentHost();
  return host === undefined ? undefined : host.dateNowMs();
}

function simulatedDate(NativeDate: DateConstructor, DateTimeFormat: typeof Intl.DateTimeFormat, nodeDateTimeFormat: boolean): RealmDate {
  /** `Date()` returns ToDateString(now): exactly what Date.prototype.toString prints. */
  const nativeDateToString = NativeDate.prototype.toString;
  /** "function Date() { [native code] }" */
  const nativeDateSource = Reflect.apply(functionToString, NativeDate, []) as string;
  // Method shorthand: like the built-ins, not a constructor and no `prototype`.
  const statics = {
    /** What `Date.toString` resolves to while the Proxy is installed. */
    toString(this: unknown): string {
      return this === SimDate ? nativeDateSource : (Reflect.apply(functionToString, this, []) as string);
    },
  };
  const realmFunctionToString = Object.getPrototypeOf(NativeDate).toString as typeof functionToString;

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
      return key === 'toString' && value === realmFunctionToString ? statics.toString : value;
    },
  };
  const SimDate: DateConstructor = new Proxy(NativeDate, handler);

  // ---- Intl.DateTimeFormat: format() and formatToParts() without a date mean "now" -----------
  // The spec has them read %Date.now% (the intrinsic, which V8 answers from the real clock), not
  // the global Date.now: inside a host they get the host's virtual time instead.
  const dtfPrototype = DateTimeFormat.prototype;
  const nativeFormatGetter = Object.getOwnPropertyDescriptor(dtfPrototype, 'format')!.get!;
  const nativeFormatToParts = dtfPrototype.formatToParts;
  type FormatFunction = (date?: Date | number) => string;
  /** Each DateTimeFormat's simulated bound format: one per object, like the spec's [[BoundFormat]]. */
  const boundFormats = new WeakMap<object, FormatFunction>();
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
  return { NativeDate, SimDate, DateTimeFormat, nodeDateTimeFormat, dtfPrototype, formatAccessor, formatToParts: intlMethods.formatToParts };
}

/** One simulated Date per realm for the life of the process, so classes extending it keep working. */
const byRealm = new WeakMap<object, RealmDate>();

/** What to do about a stand-in the simulation cannot see through. */
const PUT_BACK_BUILT_IN =
  'put the built-in back before sim.run() (for fake timers: call jest.useRealTimers(), vi.useRealTimers() or clock.uninstall()) and fake it again after the run';

function realmDate(global: Record<PropertyKey, unknown>): RealmDate {
  let simulated = byRealm.get(global);
  if (simulated === undefined) {
    // Made at the realm's first run, before any patch of it (the shims are never installed
    // between runs); Node's realm from what dst-runtime captured when it loaded.
    const main = global === globalThis;
    const where = main ? "Node's realm (as dst-runtime found it when it loaded)" : "the test file's vm context";
    const NativeDate = genuineDate(main ? originals.Date : global.Date);
    if (NativeDate === undefined) {
      throw new UsageError(`Failed to simulate Date in ${where}: its Date is a stand-in that is neither Date nor a class extending it, so the simulation has no Date to run on; ${PUT_BACK_BUILT_IN}`);
    }
    if (originals.DateTimeFormat === undefined) {
      throw new UsageError(`Failed to simulate Intl.DateTimeFormat in Node's realm (as dst-runtime found it when it loaded): its Intl.DateTimeFormat is a stand-in without the built-in one behind it; ${PUT_BACK_BUILT_IN}`);
    }
    const own = main ? originals.DateTimeFormat : genuineDateTimeFormat(global.Intl);
    simulated = simulatedDate(NativeDate, own ?? originals.DateTimeFormat, !main && own === undefined);
    byRealm.set(global, simulated);
  }
  return simulated;
}

export const dateShim: Shim = {
  name: 'date',
  install() {},
  realm(patches: PatchSet, realm: Realm) {
    const { NativeDate, SimDate, DateTimeFormat, nodeDateTimeFormat, dtfPrototype, formatAccessor, formatToParts } = realmDate(realm.global);
    patches.replace(NativeDate, 'now', now);
    // `new Date().constructor === Date` while installed; dates made earlier share the prototype.
    patches.replace(NativeDate.prototype, 'constructor', SimDate);
    patches.replace(realm.global, 'Date', SimDate);
    if (!nodeDateTimeFormat) {
      patches.defineGetter(dtfPrototype, 'format', formatAccessor, false);
      patches.replace(dtfPrototype, 'formatToParts', formatToParts);
    }
    // A test's fake Intl (fake timers) has a DateTimeFormat of its own that formats the fake
    // clock's "now": while installed, the realm's own (or Node's), simulated.
    const intl = readGlobal(realm.global, 'Intl') as { DateTimeFormat?: unknown } | undefined;
    if (typeof intl === 'object' && intl !== null && intl.DateTimeFormat !== DateTimeFormat) patches.replace(intl, 'DateTimeFormat', DateTimeFormat);
  },
};
