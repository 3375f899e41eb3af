/**
 * Postgres as a simulated host: PGlite (Postgres compiled to WebAssembly) serving the Postgres
 * wire protocol with @electric-sql/pglite-socket, so an unmodified `pg` client in another host
 * connects to it by host name.
 *
 *     import { Sim } from 'dst-runtime';
 *     import { postgres } from 'dst-runtime/services/postgres';
 *
 *     sim.host('db', postgres({ dataDir: '/var/lib/postgresql/data' }));
 *     // or, with the defaults (in memory, initdb at every boot): sim.host('db', { main: 'dst-runtime/services/postgres' })
 *
 * This one file is both: imported by a test, it gives postgres() and preparePostgres(); run as a
 * module host's main (its URL then carries the host's query), it starts the database.
 *
 * PGlite and pglite-socket are optional peer dependencies: the project installs them
 * (`npm install --save-dev @electric-sql/pglite@0.5.14 @electric-sql/pglite-socket@0.2.17`).
 * They are found from dst-runtime's own location, then from `from` (default: the working
 * directory).
 *
 * Start-up happens inside virtual time (its file reads, compiles and imports are real work the
 * simulation waits for), so it takes no virtual time and replays from the seed. What makes it
 * fast and deterministic (measured in docs/notes/pglite.md):
 * - a template data directory, made once per PGlite version by a child process, synchronously,
 *   outside the simulation (postgres() does it before returning; runs never see whether it
 *   existed), loaded at every boot instead of running initdb (4x faster);
 * - the WebAssembly modules and the data bundle cached in the process, filled synchronously
 *   (filled by held asynchronous work, the first run in a process had more events than later ones).
 *
 * With a data directory (`dataDir`, PGDATA), the database lives on the host's disk: with
 * `disk: 'simulated'` a machine crash loses what Postgres did not fsync and Postgres recovers
 * from its WAL at the next boot. For that, Postgres runs with fsync on (PGlite turns it off by
 * default), WAL flushed with fsync, and Emscripten's NODEFS given the fsync it lacks.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const PGLITE = '@electric-sql/pglite';
const SOCKET = '@electric-sql/pglite-socket';
/** The versions this service was built and measured with (pglite-socket 0.2.17 requires pglite 0.5.14 exactly). */
export const TESTED_VERSIONS = { [PGLITE]: '0.5.14', [SOCKET]: '0.2.17' };
const INSTALL = `npm install --save-dev ${PGLITE}@${TESTED_VERSIONS[PGLITE]} ${SOCKET}@${TESTED_VERSIONS[SOCKET]}`;

/** A usage problem of the Postgres service (what to install, an option out of range). */
export class PostgresServiceError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PostgresServiceError';
    this.code = 'DST_POSTGRES';
  }
}

/**
 * Where package `name` is installed, looking from each directory of `from` in turn (as Node's
 * resolution would from a file there): its directory, version and ES module entry's file URL.
 */
function findPackage(name, from) {
  for (const dir of from) {
    let entry;
    try {
      entry = createRequire(path.join(dir, 'noop.js')).resolve(name);
    } catch {
      continue;
    }
    // Up from the entry to the package's own package.json.
    for (let at = path.dirname(entry); at !== path.dirname(at); at = path.dirname(at)) {
      const file = path.join(at, 'package.json');
      if (!fs.existsSync(file)) continue;
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (pkg.name !== name) continue;
      const dot = pkg.exports?.['.'];
      const esm = (typeof dot?.import === 'string' ? dot.import : dot?.import?.default) ?? pkg.module ?? pkg.main;
      return { dir: at, version: pkg.version, url: pathToFileURL(path.join(at, esm)).href };
    }
  }
  return undefined;
}

/** PGlite and pglite-socket, or a PostgresServiceError that says what to install. */
function findPglite(from) {
  const dirs = [path.dirname(SELF), ...from];
  const pglite = findPackage(PGLITE, dirs);
  const socket = findPackage(SOCKET, dirs);
  const missing = [pglite === undefined ? PGLITE : undefined, socket === undefined ? SOCKET : undefined].filter(Boolean);
  if (missing.length > 0) {
    throw new PostgresServiceError(
      `dst-runtime/services/postgres needs ${missing.join(' and ')}, which ${missing.length === 1 ? 'is' : 'are'} not installed ` +
        `(looked from ${dirs.join(', ')}). They are optional peer dependencies of dst-runtime: install them in your project:\n    ${INSTALL}`,
    );
  }
  return { pglite, socket };
}

