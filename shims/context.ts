import { Host as AnyHost } from '../runtime/hosts/host.js';
import { activeWorld, type WorldHost } from '../runtime/world.js';

/**
 * A host as the shims see it: a host of a World, whose `world` is the whole simulation
 * (runtime/hosts/host.ts types a host's world by the little a host itself asks of it).
 */
export type Host = WorldHost;

/**
 * The host whose code is calling a shim, or undefined when the caller is outside every host
 * (the test runner in library mode): then the shim must behave exactly like the real API.
 */
export function currentHost(): Host | undefined {
  const world = activeWorld();
  return world === undefined ? undefined : world.currentHost();
}

/** Node's major version, for the few behaviours that differ between 20, 22 and 24. */
export const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/**
 * Removes what ties an object (a native handle) to a host through async context: with
 * async_hooks (Node 20/22) AsyncLocalStorage keeps the store of the context a resource was
 * made in on the resource itself, and the runtime's store is the host (and so its world).
 */
export function forgetHost(resource: Record<PropertyKey, unknown>): void {
  for (const key of Object.getOwnPropertySymbols(resource)) {
    if (resource[key] instanceof AnyHost) delete resource[key];
  }
}
