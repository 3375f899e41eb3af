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
 * The program's hooks hear only of the program's resources, and a request the runtime completes
 * itself as the request: shims/async-hooks/program-hooks.ts.
 */
import asyncHooks, { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { prepareRuntimeResources } from '../../runtime/driver/runtime-resources.js';
import { forgetHiddenDestroys, forgetHiddenIds, hideRuntimeIds, type HookCallbacks, programHookCallbacks, standIn } from './program-hooks.js';
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

/**
 * The async context to run the callback of `request` in, a native resource of Node's whose
 * callback the runtime runs itself, later (a held fs request, a crypto job, a zlib handle's
 * write): a scope that the program's async hooks hear as `request` (shims/async-hooks/program-hooks.ts).
 * `oneShot` (a request): the caller emits the scope's destroy once the callback ran.
 */
export function captureContextOf(request: object, type: string, oneShot: boolean): AsyncResource | undefined {
  if (!userStores) return undefined;
  return standIn(request, oneShot, enabledDestroyHooks.size > 0, () => new AsyncResource(type, { requireManualDestroy: true }));
}

/**
 * `completion` (a request's callback, run in `scope`), followed by `scope`'s destroy: plainly a
 * request is destroyed once its callback ran.
 */
export function thenDestroyed(scope: AsyncResource | undefined, completion: () => void): () => void {
  if (scope === undefined) return completion;
  return () => {
    try {
      completion();
    } finally {
      scope.emitDestroy();
    }
  };
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
/**
 * The program's async hooks enabled now. A run's end disables them: a hook a seed enabled must
 * not hear the next seed's resources in an explorer's worker, as it cannot in a process of its own.
 */
const enabledProgramHooks = new Set<object>();
const programHooks = new WeakSet<object>();
const hookPrototype = Object.getPrototypeOf(realCreateHook({})) as Record<string, (...args: unknown[]) => unknown>;
const realEnable = hookPrototype.enable!;
const realDisable = hookPrototype.disable!;

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
      programHooks.add(hook);
      return hook;
    });
    patches.replace(hookPrototype, 'enable', function enable(this: object, ...args: unknown[]) {
      const result = Reflect.apply(realEnable, this, args);
      if (programHooks.has(this)) enabledProgramHooks.add(this);
      if (destroyHooks.has(this)) enabledDestroyHooks.add(this);
      // What of the runtime's is queued or running now is heard of later without an init or before.
      if (destroyHooks.has(this) || afterHooks.has(this)) hideRuntimeIds(activeWorld()?.liveRuntimeAsyncIds() ?? [], destroyHooks.has(this), afterHooks.has(this));
      noteDestroyHooks(enabledDestroyHooks.size > 0);
      return result;
    });
    patches.replace(hookPrototype, 'disable', function disable(this: object, ...args: unknown[]) {
      const result = Reflect.apply(realDisable, this, args);
      enabledProgramHooks.delete(this);
      enabledDestroyHooks.delete(this);
      // The ids of hidden resources running now are kept: an after still to come for one is hidden.
      if (enabledDestroyHooks.size === 0) forgetHiddenDestroys();
      noteDestroyHooks(enabledDestroyHooks.size > 0);
      return result;
    });
    patches.onRestore(() => {
      for (const hook of enabledProgramHooks) Reflect.apply(realDisable, hook, []);
      enabledProgramHooks.clear();
      enabledDestroyHooks.clear();
      forgetHiddenIds();
      noteDestroyHooks(false);
    });
  },
};
