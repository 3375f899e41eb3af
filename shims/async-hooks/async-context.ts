/**
 * Capturing the async context of a timer or immediate costs an AsyncResource per handle (the
 * largest single cost of a timer-heavy simulation on Node 20/22). It is only needed when the
 * program under test keeps something in an AsyncLocalStorage of its own: the host itself
 * travels in dst-runtime's store, which the driver restores anyway. So the shim watches
 * AsyncLocalStorage.prototype.run / enterWith; until a store other than dst-runtime's has been
 * set, handles capture nothing and their events run in a fresh context holding their host.
 * The same goes for async_hooks.createHook: libraries that keep their context in hooks of their
 * own (cls-hooked, APM agents) see each simulated timer and immediate as an async resource of
 * its own type ('Timeout', 'Immediate'), with init at creation, before/after around it and
 * destroy when it is done (shims/timers).
 *
 * The program's hooks hear only of the program's resources: the real ones dst-runtime makes for
 * its own work (the driver's immediates, its scopes, its deferred kick) are left out
 * (runtime/driver/runtime-resources.ts), as plainly they do not exist. Otherwise a hook counting
 * its resources would count some 256 immediates per turn of Node's loop, and a different number
 * in each run of a seed.
 */
import asyncHooks, { AsyncLocalStorage, AsyncResource, executionAsyncResource } from 'node:async_hooks';
import { isRuntimeResource, prepareRuntimeResources } from '../../runtime/driver/runtime-resources.js';
import { activeWorld, noteDestroyHooks, noteUserAsyncStores } from '../../runtime/world.js';
import type { PatchSet } from '../registry.js';
import { patchExportKeepingNodeCaptures } from '../builtin-captures.js';
import type { Shim } from '../shim.js';

let userStores = false;

/** Whether the program has used an async store of its own (captureContext would capture one). */
export function contextsSeen(): boolean {
  return userStores;
}

/** The async context to run a handle's callback in, or undefined when the host is enough. */
export function captureContext(type: string): AsyncResource | undefined {
  return userStores ? new AsyncResource(type, { requireManualDestroy: true }) : undefined;
}

const proto = AsyncLocalStorage.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
const realRun = proto.run!;
const realEnterWith = proto.enterWith!;

function noteUserStore(storage: unknown): void {
  if (!userStores && storage !== activeWorld()?.als) noteUserContext();
}

function noteUserContext(): void {
  userStores = true;
  noteUserAsyncStores();
}

const hooksModule = asyncHooks as unknown as Record<string, (...args: unknown[]) => unknown>;
const realCreateHook = hooksModule.createHook!;

/**
 * The program's async hooks that have a destroy callback, and those of them enabled now. Node
 * delivers destroy hooks from a native immediate (after libuv closed a handle, or after
 * emitDestroy()): while such a hook is enabled, every event ends the driver's turn (World's
 * noteDestroyHooks), so the hook hears of a destroy before the next event, as plainly soon after.
 */
const destroyHooks = new WeakSet<object>();
/** The program's async hooks that have an after callback. */
const afterHooks = new WeakSet<object>();
const enabledDestroyHooks = new Set<object>();
const hookPrototype = Object.getPrototypeOf(realCreateHook({})) as Record<string, (...args: unknown[]) => unknown>;
const realEnable = hookPrototype.enable!;
const realDisable = hookPrototype.disable!;

type HookCallback = (this: unknown, ...args: unknown[]) => void;

interface HookCallbacks {
  init?: unknown;
  before?: unknown;
  after?: unknown;
  destroy?: unknown;
  promiseResolve?: unknown;
}

/**
 * Async ids of the runtime's resources that a hook of the program's with a destroy callback may
 * yet hear destroyed (noted at their init or before, or when such a hook is enabled while they
 * are queued). Each leaves the set at its destroy.
 */
const runtimeIds = new Set<number>();
/** The id whose destroy Node is delivering to each enabled hook in turn, and whether it is the runtime's. */
let destroyingId = -1;
let destroyingRuntime = false;

function isRuntimeDestroy(asyncId: number): boolean {
  if (asyncId !== destroyingId) {
    destroyingId = asyncId;
    destroyingRuntime = runtimeIds.delete(asyncId);
  }
  return destroyingRuntime;
}

/**
 * Async ids of the runtime's resources running now (heard at before). Their after cannot be told by
 * the resource: Node has dropped an immediate's callback by then.
 */
const runtimeRunning = new Set<number>();
/** The id whose after Node is delivering to each enabled hook in turn, and whether it is the runtime's. */
let afterId = -1;
let afterRuntime = false;

function isRuntimeAfter(asyncId: number): boolean {
  if (asyncId !== afterId) {
    afterId = asyncId;
    afterRuntime = runtimeRunning.delete(asyncId);
  }
  return afterRuntime;
}

/**
 * The callbacks Node gets for a hook of the program's: the program's own, each skipping the
 * runtime's resources. Each property is read once, as Node's constructor does; a value that is
 * not a function is passed on as it is, so Node rejects it with its own error. A hook with a
 * destroy callback also gets init and before, to learn which ids it must not hear destroyed.
 */
