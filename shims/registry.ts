/**
 * The patch registry: the only place that changes globals and builtins. Every patch records how
 * to undo itself (own property or inherited, with its exact descriptor); restore() undoes in
 * reverse order, so globals are identical after uninstall.
 */
/** The function each stand-in replaced (mirrorSignature, mirrorIfStandIn): Function.prototype.toString shows its source. */
const originals = new WeakMap<Function, Function>();

/** The function `fn` stands in for, as far back as it goes, or `fn` itself (shims/function-source.ts). */
export function originalOf(fn: Function): Function {
  return originals.get(fn) ?? fn;
}

/** Gives a stand-in the `name` and `length` of the function it replaces, as code inspecting it sees them, and its source (originalOf). */
export function mirrorSignature(fn: Function, original: Function): void {
  if (!originals.has(fn)) originals.set(fn, originalOf(original));
  Object.defineProperty(fn, 'name', { value: original.name, configurable: true });
  Object.defineProperty(fn, 'length', { value: original.length, configurable: true });
}

/** mirrorSignature, and the original's own symbol properties too (util.promisify's custom arguments, ...). */
export function mirrorFunction<F extends Function>(fn: F, original: Function): F {
  mirrorSignature(fn, original);
  for (const key of Object.getOwnPropertySymbols(original)) {
    Object.defineProperty(fn, key, Object.getOwnPropertyDescriptor(original, key)!);
  }
  return fn;
}

/** The value `target[key]` reads from a prototype's data property (no getter runs), if any. */
function inheritedValue(target: object, key: PropertyKey): unknown {
  for (let o = Object.getPrototypeOf(target); o !== null; o = Object.getPrototypeOf(o)) {
    const descriptor = Object.getOwnPropertyDescriptor(o, key);
    if (descriptor !== undefined) return descriptor.value;
  }
  return undefined;
}

/** Stand-ins given a signature by mirrorIfStandIn: the first original they replaced decides. */
const mirrored = new WeakSet<Function>();

/**
 * mirrorSignature when `value` is a function standing in for another function `original`, once
 * per stand-in: one stand-in serves every realm, and a realm's slot may hold a test's fake
 * (@sinonjs/fake-timers' functions and its Date class ClockDate have an own `clock`), whose name
 * a shared stand-in must not take (the simulated Date was renamed ClockDate for the rest of the
 * process after a test that installed sinon's fakes).
 */
export function mirrorIfStandIn(value: unknown, original: unknown): void {
  if (typeof value !== 'function' || typeof original !== 'function' || value === original || mirrored.has(value)) return;
  if (Object.prototype.hasOwnProperty.call(original, 'clock')) return;
  mirrored.add(value);
  if (!originals.has(value)) originals.set(value, originalOf(original));
  if (value.name !== original.name || value.length !== original.length) mirrorSignature(value, original);
}

export class PatchSet {
  private readonly restorers: Array<() => void> = [];
  private readonly patched = new Map<object, Set<PropertyKey>>();

  /**
   * Replaces `target[key]` with `value`, keeping the property's attributes. A function replacing
   * a function takes its `name` and `length` (what code inspecting it, or a stack, shows): the
   * bundler renames clashing functions (`queueMicrotask$1`), and a stand-in's parameters need not
   * be the original's.
   */
  replace<T extends object, K extends keyof T & PropertyKey>(target: T, key: K, value: T[K]): void;
  replace(target: object, key: PropertyKey, value: unknown): void;
  replace(target: object, key: PropertyKey, value: unknown): void {
    const previous = Object.getOwnPropertyDescriptor(target, key);
    this.record(target, key, previous);
    mirrorIfStandIn(value, previous === undefined ? inheritedValue(target, key) : previous.value);
    if (previous !== undefined && !('value' in previous)) {
      // An accessor: replace it with a data property of the same enumerability.
      Object.defineProperty(target, key, {
        value,
        writable: true,
        enumerable: previous.enumerable ?? false,
        configurable: true,
      });
    } else {
      Object.defineProperty(target, key, {
        value,
        writable: previous?.writable ?? true,
        enumerable: previous?.enumerable ?? false,
        configurable: true,
      });
    }
  }

  /** Defines an accessor on `target[key]` (own property), recording the previous state. */
  defineGetter(target: object, key: PropertyKey, get: () => unknown, enumerable = true, set?: (value: unknown) => void): void {
    const previous = Object.getOwnPropertyDescriptor(target, key);
    this.record(target, key, previous);
    Object.defineProperty(target, key, set === undefined ? { get, enumerable, configurable: true } : { get, set, enumerable, configurable: true });
  }

  private record(target: object, key: PropertyKey, previous: PropertyDescriptor | undefined): void {
    let keys = this.patched.get(target);
    if (keys === undefined) this.patched.set(target, (keys = new Set()));
    if (keys.has(key)) {
      throw new Error(`Failed to patch ${String(key)}: it is already patched by dst-runtime (double install)`);
    }
    if (previous !== undefined && previous.configurable === false) {
      throw new Error(`Failed to patch ${String(key)}: the property is not configurable`);
    }
    keys.add(key);
    this.restorers.push(() => {
      if (previous === undefined) delete (target as Record<PropertyKey, unknown>)[key];
      else Object.defineProperty(target, key, previous);
      keys!.delete(key);
    });
  }

  /** Runs `fn` when the patches are restored, in order with the patches (newest first). */
  onRestore(fn: () => void): void {
    this.restorers.push(fn);
  }

  /** Undoes every patch, newest first. */
  restore(): void {
    while (this.restorers.length > 0) this.restorers.pop()!();
    this.patched.clear();
  }

  get size(): number {
    return this.restorers.length;
  }
}

/**
 * A finder of one of Node's private symbols (`Symbol('timeout')`, `Symbol('kOutHeaders')`) by its
 * description: looked for on the first object it is asked about, else on `probe()` (an object
 * its constructor sets it on), once; undefined if neither has it. Not probed at load: making the
 * probe object there cost start-up time (docs/benchmarks.md, figure 12).
 */
export function privateSymbolFinder(description: string, probe: () => object): (first: object) => symbol | undefined {
  let found: symbol | null | undefined;
  const matches = (s: symbol): boolean => s.description === description;
  return (first) => {
    if (found === undefined) found = Object.getOwnPropertySymbols(first).find(matches) ?? Object.getOwnPropertySymbols(probe()).find(matches) ?? null;
    return found ?? undefined;
  };
}
