// The compiled code of module hosts' CommonJS files, kept for later incarnations
// (shims/module/code-cache.ts): a re-loaded host still gets fresh module state, the cache is
// really used (its outcomes on the diagnostics channel 'dst-runtime:code-cache'), a changed file
// is compiled again, and what a cached module shows (stack positions, errors, require) is what
// plain Node shows.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Sim, UsageError } from 'dst-runtime';

const CHANNEL = 'dst-runtime:code-cache';

/** A directory of fixture files no other test of this process has loaded: the cache has never seen them. */
function fixture(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-code-cache-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

/** Runs `fn` and returns the cache's outcomes for files under `dir`, in order, as "outcome name". */
async function outcomesIn(dir, fn) {
  const seen = [];
  const listener = ({ filename, outcome }) => {
    if (filename.startsWith(dir + path.sep)) seen.push(`${outcome} ${path.relative(dir, filename)}`);
  };
  diagnostics.subscribe(CHANNEL, listener);
  try {
    await fn();
  } finally {
    diagnostics.unsubscribe(CHANNEL, listener);
  }
  return seen;
}

/** Sets DST_CODE_CACHE for the runs inside `fn` (read when a simulation installs its shims). */
async function withSetting(value, fn) {
  const before = process.env.DST_CODE_CACHE;
  process.env.DST_CODE_CACHE = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.DST_CODE_CACHE;
    else process.env.DST_CODE_CACHE = before;
  }
}

const COUNTER_APP = {
  'lib.cjs': [
    "'use strict';",
    'let count = 0;',
    'exports.increment = () => ++count;',
    'exports.template = ((strings) => strings)`x`;',
    '',
  ].join('\n'),
  'main.cjs': [
    "const lib = require('./lib.cjs');",
    'lib.increment();',
    'lib.increment();',
    'globalThis.__dstCodeCache.push({ count: lib.increment(), lib, module, require, resolved: require.resolve("./lib.cjs") });',
    // Keeps the host up until the operator crashes it.
    'setInterval(() => {}, 1000);',
    '',
  ].join('\n'),
};

