/**
 * The rules that give each module host incarnation its own module graph, shared by the two
 * ways dst-runtime hooks Node's ESM loader: in-thread hooks (module.registerHooks, Node >=
 * 22.15 and 24; module-hosts.ts) and hooks on Node's loader thread (module.register, Node 20;
 * loader-hooks.ts, built on its own into dist/loader-hooks.mjs). Functions of
 * URLs, sources and the files they name, holding no state of the runtime, so the loader thread
 * can run them too; each hook keeps only its sync or async shape and its thread's lexer.
 *
 * - A module imported from a host's graph (its URL carries ?dst-host=<name>&dst-boot=<n>&dst-run=<k>)
 *   resolves to a URL with the same query, so the ESM loader, which caches by URL, makes a
 *   fresh instance per host and per restart - node_modules too.
 * - A CommonJS file inside a host graph becomes a small ES module that requires it through the
 *   host's own CommonJS cache (globalThis[Symbol.for('dst-runtime.requireForHost')]),
 *   exporting module.exports as default plus the names cjs-module-lexer finds, as Node does.
 * - Every module of a host graph first tells the runtime that evaluation has started
 *   (globalThis[Symbol.for('dst-runtime.evaluating')]): loading is real asynchronous work, so
 *   the simulation waits for it and resumes once the graph starts to run.
 * - With a loader thread (module.register), a dynamic import() in an ES module of a host graph
 *   is made through globalThis[Symbol.for('dst-runtime.heldImport')](() => import(...)): each is a
 *   round trip to that thread, real work the simulation waits for too. In-thread hooks need
 *   no wrapper: their import() completes without a turn of the event loop.
 *
 * URLs without the query are left alone: the hooks stay registered for the whole process.
 * So are dst-runtime's own files (the build's directory, setSharedDirectory): a host that
 * imports dst-runtime (always(), scenarioContext()) must reach the one runtime the simulation
 * runs on, not a fresh copy of it that knows no world.
 */
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { extname, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a resolve hook gets from the next one, and what a load hook gets and returns. */
export interface Resolved {
  url: string;
  format?: string | null;
}
export interface Loaded {
  format: string;
  source?: string | ArrayBuffer | ArrayBufferView | null;
  shortCircuit?: boolean;
}

const QUERY = /[?&]dst-host=[^&]*&dst-boot=\d+&dst-run=\d+/;
/**
 * Marks the URL of a host's main module (a plain program's too: program-seeds.ts runs it as host
 * "main"): it is the host's entry, as the module `node <file>` runs (import.meta.main, a CommonJS
 * main's require.main). Not carried to imports (hostQuery stops before it).
 */
export const ENTRY_MARK = '&dst-entry=1';
/**
 * What a host's main module sees of import.meta.main (Node 22.18+, 24.2+): true, as for the
 * module `node <file>` runs (Node's loader sets it for the module it runs as main, and a host's
 * main is imported). Before, `if (import.meta.main) start()` did nothing in an explorer worker.
 */
const ENTRY_MAIN = "if('main'in import.meta)import.meta.main=true;";
const SIGNAL = "globalThis[Symbol.for('dst-runtime.evaluating')]?.();";
/**
 * What a host graph's module sees of its own URL is the file's, as in a process of its own: the
 * host query is how the loader keeps each incarnation's modules apart, not part of what the
 * program sees. `import.meta.url` is set to the URL without it (for the entry, the common check
 * `import.meta.url === pathToFileURL(process.argv[1]).href` then holds as under `node app.mjs`),
 * and `import.meta.resolve` answers without it (an import() of that answer from the module gets
 * the query back from the resolve hook). Before, an explorer worker's modules printed
 * `...?dst-host=main&dst-boot=1&dst-run=7`, a different text at every seed of the worker.
 */
const OWN_RESOLVE = `{const r=import.meta.resolve;if(typeof r==='function')import.meta.resolve=(s,p)=>r(s,p).replace(/${QUERY.source}(?:${ENTRY_MARK})?/,'');}`;

/** Makes a dynamic import() through module-hosts.ts's heldImport; a plain call once the runtime is gone. */
const HELD_IMPORT = "(globalThis[Symbol.for('dst-runtime.heldImport')]||(f=>f()))(()=>";
/** An argument that cannot move into an arrow function (`import(await name())`). */
const SUSPENDS = /\b(?:await|yield)\b/;

/** Where a dynamic `import(...)` expression starts and ends in a source (es-module-lexer's ss and se). */
export interface DynamicImport {
  ss: number;
  se: number;
}
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** file: URL of the directory whose modules every host shares (dst-runtime's build), with a trailing slash. */
let sharedDirectory: string | undefined;

/** Sets the directory of modules shared by every host graph (each thread's hooks set theirs). */
export function setSharedDirectory(url: string): void {
  sharedDirectory = url.endsWith('/') ? url : `${url}/`;
}

/** Whether a resolved URL is one of the modules every host shares. */
function shared(url: string): boolean {
  return sharedDirectory !== undefined && url.startsWith(sharedDirectory);
}

/** The host query of a file: URL (as "?dst-host=..."), or undefined outside every host graph. */
export function hostQuery(url: unknown): string | undefined {
  if (typeof url !== 'string' || !url.startsWith('file:')) return undefined;
  const match = QUERY.exec(url);
  return match ? match[0].replace(/^&/, '?') : undefined;
}

/** A host graph's module URL without its host query (and entry mark): the file's own URL, with any query of its own. */
export function withoutHostQuery(url: string): string {
  const at = url.search(QUERY);
  return at === -1 ? url : url.slice(0, at);
}

/** The URL a module resolved to, carrying its importer's host query when it has one. */
function urlInHostGraph(resolvedUrl: string, parentURL: string | undefined): string {
  const query = hostQuery(parentURL);
  if (query === undefined || !resolvedUrl.startsWith('file:') || QUERY.test(resolvedUrl) || shared(resolvedUrl)) return resolvedUrl;
  const separator = resolvedUrl.includes('?') ? '&' : '?';
  return `${resolvedUrl}${separator}${query.slice(1)}`;
}

/**
 * Whether Node's namespace of a CommonJS module has the export `'module.exports'` (the
 * module.exports object, as `default`): Node 23 and later.
 */
const MODULE_EXPORTS_NAME = Number(process.versions.node.split('.')[0]) >= 23;

/** The ES module standing for CommonJS file `filename` of a host graph, exporting `names`. */
function commonJsFacade(filename: string, names: readonly string[], entry: boolean): string {
  const named = [...new Set(names)].filter((n) => n !== 'default' && n !== 'module.exports');
  return [
    SIGNAL,
    `const m = globalThis[Symbol.for('dst-runtime.requireForHost')](${JSON.stringify(filename)}${entry ? ', true' : ''});`,
    'export default m;',
    ...(MODULE_EXPORTS_NAME ? ['export { m as "module.exports" };'] : []),
    ...named.map((n, i) => `const e${i} = m?.[${JSON.stringify(n)}]; export { e${i} as ${IDENTIFIER.test(n) ? n : JSON.stringify(n)} };`),
  ].join('\n');
}

/** What cjs-module-lexer finds in a CommonJS source: the names it assigns and the modules it re-exports. */
export interface CjsParse {
  readonly exports: readonly string[];
  readonly reexports: readonly string[];
}

/**
 * The names an ES module that imports CommonJS `filename` sees besides its default, as Node's
 * cjsPreparseModuleExports finds them: what cjs-module-lexer finds assigned, and the names of
 * each module it re-exports (`module.exports = require('./a')`, TypeScript's
 * `__exportStar(require('./a'), exports)`) where that resolves, from `filename`, to a .js or .cjs
 * file or one of an extension Node does not load (not JSON, not a builtin). An unreadable or
 * unparseable file has none (the default only); `seen` stops a cycle.
 */
function commonJsExportNames(filename: string, parseCjs: (source: string) => CjsParse, seen: Set<string>): string[] {
  if (seen.has(filename)) return [];
  seen.add(filename);
  let parsed: CjsParse;
  try {
    parsed = parseCjs(readFileSync(filename, 'utf8'));
  } catch {
    return [];
  }
  const names = [...parsed.exports];
  if (parsed.reexports.length === 0) return names;
  const require = createRequire(filename);
  const extensions = (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
  for (const specifier of parsed.reexports) {
    let resolved: string;
    try {
      resolved = require.resolve(specifier);
    } catch {
      continue;
    }
    const ext = extname(resolved);
    if (!isAbsolute(resolved) || !(ext === '.js' || ext === '.cjs' || !Object.hasOwn(extensions, ext))) continue;
    for (const name of commonJsExportNames(resolved, parseCjs, seen)) names.push(name);
  }
  return names;
}

/**
 * An ES module's source with the evaluation signal first; line numbers are kept (after a shebang,
 * on its second line). The columns of that line move by what is put in front; an inline source
 * map of the module's is moved with them (withColumnsShifted).
 */
function withEvaluationSignal(source: string | ArrayBuffer | ArrayBufferView, also = ''): string {
  const text = sourceText(source);
  const first = `${SIGNAL}${also}`;
  if (!text.startsWith('#!')) return withColumnsShifted(`${first}${text}`, 0, first.length);
  const end = text.indexOf('\n');
  return end === -1 ? `${text}\n${first}` : withColumnsShifted(`${text.slice(0, end + 1)}${first}${text.slice(end + 1)}`, 1, first.length);
}

/** The last inline source map comment of a source (`//# sourceMappingURL=data:application/json;...base64,...`). */
const INLINE_SOURCE_MAP = /^([ \t]*\/\/[#@][ \t]+sourceMappingURL=data:application\/json[^,\s]*;base64,)([A-Za-z0-9+/=]+)[ \t]*$/gm;
const BASE64_VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The first value of a VLQ segment, and the length of its text. */
function firstVlq(text: string): { value: number; length: number } | undefined {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < text.length; i++) {
    const digit = BASE64_VLQ.indexOf(text[i]!);
    if (digit === -1) return undefined;
    result += (digit & 31) << shift;
    if ((digit & 32) === 0) return { value: result & 1 ? -(result >>> 1) : result >>> 1, length: i + 1 };
    shift += 5;
  }
  return undefined;
}

function vlq(value: number): string {
  let rest = value < 0 ? (-value << 1) | 1 : value << 1;
  let out = '';
  do {
    let digit = rest & 31;
    rest >>>= 5;
    if (rest > 0) digit |= 32;
    out += BASE64_VLQ[digit];
  } while (rest > 0);
  return out;
}

/**
 * `text` whose inline source map says that generated line `line` (0-based) starts `columns`
 * further right: what the loader put in front of that line. A line's first segment carries its
 * generated column absolutely and the others relative to it, so moving that one moves the line.
 * Before, a TypeScript program run through tsx (whose esbuild output is one line) had every frame
 * of an explorer worker's stacks mapped to the wrong place. Maps that are not inline, or not
 * plain (index maps), are left as they are.
 */
function withColumnsShifted(text: string, line: number, columns: number): string {
  if (!text.includes('sourceMappingURL=data:')) return text;
  const matches = [...text.matchAll(INLINE_SOURCE_MAP)];
  const last = matches.at(-1);
  if (last === undefined || last.index === undefined) return text;
  let map: { mappings?: unknown; sections?: unknown };
  try {
    map = JSON.parse(Buffer.from(last[2]!, 'base64').toString('utf8')) as typeof map;
  } catch {
    return text;
  }
  if (typeof map.mappings !== 'string' || map.sections !== undefined) return text;
  const lines = map.mappings.split(';');
  const segment = lines[line];
  const first = segment === undefined || segment === '' ? undefined : firstVlq(segment);
  if (first === undefined) return text;
  lines[line] = `${vlq(first.value + columns)}${segment!.slice(first.length)}`;
  const shifted = Buffer.from(JSON.stringify({ ...map, mappings: lines.join(';') }), 'utf8').toString('base64');
  return `${text.slice(0, last.index)}${last[1]}${shifted}${text.slice(last.index + last[0].length)}`;
}

/** A `//# sourceURL=` (or `//@`) comment of the module's own, which V8 names its frames by. */
const SOURCE_URL_COMMENT = /^[ \t]*\/\/[#@][ \t]+sourceURL=/m;

/**
 * `text` naming its stack frames by the module's URL without the host query: V8 names a frame's
 * file in Error.stack, a CallSite's toString() and the source line of a fatal error by a
 * `sourceURL` comment when the script has one, else by the module's URL (a CallSite's
 * getFileName() keeps the module's URL either way: docs/notes/node-facts.md). Before, an explorer
 * worker's frames read `file:///app.mjs?dst-host=main&dst-boot=1&dst-run=7&dst-entry=1:2:15`,
 * a different text at every seed of the worker (a logger printing an error's stack). A module
 * with a sourceURL comment of its own keeps it, as under plain Node.
 */
function withOwnSourceUrl(text: string, url: string): string {
  if (SOURCE_URL_COMMENT.test(text)) return text;
  return `${text}\n//# sourceURL=${withoutHostQuery(url)}`;
}

/**
 * `text` with each dynamic `import(...)` expression made through HELD_IMPORT(() => import(...)):
 * on a loader thread, import() is real asynchronous work the simulation must wait for. Offsets
 * are those of `text` (the lexer ran on it); lines are kept. Left as they are: expressions the
 * lexer could not delimit, and those whose argument awaits or yields.
 */
function withHeldImports(text: string, imports: readonly DynamicImport[]): string {
  let out = '';
  let at = 0;
  for (const { ss, se } of [...imports].sort((a, b) => a.ss - b.ss)) {
    if (se <= ss || ss < at) continue;
    const expression = text.slice(ss, se);
    if (SUSPENDS.test(expression)) continue;
    out += `${text.slice(at, ss)}${HELD_IMPORT}${expression})`;
    at = se;
  }
  return at === 0 ? text : out + text.slice(at);
}

/** What the resolve hook returns: `resolved`, carrying its importer's host query when it has one. */
export function resolvedInHostGraph(resolved: Resolved, parentURL: string | undefined): Resolved {
  // The one import of a require()d ES module's facade (requiredInHostGraph) is that module, which
  // Node's require already found to be one: without the format, the load of a .js file in a
  // package without "type" detects it again and prints MODULE_TYPELESS_PACKAGE_JSON, which
  // require() does not.
  if (parentURL !== undefined && REQUIRED_FACADE.test(parentURL)) return { ...resolved, format: 'module' };
  const url = urlInHostGraph(resolved.url, parentURL);
  return url === resolved.url ? resolved : { ...resolved, url };
}

/**
 * Whether a load's format is an ES module's or a CommonJS file's, TypeScript that Node strips
 * itself included (`module-typescript`, `commonjs-typescript`: .ts, .mts, .cts on Node 22.6+).
 */
export function isEsModuleFormat(format: string | null | undefined): boolean {
  return format === 'module' || format === 'module-typescript';
}
export function isCommonJsFormat(format: string | null | undefined): boolean {
  return format === 'commonjs' || format === 'commonjs-typescript';
}

/** A loaded module's source as text. */
export function sourceText(source: string | ArrayBuffer | ArrayBufferView): string {
  return typeof source === 'string' ? source : Buffer.from(source as Uint8Array).toString('utf8');
}

/** The dynamic imports `dynamicImports` finds in `text`; none when it cannot lex it (Node reports a real syntax error itself). */
function lexedImports<I extends DynamicImport>(text: string, dynamicImports: (source: string) => readonly I[]): readonly I[] {
  try {
    return dynamicImports(text);
  } catch {
    return [];
  }
}

/** `text` with its dynamic imports held (withHeldImports), as `dynamicImports` lexes them. */
function heldImportsOf(text: string, dynamicImports: (source: string) => readonly DynamicImport[]): string {
  return withHeldImports(text, lexedImports(text, dynamicImports));
}

/**
 * What the load hook returns for `url`, an ES module outside every host graph, in register mode
 * on a loader thread (Node 20) with DST_HELD_IMPORTS=1: as a host graph's module, its dynamic
 * imports held and the evaluation signal first (a held import whose graph waits at top level for
 * a simulated timer must stop holding, module-hosts.ts heldImport), so that a plain program's
 * `await import(...)` is the same real work, settled in the same 'io' event, whether the program
 * runs in register mode or as host "main" of `dst explore`'s worker. dst-runtime's own files pass
 * unchanged.
 */
export function loadedOutsideHostGraphs(
  url: string,
  result: Loaded,
  dynamicImports: (source: string) => readonly DynamicImport[],
): Loaded {
  if (result.format !== 'module' || result.source == null || !url.startsWith('file:') || shared(url)) return result;
  const text = sourceText(result.source);
  return { ...result, source: withEvaluationSignal(text.includes('import') ? heldImportsOf(text, dynamicImports) : text) };
}

/**
 * Makes an import() of a CommonJS file through module-hosts.ts's cjsImport(__filename, import, ...args);
 * a plain import once the runtime is gone.
 */
const CJS_IMPORT = "(globalThis[Symbol.for('dst-runtime.cjsImport')]||((f,i,s,o)=>i(s,o)))(__filename,(s,o)=>import(s,o),";

/**
 * The source of a CommonJS file with each `import(args)` made `cjsImport(__filename, (s, o) =>
 * import(s, o), args)` (module-hosts.ts), for the patched Module.prototype._compile
 * (code-cache.ts): no load hook sees a CommonJS file's source. cjsImport gives the specifier its
 * host's query (a module host's file: its URL has none, so what it imports would otherwise leave
 * the host graph, and be shared by every incarnation in the process) and holds the import where a
 * loader thread makes it real work. The arguments stay where they are, evaluated as before;
 * `import` up to its `(` is replaced (es-module-lexer's ss and d). Lines are kept.
 */
export function commonJsWithHostImports(text: string, dynamicImports: (source: string) => readonly (DynamicImport & { d: number })[]): string {
  const imports = lexedImports(text, dynamicImports);
  let out = '';
  let at = 0;
  for (const { ss, d } of [...imports].sort((a, b) => a.ss - b.ss)) {
    if (d <= ss || ss < at || text[d] !== '(' || text.slice(ss, d).includes('\n')) continue;
    out += `${text.slice(at, ss)}${CJS_IMPORT}`;
    at = d + 1;
  }
  return at === 0 ? text : out + text.slice(at);
}

/** The URL of a require()d ES module's facade (requiredInHostGraph): the host query is in its path, escaped by pathToFileURL. */
const REQUIRED_FACADE = /%3Fdst-host=[^&]*&dst-boot=\d+&dst-run=\d+$/;

/**
 * What Node compiles when a module host's CommonJS code require()s an ES module, where the hooks
 * run in-thread (module.registerHooks: Node 22.15+, 24): `filename` and `source` for
 * Module.prototype._compile (code-cache.ts). (On a loader thread, Node 20 loads a require()d
 * graph with no hooks at all: code-cache.ts requiredEsm.)
 *
 * Node compiles a require()d ES module under the URL of its file name (importSyncForRequire
 * keys its cache by pathToFileURL(filename)), which carries no host query: every incarnation in
 * the process got the one instance, and an explorer worker's second seed saw the first seed's
 * module state. Here Node compiles, under a file name of its own per incarnation (the file's with
 * the host query appended, which pathToFileURL escapes into the path), a facade that re-exports
 * the module as the host graph imports it (its URL with the query): the module itself is then
 * loaded as every module of the host graph is (its own instance per incarnation, through the
 * load hooks), and is the same instance the host's import() of it gets, as in Node.
 * `exportNames` are the module's export names (es-module-lexer's `n`): `default` is re-exported by name, as
 * `export *` leaves it out.
 */
export function requiredInHostGraph(filename: string, fileUrl: string, query: string, exportNames: readonly string[]): { filename: string; source: string } {
  const url = JSON.stringify(`${fileUrl}${query}`);
  const source = `export * from ${url};${exportNames.includes('default') ? `export { default } from ${url};` : ''}`;
  return { filename: `${filename}${query}`, source };
}

/** The prefix of a specifier that carries its importer's URL (with the host query) to the resolve hooks. */
const HOST_IMPORT = 'dst-host-import:';

/** `specifier`, as imported by the module at `parentURL` (a host graph's URL, with its query). */
export function hostImportSpecifier(specifier: string, parentURL: string): string {
  return `${HOST_IMPORT}${encodeURIComponent(parentURL)}|${specifier}`;
}

/**
 * What a resolve hook resolves: a specifier made by hostImportSpecifier becomes the specifier it
 * carries, imported from the URL it carries; any other passes unchanged.
 */
export function unwrapHostImport<C extends { parentURL?: string }>(specifier: string, context: C): { specifier: string; context: C } {
  if (!specifier.startsWith(HOST_IMPORT)) return { specifier, context };
  const bar = specifier.indexOf('|', HOST_IMPORT.length);
  if (bar === -1) return { specifier, context };
  return { specifier: specifier.slice(bar + 1), context: { ...context, parentURL: decodeURIComponent(specifier.slice(HOST_IMPORT.length, bar)) } };
}

/**
 * What the load hook returns for `url`, a module of a host graph, given what the next hook
 * loaded: a CommonJS file becomes its facade (its export names from `parseExports`, the
 * lexer of the caller's thread), an ES module gets the evaluation signal, anything else passes.
 * TypeScript files Node strips itself (.ts, .mts, .cts: formats `module-typescript` and
 * `commonjs-typescript`, Node 22.6+) are treated as their JavaScript formats: what is added is
 * JavaScript, and the lexers read type annotations as they read expressions. Before, a `.mts`
 * or `.cts` entry in an explorer worker kept its dynamic imports' modules from seed to seed and
 * saw `import.meta.main` false.
 */
export function loadedInHostGraph(
  url: string,
  result: Loaded,
  parseCjs: (source: string) => CjsParse,
  dynamicImports?: (source: string) => readonly DynamicImport[],
): Loaded {
  if (isCommonJsFormat(result.format)) {
    const filename = fileURLToPath(url);
    const names = commonJsExportNames(filename, parseCjs, new Set());
    return { format: 'module', source: commonJsFacade(filename, names, url.endsWith(ENTRY_MARK)), shortCircuit: true };
  }
  if (isEsModuleFormat(result.format) && result.source != null) {
    const source = dynamicImports === undefined ? result.source : heldImportsOf(sourceText(result.source), dynamicImports);
    const own = `import.meta.url=${JSON.stringify(withoutHostQuery(url))};${url.endsWith(ENTRY_MARK) ? ENTRY_MAIN : ''}${OWN_RESOLVE}`;
    return { ...result, source: withOwnSourceUrl(withEvaluationSignal(source, own), url) };
  }
  return result;
}
