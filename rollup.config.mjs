// Builds dist/ from the entry points listed in package.json "exports":
//   dist/<entry>.cjs   the implementation (CommonJS, shared chunks between entries)
//   dist/<entry>.mjs   a thin ESM wrapper that imports the .cjs, so ESM and CJS users share ONE
//                      instance of the runtime (no dual-package hazard: one active simulation)
//   dist/<entry>.d.ts  bundled type declarations
// except that the main entry's implementation is dist/runtime.cjs, and dist/index.cjs is
// entry.cjs: it loads the runtime in Node's own realm when a test runner evaluates it in a vm
// context (Jest, Vitest's vm pools), and registers that context through dist/realm.cjs.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import typescript from '@rollup/plugin-typescript';
import { dts } from 'rollup-plugin-dts';

// Start from an empty dist/: chunk names carry a content hash, so every build that changed the
// runtime left its old chunks behind (138 files, 24 MB after a day of work), and "files" in
// package.json publishes the whole directory.
rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/**
 * The sources of a source map, relative to the map as the format says. The TypeScript plugin's
 * come out one or two levels too high (dist/index.cjs.map named ../../runtime/sim.ts), so a
 * stack mapped through them (node --enable-source-maps; Jest and Vitest map every stack) named
 * files outside the package, where dst-runtime could not tell its own frames from the program's
 * (runtime/trace/site.ts). Every source is a file of this repository: re-root it here.
 */
function sourcemapPathTransform(relativeSourcePath, sourcemapPath) {
  const source = path.join(ROOT, relativeSourcePath.replace(/^(\.\.\/)+/, ''));
  return path.relative(path.dirname(sourcemapPath), source);
}

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/**
 * The test-runner integrations (dst-runtime/vitest, ...): each is one small file that imports its
 * runner's test functions and the package's main entry as externals, never the runtime's code
 * itself, so under Jest (which evaluates node_modules in each test file's vm context) it is
 * evaluated there, gets Jest's own `test`, and reaches the one runtime through dist/index.cjs.
 * Vitest cannot be required: its integration is an ES module only.
 */
const INTEGRATIONS = { vitest: ['es'], jest: ['cjs'], 'node-test': ['cjs'], mocha: ['cjs'] };
/** What the integrations import and must not bundle. */
const RUNNER_PACKAGES = new Set(['dst-runtime', 'vitest', '@jest/globals', 'mocha']);

/**
 * "./register" -> "register", "." -> "index"; source is <name>.ts at the top level unless listed in SOURCES.
 * Exports served from outside dist/ (services/postgres.mjs, shipped as written) are not built.
 */
const builtHere = (target) => typeof target === 'object' && Object.values(target).some((file) => typeof file === 'string' && file.startsWith('./dist/'));
const entries = Object.keys(pkg.exports)
  .filter((key) => key !== './package.json' && builtHere(pkg.exports[key]))
  .map((key) => (key === '.' ? 'index' : key.slice(2)))
  .filter((name) => !(name in INTEGRATIONS));

/** Entries whose source lives with their implementation instead of at the top level. */
const SOURCES = { check: 'runtime/check/index.ts' };

const input = Object.fromEntries(entries.map((name) => [name, SOURCES[name] ?? `${name}.ts`]));

/**
 * The JavaScript entries: the main one's implementation is runtime.cjs; realm.cjs,
 * register-start.cjs (register mode itself, loaded by register.cjs once Node's compile cache is
 * on: runtime/compile-cache.ts) and program-seeds.cjs (the explorer's many-seeds-per-process
 * runner, cli/dst.mjs) are internal.
 */
const { index: mainSource, ...otherInputs } = input;
const jsInput = { runtime: mainSource, ...otherInputs, realm: 'realm.ts', 'register-start': 'register-start.ts', 'program-seeds': 'shims/program-seeds.ts' };
/** ESM wrappers: the file each imports, by the entry chunk it re-exports. */
const ESM_WRAPPER_TARGET = { runtime: 'index' };
const INTERNAL_ENTRIES = new Set(['realm', 'register-start', 'program-seeds']);
const external = (id) => id.startsWith('node:') || Object.keys(pkg.dependencies ?? {}).some((d) => id === d || id.startsWith(`${d}/`));

/**
 * Renders `import()` of the runtime's own modules as a synchronous `require()` of the target
 * chunk (runtime/lazy-module.ts): feature code sits in chunks of its own and loads at its first
 * use, so `node --import dst-runtime/register` of an empty program does not parse, compile or run
 * it (docs/benchmarks.md, figure 12). An `import()` of anything else (a program's module, an
 * npm package) is left to rollup.
 */
function syncDynamicImports() {
  return {
    name: 'sync-dynamic-imports',
    renderDynamicImport({ format, targetChunk }) {
      if (format !== 'cjs' || targetChunk === null) return null;
      return { left: 'require(', right: ')' };
    },
  };
}

