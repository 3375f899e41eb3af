/**
 * dst-runtime's module loader hooks for module.register (Node 20, and 22 before 22.15): they run
 * on Node's loader thread, built on their own into dist/loader-hooks.mjs. The rules are those
 * of shims/module-graph.ts, which the in-thread hooks of shims/module-hosts.ts share; only the
 * asynchronous shape and the lexer (the WebAssembly build, which needs init()) differ.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init, parse } from 'cjs-module-lexer';
import { commonJsFacade, hostQuery, urlInHostGraph, withEvaluationSignal } from './module-graph.js';

interface Resolved { url: string; format?: string | null }
interface Loaded { format: string; source?: string | ArrayBuffer | ArrayBufferView | null; shortCircuit?: boolean }

let lexerReady: Promise<void> | undefined;

export async function resolve(specifier: string, context: { parentURL?: string }, nextResolve: (s: string, c: unknown) => Promise<Resolved>): Promise<Resolved> {
  const resolved = await nextResolve(specifier, context);
  const url = urlInHostGraph(resolved.url, context.parentURL);
  return url === resolved.url ? resolved : { ...resolved, url };
}

export async function load(url: string, context: unknown, nextLoad: (u: string, c: unknown) => Promise<Loaded>): Promise<Loaded> {
  if (hostQuery(url) === undefined) return nextLoad(url, context);
  const result = await nextLoad(url, context);
  if (result.format === 'commonjs') {
    const filename = fileURLToPath(url);
    lexerReady ??= init();
    await lexerReady;
    let names: string[] = [];
    try {
      names = parse(readFileSync(filename, 'utf8')).exports;
    } catch {
      // Unparseable: default export only, as Node does.
    }
    return { format: 'module', source: commonJsFacade(filename, names), shortCircuit: true };
  }
  if (result.format === 'module' && result.source != null) return { ...result, source: withEvaluationSignal(result.source) };
  return result;
}
