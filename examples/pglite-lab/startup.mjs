// Start-up cost of PGlite, plain Node, one fresh process per mode.
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
const dist = new URL('./node_modules/@electric-sql/pglite/dist/', import.meta.url);
const mode = process.argv[2];
const t = () => performance.now();
const out = {};
let t0 = t();
const pgliteBytes = fs.readFileSync(new URL('pglite.wasm', dist));
const initdbBytes = fs.readFileSync(new URL('initdb.wasm', dist));
const dataBytes = fs.readFileSync(new URL('pglite.data', dist));
out.readMs = t() - t0;
const opts = {};
if (mode.includes('module')) {
  t0 = t(); opts.pgliteWasmModule = await WebAssembly.compile(pgliteBytes); out.compilePgliteMs = t() - t0;
  t0 = t(); opts.initdbWasmModule = await WebAssembly.compile(initdbBytes); out.compileInitdbMs = t() - t0;
}
if (mode.includes('bundle')) opts.fsBundle = new Blob([dataBytes]);
if (mode.includes('datadir')) opts.loadDataDir = new Blob([fs.readFileSync(new URL('./pgdata.tar', import.meta.url).pathname)]);
t0 = t();
const db = await PGlite.create(opts);
out.createMs = t() - t0;
t0 = t();
const db2 = await PGlite.create(opts);
out.secondCreateMs = t() - t0;
if (mode === 'dump') {
  const tar = await db.dumpDataDir('none');
  fs.writeFileSync(new URL('./pgdata.tar', import.meta.url).pathname, Buffer.from(await tar.arrayBuffer()));
  const gz = await db.dumpDataDir('gzip');
  out.tarBytes = tar.size; out.gzBytes = gz.size;
}
t0 = t(); await db.query('select 1'); out.firstQueryMs = t() - t0;
console.log(mode, JSON.stringify(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Math.round(v)])))); process.exit(0);
