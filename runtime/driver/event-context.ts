/**
 * The async context an event runs in. The current host travels in an AsyncLocalStorage (a plain
 * "current host" variable would be wrong for continuations of earlier events); World.invoke()
 * enters it for each event by the cheapest way this Node allows, which these probe once.
 */
import { type AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { Host } from '../hosts/host.js';
import { originals } from '../originals.js';
import { runtimeScope } from './runtime-resources.js';

/**
 * One AsyncLocalStorage for the whole process, shared by every World: on Node 20/22 each live
 * ALS taxes every async resource created afterwards, so one per run made later runs slower.
 * A store (a Host) from an earlier world is ignored by currentHost().
 */
export const processAls = new originals.AsyncLocalStorage<Host>();
/**
 * AsyncLocalStorage's own run(), taken before the async-context shim wraps the prototype's (the
 * wrapper only watches for stores other than ours, and costs a rest array and a Reflect.apply
 * per call): every event runs through it.
 */
export const alsRun = originals.AsyncLocalStorage.prototype.run as <R>(this: AsyncLocalStorage<Host>, store: Host, fn: () => R) => R;

/**
 * Whether AsyncLocalStorage keeps its stores in immutable context frames (AsyncContextFrame:
 * Node 24 by default, Node 22 with --experimental-async-context-frame) rather than on async
 * resources (async_hooks). Probed, not guessed from the version: a store entered inside a
 * resource's scope stays on that resource only with async_hooks.
 */
export const FRAMED_CONTEXT = ((): boolean => {
  const probe = new originals.AsyncLocalStorage<number>();
  const resource = new AsyncResource('dst-probe', { requireManualDestroy: true });
  resource.runInAsyncScope(() => probe.enterWith(1));
  const framed = resource.runInAsyncScope(() => probe.getStore()) === undefined;
  probe.disable();
  return framed;
})();

/**
 * With async_hooks, where AsyncLocalStorage keeps our store on the executing resource: the
 * property it uses (an own symbol of the instance in Node 20 and 22), so an event can set and
 * restore it itself — exactly what run() does, without run()'s second resource lookup and rest
 * array. Undefined when not found: events then use run().
 */
export const RESOURCE_STORE: symbol | undefined = (() => {
  if (FRAMED_CONTEXT) return undefined;
  const key = (processAls as unknown as { kResourceStore?: unknown }).kResourceStore;
  return typeof key === 'symbol' ? key : undefined;
})();

/** AsyncLocalStorage's (internal) _enable of Node 20 and 22: disable() is undone by it. */
export const alsEnable = (processAls as unknown as { _enable?: () => void })._enable;

/**
 * An async context with no store of the program's, made when the runtime loads (before any
 * program code). What the runtime starts on its own behalf is started in it: the driver's
 * immediates, the scope of events that captured none, the scope of an accepted connection. As in
 * Node, whose native callbacks (a connection accepted, a signal) begin in the root context, a
 * program's AsyncLocalStorage store then never leaks from wherever the driver happened to be
 * kicked (a dns.lookup callback ran in the store of the first timer's context before).
 */
export const ROOT_SCOPE = runtimeScope(new AsyncResource('dst-root', { requireManualDestroy: true }));
