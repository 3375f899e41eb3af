// dst-runtime's module loader hooks (registered with module.register; they run on Node's
// loader thread). They give each simulated host incarnation its own module instances:
//
// - resolve: a module imported from a host's module graph (its URL carries
//   ?dst-host=<name>&dst-boot=<n>&dst-run=<k>) resolves to a URL with the same query, so the ESM loader,
//   which caches by URL, makes a fresh instance per host and per restart - node_modules too.
// - load: a CommonJS file inside a host graph becomes a small ESM module that requires it
//   through the host's own CommonJS cache (globalThis[Symbol.for('dst-runtime.requireForHost')]),
//   exporting module.exports as default plus the names cjs-module-lexer finds, as Node does.
// - every module of a host graph first tells the runtime that evaluation has started
//   (globalThis[Symbol.for('dst-runtime.evaluating')]): loading is real asynchronous work, so
//   the simulation waits for it and resumes once the graph starts to run.
//
// URLs without the query are left alone: these hooks stay registered for the whole process.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { init, parse } from 'cjs-module-lexer';

const QUERY = /[?&]dst-host=[^&]*&dst-boot=\d+&dst-run=\d+/;
const SIGNAL = "globalThis[Symbol.for('dst-runtime.evaluating')]?.();";
let lexerReady;

function hostQuery(url) {
  if (typeof url !== 'string' || !url.startsWith('file:')) return undefined;
  const match = QUERY.exec(url);
  return match ? match[0].replace(/^&/, '?') : undefined;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const query = hostQuery(context.parentURL);
  if (query === undefined || !resolved.url.startsWith('file:') || QUERY.test(resolved.url)) return resolved;
  const separator = resolved.url.includes('?') ? '&' : '?';
  return { ...resolved, url: `${resolved.url}${separator}${query.slice(1)}` };
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

export async function load(url, context, nextLoad) {
  const query = hostQuery(url);
  if (query === undefined) return nextLoad(url, context);
  const result = await nextLoad(url, context);
  if (result.format === 'commonjs') {
    const filename = fileURLToPath(url);
    lexerReady ??= init();
    await lexerReady;
    let names = [];
    try {
      names = parse(readFileSync(filename, 'utf8')).exports;
    } catch {
      // Unparseable: default export only, as Node does.
    }
    const named = [...new Set(names)].filter((n) => n !== 'default');
    const lines = [
      SIGNAL,
      `const m = globalThis[Symbol.for('dst-runtime.requireForHost')](${JSON.stringify(filename)});`,
      'export default m;',
      ...named.map((n, i) =>
        IDENTIFIER.test(n)
          ? `const e${i} = m?.[${JSON.stringify(n)}]; export { e${i} as ${n} };`
          : `const e${i} = m?.[${JSON.stringify(n)}]; export { e${i} as ${JSON.stringify(n)} };`,
      ),
    ];
    return { format: 'module', source: lines.join('\n'), shortCircuit: true };
  }
  if (result.format === 'module' && result.source != null) {
    let source = typeof result.source === 'string' ? result.source : Buffer.from(result.source).toString('utf8');
    // Keep line numbers: the signal goes on the first line (after a shebang, on the second).
    if (source.startsWith('#!')) {
      const end = source.indexOf('\n');
      source = end === -1 ? `${source}\n${SIGNAL}` : `${source.slice(0, end + 1)}${SIGNAL}${source.slice(end + 1)}`;
    } else {
      source = `${SIGNAL}${source}`;
    }
    return { ...result, source };
  }
  return result;
}
