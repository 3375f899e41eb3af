/**
 * What the program's own async hooks (async_hooks.createHook) hear. Node calls them for every
 * async resource of the process; under the simulator some of those are not the program's, and
 * some of the program's are heard at other times than plainly:
 *
 * - **The runtime's resources** (the driver's immediates, its scopes, its deferred kick:
 *   runtime/driver/runtime-resources.ts), and whatever code outside every host makes (an
 *   explorer worker's IPC and code-cache writes, a test runner's), are left out, as plainly they
 *   do not exist. Otherwise a hook counting its resources would count some 256 immediates per
 *   turn of Node's loop, and a different number in each run of a seed.
 * - **Stand-ins.** A request the runtime makes for real (a held fs call, a crypto job, a zlib
 *   write) completes on real time, and the program's callback runs later, in an 'io' event, in a
 *   scope (an AsyncResource) of its own. The real resource is what the program's hooks heard made
 *   (its init, with Node's type and object); the scope stands in for it: the hooks hear its before
 *   and after with the real resource's id, never the scope's init, and never the real resource's
 *   own before, after or destroy on real time, whose order between two requests differs from run
 *   to run. A request is destroyed once its callback ran, as plainly (standIn()'s `oneShot`).
 *
 * Node gives each of a hook's callbacks one async id at a time, to every enabled hook in turn, so
 * what is decided for an id is decided once (by the first hook's wrapper) and kept for the others.
 */
import { executionAsyncResource } from 'node:async_hooks';
import { isRuntimeResource } from '../../runtime/driver/runtime-resources.js';
import { activeWorld } from '../../runtime/world.js';

type HookCallback = (this: unknown, ...args: unknown[]) => void;

export interface HookCallbacks {
  init?: unknown;
  before?: unknown;
  after?: unknown;
  destroy?: unknown;
  promiseResolve?: unknown;
}

/**
 * Async ids whose destroy the program's hooks must not hear: the runtime's resources (noted at
 * their init or before, or when a hook is enabled while they are queued), and real requests a
 * scope stands in for. Filled only while a hook with a destroy callback is enabled; each id
 * leaves the set at its destroy.
 */
const hiddenDestroys = new Set<number>();
/** A stand-in scope's id → the id of the request it stands in for, heard destroyed when the scope is. */
const destroyedAs = new Map<number, number>();
/** The id whose destroy Node is delivering to each enabled hook in turn, and the id the hooks hear (-1: none). */
let destroyingId = -1;
let destroyingAs = -1;

function heardDestroy(asyncId: number): number {
  if (asyncId !== destroyingId) {
    destroyingId = asyncId;
    if (hiddenDestroys.delete(asyncId)) destroyingAs = -1;
    else {
      const real = destroyedAs.get(asyncId);
      if (real !== undefined) destroyedAs.delete(asyncId);
      destroyingAs = real ?? asyncId;
    }
  }
  return destroyingAs;
}

/**
 * Async ids of hidden resources running now (heard at before). Their after cannot be told by the
 * resource: Node has dropped an immediate's callback by then.
 */
const hiddenRunning = new Set<number>();
/** The id whose after Node is delivering to each enabled hook in turn, and whether it is hidden. */
let afterId = -1;
let afterHidden = false;

function isHiddenAfter(asyncId: number): boolean {
  if (asyncId !== afterId) {
    afterId = asyncId;
    afterHidden = hiddenRunning.delete(asyncId);
  }
  return afterHidden;
}

/** Real resources whose own callbacks are the runtime's business (the requests stand-ins stand in for). */
const standInFor = new WeakSet<object>();
/** Stand-in scopes → the async id of the resource each stands in for. */
const standIns = new WeakMap<object, number>();
/** Set while a stand-in scope is made: its init is not heard. */
let makingStandIn = false;

/** Whether the program's hooks are not to hear of `resource` running (as executionAsyncResource() gives it). */
function hiddenRunner(resource: unknown): boolean {
  return isRuntimeResource(resource) || (typeof resource === 'object' && resource !== null && standInFor.has(resource)) || !inHostCode();
}

/**
 * Whether the code running now (or the resource whose callback is entered: its async context) is
 * a host's. What runs outside every host is not the program's: the explorer worker's own work
 * (its IPC, the code cache it writes), a test runner's, a tool's.
 */
function inHostCode(): boolean {
  return activeWorld()?.currentHost() !== undefined;
}

/** The id the program's hooks hear for `asyncId`, the resource executing now: a stand-in's request's. */
function heardAs(asyncId: number): number {
  const resource = executionAsyncResource();
  return (typeof resource === 'object' && resource !== null && standIns.get(resource)) || asyncId;
}

/** The async id Node gave a native resource (an AsyncWrap's getAsyncId()), if it is one. */
function wrapAsyncId(resource: object): number | undefined {
  const getAsyncId = (resource as { getAsyncId?: unknown }).getAsyncId;
  if (typeof getAsyncId !== 'function') return undefined;
  const id: unknown = Reflect.apply(getAsyncId, resource, []);
  return typeof id === 'number' && id > 0 ? id : undefined;
}

