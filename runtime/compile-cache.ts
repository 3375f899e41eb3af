/**
 * Node's on-disk compile cache (module.enableCompileCache: Node 22.1+; Node 20 has none), turned
 * on by register mode before it loads the runtime: parsing and compiling the runtime's bundle is
 * most of what register mode adds to a process's start, and the cache holds V8's code for it.
 *
 * - Where: Node's own choice. NODE_COMPILE_CACHE if set (Node has then turned the cache on
 *   itself, and this call changes nothing), else `<os.tmpdir()>/node-compile-cache`, the
 *   directory Node and npm use. Entries are keyed by the file's content, the Node version and V8's
 *   flags, and Node checks them before use: a stale or foreign entry is recompiled, never run.
 * - What it changes: only how fast code compiles. What a program runs, its stack traces and
 *   its source text are the same, and so is every run's fingerprint (test/determinism). Node
 *   writes the cache from C++ at exit, not through node:fs, so a simulated disk never sees it.
 *   The cache stays on for the modules the program loads after (Node has no way to turn it off
 *   again): they compile faster on a second run too, which is what `dst explore
 *   --process-per-seed` does.
 * - NODE_DISABLE_COMPILE_CACHE=1 (Node's own switch) turns it off.
 */
import Module from 'node:module';

export function enableCompileCache(): void {
  const enable = (Module as unknown as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (typeof enable !== 'function') return; // Node 20, and 22.0
  try {
    enable();
  } catch {
    // The cache is a speed-up: a directory that cannot be made must not stop the program.
  }
}
