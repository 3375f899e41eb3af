/**
 * Node's undici as fetch's shim sees it from outside (shims/net/fetch.ts, its triggers) and from
 * inside (fetch-impl.ts, which loads undici): the global dispatcher's slot, and whether the shim
 * is loading undici itself.
 */
export interface Dispatcher {
  dispatch(options: unknown, handler: unknown): boolean;
}
export type DispatcherClass = new (options?: unknown) => Dispatcher;

/** Where undici keeps the global dispatcher (lib/global.js), shared with the npm package. */
export const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/** The global dispatcher, without firing the dispatcher slot's trigger. */
export function globalDispatcher(): Dispatcher | undefined {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, GLOBAL_DISPATCHER);
  return descriptor !== undefined && 'value' in descriptor ? (descriptor.value as Dispatcher | undefined) : undefined;
}

/** True while the shim loads undici itself (its own reads of the dispatcher slot pass through). */
let loading = false;
export function loadingUndici(): boolean {
  return loading;
}
export function setLoadingUndici(value: boolean): void {
  loading = value;
}
