/**
 * The vm context of the test file that loaded dst-runtime last, when a test runner evaluates
 * test files in vm contexts of their own (Jest; Vitest's vmThreads and vmForks pools).
 * dist/index.cjs, evaluated in such a context, loads the runtime in Node's realm instead (one
 * runtime per process, whatever loads it) and registers the context here. The shims patch its
 * globals too (shims/realms.ts); the runtime reads the runner's state there (testing/rerun.ts).
 *
 * Only the last context is kept: those runners run one test file at a time in a worker, and
 * each file's context loads dst-runtime afresh (a fresh module registry), so the last one is
 * the running file's. An earlier file's context is torn down (Jest empties its globals) and
 * must not be patched again; it is held weakly, never kept alive.
 */
let latest: WeakRef<Record<PropertyKey, unknown>> | undefined;

/** Registers the global object of a vm context whose code uses dst-runtime (dist/index.cjs does). */
export function addRealm(global: object): void {
  if (global === globalThis || global === null || typeof global !== 'object') return;
  latest = new WeakRef(global as Record<PropertyKey, unknown>);
}

/** The test runner's context registered last, if it is still alive. */
export function testRealmGlobal(): Record<PropertyKey, unknown> | undefined {
  return latest?.deref();
}
