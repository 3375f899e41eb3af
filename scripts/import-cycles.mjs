/**
 * The import graph of the TypeScript sources at the type level (`import type` counts: a file
 * that names another's types needs it to be read), and the circles in it: groups of files that
 * import each other, directly or around. Prints one line per circle; exits 1 when there is one
 * the layering does not allow (see ALLOWED_CIRCLES).
 *
 *     node scripts/import-cycles.mjs
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * Circles that are one unit by design: Network owns its TCP and UDP stacks, which send their
 * packets through it (runtime/network/ reads as one).
 */
export const ALLOWED_CIRCLES = [['runtime/network/network.ts', 'runtime/network/tcp.ts', 'runtime/network/udp.ts']];

/** Every .ts file of runtime/ and shims/ and the entries, each with the files it imports. */
export function importGraph(root = ROOT) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir)) {
      const file = path.join(dir, entry);
      if (statSync(file).isDirectory()) walk(file);
      else if (file.endsWith('.ts') && !file.endsWith('.d.ts')) files.push(file);
    }
  };
  walk(path.join(root, 'runtime'));
  walk(path.join(root, 'shims'));
  for (const entry of ['index.ts', 'register.ts']) files.push(path.join(root, entry));
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .filter(({ fileName }) => fileName.startsWith('.'))
      .map(({ fileName }) => path.resolve(path.dirname(file), fileName.replace(/\.js$/, '.ts')))
      .filter((target) => existsSync(target))
      .map((target) => path.relative(root, target));
    graph.set(path.relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan), each sorted. */
export function circles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file), low.get(target)));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
    }
    if (low.get(file) !== index.get(file)) return;
    const circle = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      circle.push(member);
    } while (member !== file);
    if (circle.length > 1) found.push(circle.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found;
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const graph = importGraph();
  const allowed = new Set(ALLOWED_CIRCLES.map((c) => [...c].sort().join(' ')));
  let bad = 0;
  for (const circle of circles(graph)) {
    const ok = allowed.has(circle.join(' '));
    if (!ok) bad++;
    console.log(`${ok ? 'allowed' : 'CIRCLE '} [${circle.length}] ${circle.join(' ')}`);
  }
  console.log(`${graph.size} files, ${[...graph.values()].reduce((n, t) => n + t.length, 0)} imports, ${bad} circle(s) not allowed`);
  process.exitCode = bad > 0 ? 1 : 0;
}