/** Emits dist/<entry>.mjs re-exporting the CJS entry's named exports (and, for the main build, dist/index.cjs). */
function esmWrappers({ main = true } = {}) {
  return {
    name: 'esm-wrappers',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.isEntry || INTERNAL_ENTRIES.has(chunk.name)) continue;
        const target = ESM_WRAPPER_TARGET[chunk.name] ?? chunk.name;
        const names = chunk.exports.filter((name) => name !== 'default');
        const lines = [
          `// ESM entry: re-exports ./${target}.cjs so that import and require share one runtime.`,
          `import cjs from './${target}.cjs';`,
          ...(names.length > 0 ? [`export const { ${names.join(', ')} } = cjs;`] : []),
          `export default cjs;`,
          '',
        ];
        this.emitFile({ type: 'asset', fileName: `${target}.mjs`, source: lines.join('\n') });
      }
      if (main) this.emitFile({ type: 'asset', fileName: 'index.cjs', source: readFileSync(new URL('./entry.cjs', import.meta.url), 'utf8') });
    },
  };
}

/**
 * dist/<name>.cjs for the ES-module-only integrations (Vitest's): `require('dst-runtime/vitest')`
 * gets an error that says to import it, not Node's "not exported" (integrations/vitest-require.cjs).
 */
function requireStubs(names) {
  return {
    name: 'require-stubs',
    generateBundle() {
      const source = readFileSync(new URL('./integrations/vitest-require.cjs', import.meta.url), 'utf8');
      for (const name of names) this.emitFile({ type: 'asset', fileName: `${name}.cjs`, source });
    },
  };
}

export default [
  {
    input: jsInput,
    external,
    output: {
      dir: 'dist',
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: 'chunks/[name]-[hash].cjs',
      sourcemap: true,
      sourcemapPathTransform,
      exports: 'named',
      generatedCode: 'es2015',
    },
    plugins: [
      typescript({ tsconfig: './tsconfig.json', outDir: 'dist', declaration: false, sourceMap: true, noEmitOnError: true, removeComments: true }),
      syncDynamicImports(),
      esmWrappers(),
    ],
  },
  // The module loader hooks for module.register (Node 20): an ES module of its own, run on
  // Node's loader thread, so it cannot share the CommonJS chunks of the entries above.
  {
    input: 'shims/module/loader-hooks.ts',
    external,
    output: { file: 'dist/loader-hooks.mjs', format: 'es', sourcemap: true, sourcemapPathTransform },
    plugins: [typescript({ tsconfig: './tsconfig.json', outDir: 'dist', declaration: false, sourceMap: true, noEmitOnError: true, removeComments: true })],
  },
  // The test-runner integrations: dist/<name>.cjs with an ESM wrapper, or dist/<name>.mjs alone.
  ...['cjs', 'es'].map((format) => {
    const names = Object.keys(INTEGRATIONS).filter((name) => INTEGRATIONS[name].includes(format));
    return {
      input: Object.fromEntries(names.map((name) => [name, `integrations/${name}.ts`])),
      external: (id) => external(id) || RUNNER_PACKAGES.has(id),
      output: {
        dir: 'dist',
        format,
        entryFileNames: format === 'cjs' ? '[name].cjs' : '[name].mjs',
        // The main entry as the package ships it: dist/index.cjs finds the runtime's one instance.
        paths: { 'dst-runtime': format === 'cjs' ? './index.cjs' : './index.mjs' },
        sourcemap: true,
        sourcemapPathTransform,
        exports: 'named',
        generatedCode: 'es2015',
      },
      plugins: [
        typescript({ tsconfig: './tsconfig.json', outDir: 'dist', declaration: false, sourceMap: true, noEmitOnError: true, removeComments: true }),
        ...(format === 'cjs' ? [esmWrappers({ main: false })] : [requireStubs(names)]),
      ],
    };
  }),
  // Declarations are bundled per entry, without shared chunks: each dist/<entry>.d.ts is whole,
  // so one entry's declarations (and docs/api.md, generated from dist/index.d.ts) do not move
  // into a chunk when another entry starts sharing a module such as runtime/errors.ts.
  ...entries.map((name) => ({
    input: { [name]: input[name] },
    external,
    output: { dir: 'dist', format: 'es', entryFileNames: '[name].d.ts' },
    plugins: [dts({ tsconfig: './tsconfig.json', compilerOptions: { declaration: true } })],
  })),
  // An integration's declarations import dst-runtime's and its runner's from those packages.
  ...Object.keys(INTEGRATIONS).map((name) => ({
    input: { [name]: `integrations/${name}.ts` },
    external: (id) => external(id) || RUNNER_PACKAGES.has(id),
    output: { dir: 'dist', format: 'es', entryFileNames: '[name].d.ts' },
    plugins: [dts({ tsconfig: './tsconfig.json', compilerOptions: { declaration: true } })],
  })),
];