function programHookCallbacks(callbacks: HookCallbacks): HookCallbacks {
  // Named apart from the wrappers: a named function expression's own name would shadow them.
  const { init: givenInit, before: givenBefore, after: givenAfter, destroy: givenDestroy, promiseResolve } = callbacks;
  const tracksDestroy = typeof givenDestroy === 'function';
  const programInit = typeof givenInit === 'function' ? (givenInit as HookCallback) : undefined;
  const programBefore = typeof givenBefore === 'function' ? (givenBefore as HookCallback) : undefined;
  const programAfter = typeof givenAfter === 'function' ? (givenAfter as HookCallback) : undefined;
  const programDestroy = tracksDestroy ? (givenDestroy as HookCallback) : undefined;
  // A hook with after gets before too, to learn which afters are the runtime's.
  const watchesBefore = programBefore !== undefined || ((tracksDestroy || programAfter !== undefined) && givenBefore === undefined);
  return {
    init:
      programInit !== undefined || (tracksDestroy && givenInit === undefined)
        ? function init(this: unknown, asyncId: number, type: string, triggerAsyncId: number, resource: object) {
            if (isRuntimeResource(resource, type)) {
              if (tracksDestroy) runtimeIds.add(asyncId);
              return;
            }
            if (programInit !== undefined) Reflect.apply(programInit, this, [asyncId, type, triggerAsyncId, resource]);
          }
        : givenInit,
    before:
      watchesBefore
        ? function before(this: unknown, asyncId: number) {
            if (isRuntimeResource(executionAsyncResource())) {
              if (tracksDestroy) runtimeIds.add(asyncId);
              if (programAfter !== undefined) runtimeRunning.add(asyncId);
              return;
            }
            if (programBefore !== undefined) Reflect.apply(programBefore, this, [asyncId]);
          }
        : givenBefore,
    after:
      programAfter !== undefined
        ? function after(this: unknown, asyncId: number) {
            if (!isRuntimeAfter(asyncId)) Reflect.apply(programAfter, this, [asyncId]);
          }
        : givenAfter,
    destroy:
      programDestroy !== undefined
        ? function destroy(this: unknown, asyncId: number) {
            if (!isRuntimeDestroy(asyncId)) Reflect.apply(programDestroy, this, [asyncId]);
          }
        : givenDestroy,
    promiseResolve,
  };
}

export const asyncContextShim: Shim = {
  name: 'async-context',
  install(patches: PatchSet) {
    patches.replace(proto, 'run', function run(this: unknown, ...args: unknown[]) {
      noteUserStore(this);
      return Reflect.apply(realRun, this, args);
    });
    patches.replace(proto, 'enterWith', function enterWith(this: unknown, ...args: unknown[]) {
      noteUserStore(this);
      return Reflect.apply(realEnterWith, this, args);
    });
    // node:domain takes createHook when it loads: it keeps Node's (shims/builtin-captures.ts).
    patchExportKeepingNodeCaptures(patches, hooksModule, 'createHook', function createHook(this: unknown, ...args: unknown[]) {
      if (!userStores) noteUserContext();
      prepareRuntimeResources();
      const callbacks = args[0];
      const given = (typeof callbacks === 'object' && callbacks !== null) || typeof callbacks === 'function' ? programHookCallbacks(callbacks as HookCallbacks) : undefined;
      const hook = Reflect.apply(realCreateHook, this, given === undefined ? args : [given, ...args.slice(1)]) as object;
      if (typeof given?.destroy === 'function') destroyHooks.add(hook);
      if (typeof given?.after === 'function') afterHooks.add(hook);
      return hook;
    });
    patches.replace(hookPrototype, 'enable', function enable(this: object, ...args: unknown[]) {
      const result = Reflect.apply(realEnable, this, args);
      if (destroyHooks.has(this)) enabledDestroyHooks.add(this);
      // What of the runtime's is queued or running now is heard of later without an init or before.
      for (const id of activeWorld()?.liveRuntimeAsyncIds() ?? []) {
        if (destroyHooks.has(this)) runtimeIds.add(id);
        if (afterHooks.has(this)) runtimeRunning.add(id);
      }
      noteDestroyHooks(enabledDestroyHooks.size > 0);
      return result;
    });
    patches.replace(hookPrototype, 'disable', function disable(this: object, ...args: unknown[]) {
      const result = Reflect.apply(realDisable, this, args);
      enabledDestroyHooks.delete(this);
      if (enabledDestroyHooks.size === 0) runtimeIds.clear();
      // runtimeRunning is left: an after still to come for an id in it is the runtime's.
      noteDestroyHooks(enabledDestroyHooks.size > 0);
      return result;
    });
    patches.onRestore(() => {
      enabledDestroyHooks.clear();
      runtimeIds.clear();
      runtimeRunning.clear();
      noteDestroyHooks(false);
    });
  },
};
