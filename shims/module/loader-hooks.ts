/**
 * dst-runtime's module loader hooks for module.register (Node 20, and 22 before 22.15): they run
 * on Node's loader thread, built on their own into dist/loader-hooks.mjs. The rules are those
 * of module-graph.ts, which the in-thread hooks of module-hosts.ts share; only the asynchronous
 * shape and the lexer (the WebAssembly build, which needs init()) differ, and these wrap each
 * dynamic import() of a host's ES modules, which the loader thread makes real asynchronous work
 * (module-graph.ts).
 */
import { init, parse } from 'cjs-module-lexer';
import { parse as parseEsm } from 'es-module-lexer/js';
import { hostQuery, isCommonJsFormat, type Loaded, loadedInHostGraph, loadedOutsideHostGraphs, type Resolved, resolvedInHostGraph, setSharedDirectory, unwrapHostImport } from './module-graph.js';

// This file is dist/loader-hooks.mjs: the build's directory holds the modules every host shares.
setSharedDirectory(new URL('./', import.meta.url).href);

let lexerReady: Promise<void> | undefined;
/** Register mode: every ES module's dynamic imports are held, not only a host graph's (module.register's data). */
let heldEverywhere = false;

export function initialize(data: { heldImports?: boolean } | undefined): void {
  heldEverywhere = data?.heldImports === true;
}

export async function resolve(specifier: string, context: { parentURL?: string }, nextResolve: (s: string, c: unknown) => Promise<Resolved>): Promise<Resolved> {
  const wanted = unwrapHostImport(specifier, context);
  return resolvedInHostGraph(await nextResolve(wanted.specifier, wanted.context), wanted.context.parentURL);
}

export async function load(url: string, context: unknown, nextLoad: (u: string, c: unknown) => Promise<Loaded>): Promise<Loaded> {
  if (hostQuery(url) === undefined) {
    if (!heldEverywhere) return nextLoad(url, context);
    return loadedOutsideHostGraphs(url, await nextLoad(url, context), dynamicImports);
  }
  const result = await nextLoad(url, context);
  if (isCommonJsFormat(result.format)) await (lexerReady ??= init());
  return loadedInHostGraph(url, result, parse, dynamicImports);
}

/** The dynamic import() expressions of an ES module (es-module-lexer's pure JavaScript build: no init). */
function dynamicImports(source: string): Array<{ ss: number; se: number }> {
  return parseEsm(source)[0].filter((i) => i.d > -1);
}
