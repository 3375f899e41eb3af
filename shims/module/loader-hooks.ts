/**
 * dst-runtime's module loader hooks for module.register (Node 20, and 22 before 22.15): they run
 * on Node's loader thread, built on their own into dist/loader-hooks.mjs. The rules are those
 * of module-graph.ts, which the in-thread hooks of module-hosts.ts share; only the asynchronous
 * shape and the lexer (the WebAssembly build, which needs init()) differ.
 */
import { init, parse } from 'cjs-module-lexer';
import { hostQuery, type Loaded, loadedInHostGraph, type Resolved, resolvedInHostGraph } from './module-graph.js';

let lexerReady: Promise<void> | undefined;

export async function resolve(specifier: string, context: { parentURL?: string }, nextResolve: (s: string, c: unknown) => Promise<Resolved>): Promise<Resolved> {
  return resolvedInHostGraph(await nextResolve(specifier, context), context.parentURL);
}

export async function load(url: string, context: unknown, nextLoad: (u: string, c: unknown) => Promise<Loaded>): Promise<Loaded> {
  if (hostQuery(url) === undefined) return nextLoad(url, context);
  const result = await nextLoad(url, context);
  if (result.format === 'commonjs') await (lexerReady ??= init());
  return loadedInHostGraph(url, result, (source) => parse(source).exports);
}
