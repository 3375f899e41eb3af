// Prototype of a postgres service host: PGlite + the wire protocol on a port.
// PG_CACHE=1: compile the WebAssembly and read the data bundle once per process.
// PG_TEMPLATE=file.tar: start from a prepared data directory instead of running initdb.
import fs from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const mark = globalThis.__mark ?? (() => {});
mark('boot');
const dist = new URL('./node_modules/@electric-sql/pglite/dist/', import.meta.url);
const options = { dataDir: process.env.PG_DATADIR || undefined };
if (process.env.PG_CACHE) {
  const cache = (globalThis[Symbol.for('pglite-lab.cache')] ??= {});
  // Filled synchronously: no event, so a run's events do not depend on what ran before it.
  const { readFileSync } = await import('node:fs');
  cache.pglite ??= new WebAssembly.Module(readFileSync(new URL('pglite.wasm', dist)));
  cache.initdb ??= new WebAssembly.Module(readFileSync(new URL('initdb.wasm', dist)));
  cache.bundle ??= new Blob([readFileSync(new URL('pglite.data', dist))]);
  Object.assign(options, { pgliteWasmModule: cache.pglite, initdbWasmModule: cache.initdb, fsBundle: cache.bundle });
  mark('cache');
}
if (process.env.PG_TEMPLATE) {
  let exists = false;
  if (options.dataDir) exists = await fs.stat(`${options.dataDir}/PG_VERSION`).then(() => true, () => false);
  if (!exists) options.loadDataDir = new Blob([await fs.readFile(process.env.PG_TEMPLATE)]);
}
if (process.env.PG_FSYNC) {
  // Postgres with fsync on (PGlite passes -F by default), and Emscripten's NODEFS given the
  // fsync it lacks, so that Postgres' fsync()/fdatasync() reach the (simulated) disk.
  const { readFileSync, fsyncSync } = await import('node:fs');
  options.startParams = [...PGlite.defaultStartParams.filter((p) => p !== '-F'), '-c', 'wal_sync_method=fsync'];
  options.extensions = {
    nodefsFsync: {
      name: 'nodefs-fsync',
      setup: async (_pg, emscriptenOpts) => ({
        emscriptenOpts: {
          ...emscriptenOpts,
          preRun: [
            ...(emscriptenOpts.preRun ?? []),
            (mod) => {
              const ops = mod.FS.filesystems.NODEFS.stream_ops;
              ops.fsync = (stream) => { globalThis.__fsyncs = (globalThis.__fsyncs ?? 0) + 1; fsyncSync(stream.nfd); return 0; };
            },
          ],
        },
      }),
    },
  };
}
if (process.env.PG_LOG) {
  options.onStderr = (text) => { console.error(`[pg ${process.env.DST_HOST ?? 'db'}] ${text}`); return false; };
}
const db = await PGlite.create(options);
mark('created');
if (process.env.PG_FSYNC && options.loadDataDir && options.dataDir) {
  // As initdb does at its end (fsync_pgdata): the template's files were written unsynced.
  const { readdirSync, openSync, fsyncSync, closeSync } = await import('node:fs');
  const sync = (path) => { const fd = openSync(path, 'r'); fsyncSync(fd); closeSync(fd); };
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path); else sync(path);
    }
    sync(dir);
  };
  walk(options.dataDir);
  mark('synced');
}
const server = new PGLiteSocketServer({ db, port: 5432, host: '0.0.0.0', maxConnections: Number(process.env.PG_MAX_CONNECTIONS ?? 1) });
await server.start();
mark('listening');