/** Where templates are kept: the project's node_modules/.cache, as other tools keep theirs. */
function cacheDir(from) {
  return process.env.DST_PG_CACHE || path.join(from, 'node_modules', '.cache', 'dst-runtime');
}

/**
 * Makes (once per PGlite version and cache directory) the template data directory a fresh
 * Postgres boots from, synchronously, in a child process: so no run in this process ever sees
 * whether it existed. Returns the template's path. Call it outside the simulation (postgres()
 * does), e.g. before a test's first run; it takes a few seconds the first time.
 */
export function preparePostgres(options = {}) {
  const from = resolveFrom(options.from);
  const { pglite } = findPglite([from]);
  const file = path.join(cacheDir(from), `pglite-${pglite.version}-template.tar`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync(process.execPath, [SELF, '--make-template', file, pglite.url], { stdio: ['ignore', 'ignore', 'inherit'] });
  return file;
}

function resolveFrom(from) {
  if (from === undefined) return process.cwd();
  const text = from instanceof URL || String(from).startsWith('file:') ? fileURLToPath(from) : String(from);
  // A file (import.meta.url of the scenario) stands for its directory.
  return fs.existsSync(text) && fs.statSync(text).isFile() ? path.dirname(text) : path.resolve(text);
}

/**
 * A module host that runs Postgres: pass it to sim.host(name, ...). Options:
 * - `port`: where it listens (default 5432);
 * - `dataDir`: the data directory, on the host's disk (with `disk: 'simulated'`, a crash tests
 *   Postgres' own recovery); default: in memory, empty at every boot;
 * - `template`: boot from a prepared data directory (default true; false runs initdb every boot,
 *   about 4 times slower);
 * - `maxConnections`: clients served at once (default 16; PGlite is one session, see the guide);
 * - `log`: print Postgres' log lines (default false);
 * - `from`: where PGlite is installed (a directory, or import.meta.url of a file beside
 *   node_modules; default the working directory);
 * - `env`: more environment for the host.
 */
export function postgres(options = {}) {
  const known = ['port', 'dataDir', 'template', 'maxConnections', 'log', 'from', 'env'];
  const where = 'Failed to configure the Postgres service';
  if (options === null || typeof options !== 'object') throw new PostgresServiceError(`${where}: options must be an object, got ${String(options)}`);
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new PostgresServiceError(`${where}: unknown option "${key}" (known: ${known.join(', ')})`);
  }
  const { port = 5432, dataDir, template = true, maxConnections = 16, log = false, env = {} } = options;
  if (!(Number.isInteger(port) && port > 0 && port < 65536)) throw new PostgresServiceError(`${where}: port must be an integer in 1..65535, got ${String(port)}`);
  if (!(Number.isInteger(maxConnections) && maxConnections > 0)) throw new PostgresServiceError(`${where}: maxConnections must be a positive integer, got ${String(maxConnections)}`);
  if (dataDir !== undefined && !(typeof dataDir === 'string' && path.isAbsolute(dataDir))) {
    throw new PostgresServiceError(`${where}: dataDir must be an absolute path (on the host's disk), got ${JSON.stringify(dataDir)}`);
  }
  const from = resolveFrom(options.from);
  findPglite([from]); // fails here, in the test, naming what to install
  return {
    main: SELF,
    env: {
      ...env,
      PORT: String(port),
      ...(dataDir === undefined ? {} : { PGDATA: dataDir }),
      ...(template ? { DST_PG_TEMPLATE: preparePostgres({ from }) } : {}),
      DST_PG_MAX_CONNECTIONS: String(maxConnections),
      DST_PGLITE_FROM: from,
      ...(log ? { DST_PG_LOG: '1' } : {}),
    },
  };
}

/** The start parameters that make Postgres durable on a real (or simulated) disk: fsync on, WAL flushed by fsync. */
function durableStartParams(PGlite) {
  return [...PGlite.defaultStartParams.filter((p) => p !== '-F'), '-c', 'wal_sync_method=fsync'];
}

