/**
 * Code loaded at its first use instead of at start-up (docs/architecture.md, "Start-up").
 *
 *     const impl = lazyModule(() => import('./keys-impl.js'));
 *     impl().simGenerateKeyPairSync(...)
 *
 * In the build, an `import()` of one of the runtime's own modules is rendered as a synchronous
 * `require()` of the chunk rollup made for it (rollup.config.mjs, `syncDynamicImports`): the
 * module's code is parsed, compiled and run the first time `impl()` is called, and an empty
 * program never pays for it. The call returns the module itself, not a promise; TypeScript
 * sees a promise, hence the cast. Only ever called synchronously from inside a function: a
 * lazy module must not be loaded at another module's top level (that would load it at start).
 *
 * A lazy module must not load a Node builtin that captures timer functions when it first loads
 * (docs/notes/node-facts.md): it would load after the timer shims and hold the simulated ones.
 * Import such builtins from the eager code instead.
 */
export function lazyModule<T>(load: () => Promise<T>): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      const module = load() as unknown;
      if (module instanceof Promise) {
        throw new Error('Failed to load a lazy module: import() returned a promise (this runtime was not built by rollup.config.mjs; this is a bug in dst-runtime)');
      }
      loaded = module as T;
    }
    return loaded;
  };
}
