/**
 * The real async resources dst-runtime makes for its own work: the driver's immediates, the
 * immediates of a hold, its deferred kick (a nextTick), its retry timer, its async scopes. Plainly
 * a program's async hooks see none of them, so the hooks of the program's own are told them
 * apart here (shims/async-hooks/async-context.ts) and never hear of them: a program counting
 * its resources counts what plain Node gives it, the same in every run of a seed.
 *
 * A resource is the runtime's when it is a Node Immediate, Timeout or TickObject whose callback
 * was registered with runtimeCallback(), or an async scope of a type listed in RUNTIME_SCOPE_TYPES.
 */
import { originals } from '../originals.js';

const runtimeCallbacks = new WeakSet<Function>();

/** Registers `fn` as the callback of real timers, immediates or ticks the runtime makes; returns it. */
export function runtimeCallback<F extends Function>(fn: F): F {
  runtimeCallbacks.add(fn);
  return fn;
}

/** The types of the AsyncResources the runtime makes for itself (runtime/driver/event-context.ts, World's host scopes). */
export const RUNTIME_SCOPE_TYPES: ReadonlySet<string> = new Set(['dst-root', 'dst-host', 'dst-probe']);
const runtimeScopes = new WeakSet<object>();

/** Registers an AsyncResource the runtime made for itself (its type is in RUNTIME_SCOPE_TYPES); returns it. */
export function runtimeScope<T extends object>(scope: T): T {
  runtimeScopes.add(scope);
  return scope;
}

interface NodeHandleShape {
  _onImmediate?: unknown;
  _onTimeout?: unknown;
  callback?: unknown;
}

let nodeHandleProtos: { immediate: object; timeout: object } | undefined;
/** The key of a Node handle's async id (Node's async_id_symbol). */
let asyncIdKey: symbol | undefined;

/**
 * Takes the prototypes of Node's own Immediate and Timeout, from one of each made and cleared.
 * Called before the first hook of the program's exists (the handles made here would be reported
 * to it), and before isRuntimeResource() is asked about a handle.
 */
export function prepareRuntimeResources(): void {
  if (nodeHandleProtos === undefined) {
    const immediate = originals.setImmediate(runtimeNoop);
    originals.clearImmediate(immediate);
    const timeout = originals.setTimeout(runtimeNoop, 1);
    originals.clearTimeout(timeout);
    asyncIdKey = Object.getOwnPropertySymbols(immediate).find((key) => key.description === 'async_id_symbol');
    nodeHandleProtos = { immediate: Object.getPrototypeOf(immediate) as object, timeout: Object.getPrototypeOf(timeout) as object };
  }
}

/** A callback that does nothing, for the real handles the runtime makes only to look at (probes). */
export const runtimeNoop = runtimeCallback(function noop(): void {});

/**
 * Whether `resource` (as an async hook sees it: init's fourth argument, executionAsyncResource()
 * in before and after) is the runtime's. `type` is init's, when known: an AsyncResource is not
 * yet registered while its constructor reports it.
 */
export function isRuntimeResource(resource: unknown, type?: string): boolean {
  if (typeof resource !== 'object' || resource === null) return false;
  if (type !== undefined ? RUNTIME_SCOPE_TYPES.has(type) : runtimeScopes.has(resource)) return true;
  const proto = Object.getPrototypeOf(resource) as object | null;
  const protos = nodeHandleProtos;
  if (protos === undefined) return false;
  if (proto === protos.immediate) return runtimeCallbacks.has((resource as NodeHandleShape)._onImmediate as Function);
  if (proto === protos.timeout) return runtimeCallbacks.has((resource as NodeHandleShape)._onTimeout as Function);
  // A TickObject is a plain object: only an own data property is read (never a getter of a program's resource).
  if (proto !== Object.prototype) return false;
  const callback = Object.getOwnPropertyDescriptor(resource, 'callback');
  return callback !== undefined && typeof callback.value === 'function' && runtimeCallbacks.has(callback.value as Function);
}

/** The async id of a Node Immediate or Timeout (after prepareRuntimeResources()), if found. */
export function handleAsyncId(handle: object): number | undefined {
  const id = asyncIdKey === undefined ? undefined : (handle as Record<symbol, unknown>)[asyncIdKey];
  return typeof id === 'number' ? id : undefined;
}