/**
 * Emscripten's NODEFS (PGlite's file system over Node's synchronous fs) has no fsync: Postgres'
 * fsync() returned 0 and nothing reached the disk (21 statements, 0 fsyncs; after a crash the
 * table was gone). This extension gives it one, before Postgres starts.
 */
const nodefsFsync = {
  name: 'dst-runtime-nodefs-fsync',
  setup: async (_pg, emscriptenOpts) => ({
    emscriptenOpts: {
      ...emscriptenOpts,
      preRun: [
        ...(emscriptenOpts.preRun ?? []),
        (module) => {
          module.FS.filesystems.NODEFS.stream_ops.fsync = (stream) => {
            fs.fsyncSync(stream.nfd);
            return 0;
          };
        },
      ],
    },
  }),
};

/** fsync every file and directory under `dir`, as initdb does at its end (a template is written unsynced). */
function syncTree(dir) {
  const sync = (p) => {
    const fd = fs.openSync(p, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  };
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) syncTree(p);
    else if (entry.isFile()) sync(p);
  }
  sync(dir);
}

/**
 * The WebAssembly modules and the data bundle of a PGlite installation, made once per process,
 * synchronously: every run then makes the same calls whatever ran before it.
 */
function cachedAssets(pglite) {
  const key = Symbol.for('dst-runtime.postgres.assets');
  const all = (globalThis[key] ??= new Map());
  let assets = all.get(pglite.dir);
  if (assets === undefined) {
    const dist = path.join(pglite.dir, 'dist');
    assets = {
      pgliteWasmModule: new WebAssembly.Module(fs.readFileSync(path.join(dist, 'pglite.wasm'))),
      initdbWasmModule: new WebAssembly.Module(fs.readFileSync(path.join(dist, 'initdb.wasm'))),
      fsBundle: new Blob([fs.readFileSync(path.join(dist, 'pglite.data'))]),
    };
    all.set(pglite.dir, assets);
  }
  return assets;
}

/** The service: run as a module host's main. */
async function serve() {
  const env = process.env;
  const from = env.DST_PGLITE_FROM ? [env.DST_PGLITE_FROM] : [process.cwd()];
  const { pglite, socket } = findPglite(from);
  const { PGlite } = await import(pglite.url);
  const { PGLiteSocketServer } = await import(socket.url);
  const options = { ...cachedAssets(pglite) };
  const dataDir = env.PGDATA || undefined;
  if (dataDir !== undefined) {
    options.dataDir = dataDir;
    options.startParams = durableStartParams(PGlite);
    options.extensions = { nodefsFsync };
  }
  const template = env.DST_PG_TEMPLATE || undefined;
  const initialised = dataDir !== undefined && fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (template !== undefined && !initialised) options.loadDataDir = new Blob([fs.readFileSync(template)]);
  if (env.DST_PG_LOG === '1') {
    options.onStderr = (text) => {
      console.error(`[postgres] ${text}`);
      return false;
    };
  }
  const db = await PGlite.create(options);
  if (dataDir !== undefined && options.loadDataDir !== undefined) syncTree(dataDir);
  const server = new PGLiteSocketServer({ db, port: Number(env.PORT || 5432), host: '0.0.0.0', maxConnections: Number(env.DST_PG_MAX_CONNECTIONS || 16) });
  await server.start();
}

/** The template maker, in a child process of preparePostgres(): `node postgres.mjs --make-template <file> <pglite url>`. */
async function makeTemplate(file, pgliteUrl) {
  const { PGlite } = await import(pgliteUrl);
  const db = await PGlite.create();
  const tar = await db.dumpDataDir('none');
  await db.close();
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, Buffer.from(await tar.arrayBuffer()));
  fs.renameSync(partial, file); // whole or not at all, also for a concurrent preparer
}

// A module host's main (its process.argv[1] is this file, inside a simulation: a host's modules
// see their files' own URLs, so import.meta.url does not tell), or the template maker's child.
const main = path.resolve(process.argv[1] ?? '') === SELF;
if (main && process.argv[2] === '--make-template') {
  await makeTemplate(process.argv[3], process.argv[4]);
} else if (main && globalThis[Symbol.for('dst-runtime.requireForHost')] !== undefined) {
  await serve();
}