/**
 * Makes `scope` (by `make`, called now) stand in for `request`, a native resource of Node's whose
 * callback the runtime runs itself (module comment). `oneShot`: a request, done once its
 * callback ran (the caller then emits the scope's destroy); otherwise a handle that lives on (a
 * zlib stream's). Returns what `make` made; a request that is no native resource gets a scope of
 * its own, heard as usual.
 */
export function standIn<T extends object>(request: object, oneShot: boolean, destroyHooksOn: boolean, make: () => T): T {
  const real = wrapAsyncId(request);
  if (real === undefined) return make();
  // Node reports the request's own callbacks with the request as the resource (a zlib stream's
  // with its native handle, not the stream: docs/notes/node-facts.md).
  standInFor.add(request);
  makingStandIn = true;
  let scope: T;
  try {
    scope = make();
  } finally {
    makingStandIn = false;
  }
  standIns.set(scope, real);
  if (oneShot && destroyHooksOn) {
    hiddenDestroys.add(real);
    const scopeId = (scope as { asyncId?: () => number }).asyncId?.();
    if (typeof scopeId === 'number') destroyedAs.set(scopeId, real);
  }
  return scope;
}

/**
 * The callbacks Node gets for a hook of the program's: the program's own, each skipping what it
 * must not hear (module comment). Each property is read once, as Node's constructor does; a value
 * that is not a function is passed on as it is, so Node rejects it with its own error. A hook with
 * a destroy or after callback also gets init and before, to learn which ids it must not hear.
 */
export function programHookCallbacks(callbacks: HookCallbacks): HookCallbacks {
  // Named apart from the wrappers: a named function expression's own name would shadow them.
  const { init: givenInit, before: givenBefore, after: givenAfter, destroy: givenDestroy, promiseResolve } = callbacks;
  const tracksDestroy = typeof givenDestroy === 'function';
  const programInit = typeof givenInit === 'function' ? (givenInit as HookCallback) : undefined;
  const programBefore = typeof givenBefore === 'function' ? (givenBefore as HookCallback) : undefined;
  const programAfter = typeof givenAfter === 'function' ? (givenAfter as HookCallback) : undefined;
  const programDestroy = tracksDestroy ? (givenDestroy as HookCallback) : undefined;
  const watchesBefore = programBefore !== undefined || ((tracksDestroy || programAfter !== undefined) && givenBefore === undefined);
  return {
    init:
      programInit !== undefined || (tracksDestroy && givenInit === undefined)
        ? function init(this: unknown, asyncId: number, type: string, triggerAsyncId: number, resource: object) {
            if (makingStandIn) return;
            if (isRuntimeResource(resource, type) || !inHostCode()) {
              if (tracksDestroy) hiddenDestroys.add(asyncId);
              return;
            }
            if (programInit === undefined) return;
            // Made inside a stand-in's callback: triggered by the request it stands in for.
            const trigger = standInTrigger(triggerAsyncId);
            Reflect.apply(programInit, this, [asyncId, type, trigger, resource]);
          }
        : givenInit,
    before: watchesBefore
      ? function before(this: unknown, asyncId: number) {
          if (hiddenRunner(executionAsyncResource())) {
            if (tracksDestroy) hiddenDestroys.add(asyncId);
            if (programAfter !== undefined) hiddenRunning.add(asyncId);
            return;
          }
          if (programBefore !== undefined) Reflect.apply(programBefore, this, [heardAs(asyncId)]);
        }
      : givenBefore,
    after:
      programAfter !== undefined
        ? function after(this: unknown, asyncId: number) {
            if (!isHiddenAfter(asyncId)) Reflect.apply(programAfter, this, [heardAs(asyncId)]);
          }
        : givenAfter,
    destroy:
      programDestroy !== undefined
        ? function destroy(this: unknown, asyncId: number) {
            const heard = heardDestroy(asyncId);
            if (heard !== -1) Reflect.apply(programDestroy, this, [heard]);
          }
        : givenDestroy,
    promiseResolve,
  };
}

/** `triggerAsyncId` as the program's hooks hear it: a stand-in scope's is its request's. */
function standInTrigger(triggerAsyncId: number): number {
  const resource = executionAsyncResource();
  if (typeof resource !== 'object' || resource === null) return triggerAsyncId;
  const real = standIns.get(resource);
  return real !== undefined && (resource as { asyncId?: () => number }).asyncId?.() === triggerAsyncId ? real : triggerAsyncId;
}

/** A hook was enabled: `ids` (the runtime's, queued or running now) are heard of later without an init or before. */
export function hideRuntimeIds(ids: readonly number[], destroy: boolean, after: boolean): void {
  for (const id of ids) {
    if (destroy) hiddenDestroys.add(id);
    if (after) hiddenRunning.add(id);
  }
}

/** No hook with a destroy callback is enabled any more: no destroy is to be told apart. */
export function forgetHiddenDestroys(): void {
  hiddenDestroys.clear();
  destroyedAs.clear();
}

/** The run is over (the shims are put back). */
export function forgetHiddenIds(): void {
  forgetHiddenDestroys();
  hiddenRunning.clear();
}