/** Three incarnations of host "a" (two crash + restart), each recording what its modules saw. */
async function threeIncarnations(dir, seed = 0xcc) {
  globalThis.__dstCodeCache = [];
  const sim = new Sim({ seed });
  sim.host('a', { main: path.join(dir, 'main.cjs') });
  sim.client('operator', async () => {
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      sim.crash('a');
      sim.restart('a');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
  const result = await sim.run();
  return { seen: globalThis.__dstCodeCache, fingerprint: result.fingerprint };
}

describe('compiled code of module hosts, kept for later incarnations (seed 0xcc)', () => {
  it('gives each incarnation fresh module state, and compiles each file once', async () => {
    const dir = fixture(COUNTER_APP);
    let run;
    const outcomes = await outcomesIn(dir, async () => {
      run = await threeIncarnations(dir);
    });
    assert.deepEqual(outcomes, ['miss main.cjs', 'miss lib.cjs', 'hit main.cjs', 'hit lib.cjs', 'hit main.cjs', 'hit lib.cjs']);
    const { seen } = run;
    assert.equal(seen.length, 3);
    // Each incarnation counted from zero: its lib.cjs's `count` is its own.
    assert.deepEqual(seen.map((s) => s.count), [3, 3, 3]);
    for (let i = 1; i < seen.length; i++) {
      assert.notEqual(seen[i].lib, seen[0].lib, 'fresh exports');
      assert.notEqual(seen[i].lib.increment, seen[0].lib.increment, 'fresh closures');
      assert.notEqual(seen[i].module, seen[0].module, 'a fresh module object');
      assert.notEqual(seen[i].require, seen[0].require, 'a require of its own');
    }
    // Node's own require for the module: resolve, cache and extensions as Node makes them.
    for (const s of seen) {
      assert.equal(s.resolved, path.join(dir, 'lib.cjs'));
      // The incarnation's own cache (module-hosts.ts), holding this module; not the process's.
      assert.ok(s.require.cache[s.module.filename] === s.module, 'require.cache holds the module');
      assert.ok(Module._cache[s.module.filename] === undefined, "the process's cache does not");
      assert.equal(s.require.extensions, Module._extensions);
      assert.equal(typeof s.require.resolve.paths, 'function');
      assert.equal(s.module.loaded, true);
      assert.equal(s.module.filename, path.join(dir, 'main.cjs'));
    }
  });

  it('serves a host of the next run in the process too, and compiles a changed file again', async () => {
    const dir = fixture(COUNTER_APP);
    const host = async () => {
      globalThis.__dstCodeCache = [];
      const sim = new Sim({ seed: 0xcc, durationMs: 10 });
      sim.client('a', { main: path.join(dir, 'main.cjs') });
      await sim.run();
      return globalThis.__dstCodeCache;
    };
    const first = await outcomesIn(dir, host);
    const again = await outcomesIn(dir, host);
    fs.writeFileSync(path.join(dir, 'lib.cjs'), COUNTER_APP['lib.cjs'].replace('++count', 'count += 10'));
    let seen;
    const changed = await outcomesIn(dir, async () => {
      seen = await host();
    });
    assert.deepEqual(first, ['miss main.cjs', 'miss lib.cjs']);
    assert.deepEqual(again, ['hit main.cjs', 'hit lib.cjs']);
    assert.deepEqual(changed, ['hit main.cjs', 'rejected lib.cjs']);
    assert.equal(seen[0].count, 30, 'the new text ran');
  });

  it('gives the same fingerprint with the cache off, on and hit', async () => {
    const dir = fixture(COUNTER_APP);
    const off = await withSetting('0', async () => {
      let run;
      const outcomes = await outcomesIn(dir, async () => {
        run = await threeIncarnations(dir);
      });
      assert.deepEqual(outcomes, [], 'DST_CODE_CACHE=0: the cache is not consulted');
      assert.deepEqual(run.seen.map((s) => s.count), [3, 3, 3]);
      return run.fingerprint;
    });
    const filled = await threeIncarnations(dir);
    const hit = await threeIncarnations(dir);
    assert.equal(filled.fingerprint, off);
    assert.equal(hit.fingerprint, off);
  });

  it('refuses a malformed DST_CODE_CACHE, saying what it takes', async () => {
    await withSetting('yes', async () => {
      const sim = new Sim({ seed: 0xcc });
      sim.host('a', () => {});
      await assert.rejects(sim.run(), (error) => {
        assert.ok(error instanceof UsageError);
        assert.match(error.message, /^Failed to parse DST_CODE_CACHE: "yes" is not 0 or 1/);
        return true;
      });
    });
  });

  it('Node fact: import() in a vm.compileFunction function with the main loader prints an ExperimentalWarning, so such files take Node\'s own compile', () => {
    // Why code-cache.ts leaves files that may call import() to Node (docs/notes/node-facts.md).
    const dir = fixture({ 'target.mjs': 'export const value = 1;\n' });
    const program = [
      "const vm = require('node:vm');",
      `const load = vm.compileFunction('return import("./target.mjs")', [], { filename: ${JSON.stringify(path.join(dir, 'caller.cjs'))}, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });`,
      'load().then((m) => console.log(m.value));',
    ].join('\n');
    const run = spawnSync(process.execPath, ['-e', program], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, '1\n');
    assert.match(run.stderr, /ExperimentalWarning: vm\.USE_MAIN_CONTEXT_DEFAULT_LOADER is an experimental feature/);
  });

  describe('what a cached module shows is what plain Node shows', () => {
    // Each file is loaded by plain `node` (one process) and by a module host three times
    // (incarnations 2 and 3 take the cached code); what each load observed must be the same.
    const files = {
      // A throw on line 1 (its column is the file's own: no wrapper text before it) and on line 3.
      'throws.cjs': 'exports.first = () => { throw new Error("one") };\n\nexports.third = () => {\n  throw new TypeError("three");\n};\n',
      'shebang.cjs': '#!/usr/bin/env node\nexports.value = 42;\nexports.where = () => new Error("x").stack.split("\\n")[1].trim();\n',
      'syntax-error.cjs': 'exports.a = 1;\nconst = 2;\n',
      // ESM syntax in a .js file of a package without "type": Node 22.12+ loads it as an ES
      // module (require(esm)), Node 20 throws. The cache must leave both to Node.
      'esm-syntax.js': 'export const value = 7;\n',
      'package.json': '{}\n',
      'dynamic.cjs': 'exports.load = () => import("./target.mjs").then((m) => m.value);\n',
      'target.mjs': 'export const value = "imported";\n',
      'sloppy.cjs': 'exports.isStrict = (function () { return this === undefined; })();\nexports.self = typeof arguments.callee;\n',
      'strict.cjs': '"use strict";\nexports.isStrict = (function () { return this === undefined; })();\n',
    };
    /** What loading the fixture shows, as plain data (run the same in plain Node and in a host). */
    const observe = `async function observe(dir) {
      const out = {};
      const at = (error) => error.stack.split('\\n').slice(0, 2).map((line) => line.replace(dir, '<dir>').trim()).join(' | ');
      const attempt = async (name, fn) => {
        try { out[name] = await fn(); } catch (error) { out[name] = 'threw ' + error.constructor.name + ': ' + String(error.message).split('\\n')[0].replace(dir, '<dir>'); }
      };
      const req = require('node:module').createRequire(dir + '/');
      const throws = req('./throws.cjs');
      await attempt('line1', () => { try { throws.first(); } catch (error) { return at(error); } });
      await attempt('line4', () => { try { throws.third(); } catch (error) { return at(error); } });
      await attempt('shebang', () => { const m = req('./shebang.cjs'); return m.value + ' ' + m.where().replace(dir, '<dir>'); });
      await attempt('syntaxError', () => req('./syntax-error.cjs'));
      await attempt('esmSyntax', () => JSON.stringify(req('./esm-syntax.js')));
      await attempt('dynamicImport', () => req('./dynamic.cjs').load());
      await attempt('sloppy', () => JSON.stringify(req('./sloppy.cjs')));
      await attempt('strict', () => JSON.stringify(req('./strict.cjs')));
      return out;
    }`;

    it('stack positions, errors, ES module syntax, import(), strictness (seed 0xcc)', async function () {
      const dir = fixture(files);
      const plain = spawnSync(process.execPath, ['--no-warnings', '-e', `${observe}\nobserve(${JSON.stringify(dir)}).then((o) => console.log(JSON.stringify(o)))`], {
        encoding: 'utf8',
      });
      assert.equal(plain.status, 0, plain.stderr);
      const expected = JSON.parse(plain.stdout);
      // The module host: its main requires the files through its own require (a host graph).
      // The interval keeps the host up while an import() of a CommonJS file, which the
      // simulation does not wait for, completes (Node 20's loader thread).
      fs.writeFileSync(
        path.join(dir, 'main.cjs'),
        `${observe}\nconst up = setInterval(() => {}, 1000);\nobserve(__dirname).then((o) => { globalThis.__dstCodeCacheObserved.push(o); clearInterval(up); });\n`,
      );
      globalThis.__dstCodeCacheObserved = [];
      const outcomes = await outcomesIn(dir, async () => {
        for (let run = 0; run < 3; run++) {
          const sim = new Sim({ seed: 0xcc });
          sim.client('c', { main: path.join(dir, 'main.cjs') });
          await sim.run();
        }
      });
      const observed = globalThis.__dstCodeCacheObserved;
      assert.equal(observed.length, 3);
      for (const o of observed) assert.deepEqual(o, expected);
      // The cache served what it could: every later load of a cacheable file was a hit.
      const last = outcomes.slice(outcomes.length / 3 * 2);
      const byFile = Object.fromEntries(last.map((line) => line.split(' ').reverse()));
      assert.equal(byFile['throws.cjs'], 'hit');
      assert.equal(byFile['shebang.cjs'], 'hit');
      assert.equal(byFile['sloppy.cjs'], 'hit');
      assert.equal(byFile['strict.cjs'], 'hit');
      assert.equal(byFile['syntax-error.cjs'], 'bypassed');
      assert.equal(byFile['dynamic.cjs'], 'bypassed', 'import() in a file: Node compiles it');
    });
  });
});
