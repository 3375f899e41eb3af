// A throwaway prototype, not wired into the runtime (issue 16, item 3): what vm.SourceTextModule
// with cachedData would give a re-load of the KV replica's ES modules (packages/kv/src), outside
// the runtime, to back a goal proposal (docs/benchmarks.md, "ES modules with cached data").
//   node --experimental-vm-modules --no-warnings bench/prototypes/esm-cached-data.mjs packages/kv/src 30
// Each load: a fresh graph (new SourceTextModule per file, as each host incarnation gets), linked
// (builtins as SyntheticModules over the real ones, loaded before the first load, as the runtime
// has them), evaluated. Each source ends in a comment that names its load, the same length every
// time (V8 checks a code cache against the source's length and flags, not its text). Interleaved:
//   first: the first load, compiled without cache;
//   nocache: a re-load compiled again (what Node's ESM loader does for each incarnation's URLs);
//   cached: a re-load given the cachedData made by the first load (made after linking: a
//           SourceTextModule refuses to make it once evaluated);
//   same: the first load's very text again, without cachedData (V8 does not serve a module's
//         compile from its per-isolate compilation cache: it costs what nocache costs).
// SourceTextModule has no cachedDataRejected (undefined on 22 and 24): acceptance shows in the time.
// Prints CPU ms (process.cpuUsage) of the first load and the median of each kind of re-load.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { createRequire } from 'node:module';
const [dirArg, loadsText = '30'] = process.argv.slice(2);
const dir = path.resolve(dirArg);
const require = createRequire(import.meta.url);
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.mjs'));
const texts = new Map(files.map((f) => [path.join(dir, f), fs.readFileSync(path.join(dir, f), 'utf8')]));
const cache = new Map();
let n = 0;
const cpu = () => { const c = process.cpuUsage(); return c.user + c.system; };

async function load(mode) {
  const tag = ++n;
  const modules = new Map();
  const make = (file) => {
    let m = modules.get(file);
    if (m) return m;
    const source = `${texts.get(file)}\n//# load ${String(mode === 'first' || mode === 'same' ? 0 : tag).padStart(8, '0')}`;
    const options = { identifier: `${file}?load=${tag}` };
    if (mode === 'cached') options.cachedData = cache.get(file);
    m = new vm.SourceTextModule(source, options);
    modules.set(file, m);
    return m;
  };
  const builtins = new Map();
  const linker = (specifier, referencing) => {
    if (specifier.startsWith('node:')) {
      let b = builtins.get(specifier);
      if (!b) {
        const real = require(specifier);
        const names = Object.keys(real);
        b = new vm.SyntheticModule(['default', ...names], function () { this.setExport('default', real); for (const k of names) this.setExport(k, real[k]); });
        builtins.set(specifier, b);
      }
      return b;
    }
    const base = referencing.identifier.replace(/\?load=\d+$/, '');
    return make(path.resolve(path.dirname(base), specifier));
  };
  const t = cpu();
  const root = make(path.join(dir, 'index.mjs'));
  await root.link(linker);
  // Cached data can be made only before evaluation (ERR_VM_MODULE_CANNOT_CREATE_CACHED_DATA after).
  if (mode === 'first') for (const [file, m] of modules) cache.set(file, m.createCachedData());
  await root.evaluate();
  const us = cpu() - t;
  return { us };
}

// The builtins the graph imports, loaded before (as the runtime has them loaded before a host's first load).
for (const b of ['node:net', 'node:tls', 'node:crypto']) require(b);
const first = await load('first');
const rows = { nocache: [], cached: [], same: [] };
for (let i = 0; i < Number(loadsText); i++) {
  for (const mode of i % 2 ? ['nocache', 'cached', 'same'] : ['same', 'cached', 'nocache']) {
    const r = await load(mode);
    rows[mode].push(r.us / 1000);
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(JSON.stringify({ node: process.version, firstMs: +(first.us / 1000).toFixed(2), reloadNoCacheMs: +median(rows.nocache).toFixed(2), reloadCachedDataMs: +median(rows.cached).toFixed(2), reloadSameTextNoCacheMs: +median(rows.same).toFixed(2), load: (await import('node:os')).loadavg()[0] }));
