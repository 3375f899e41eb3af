// Where module hosts' requires and imports resolved, kept for later incarnations
// (shims/module/resolution-cache.ts): the answers are really used (the outcomes on the
// diagnostics channel 'dst-runtime:resolution-cache'), and dropped, with Node's own
// Module._pathCache, when a program writes, renames or deletes a file, so a re-load resolves as a
// fresh process would; a simulated disk's files are never answered from it;
// DST_RESOLUTION_CACHE=0 turns it off.
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Sim } from 'dst-runtime';

const SEEN = Symbol.for('dst-test.resolution-seen');
/** In-thread resolve hooks (Node 22.15+, 24), where ES module resolutions are kept too. */
const IN_THREAD = typeof Module.registerHooks === 'function';

/** A directory of fixture files no other test of this process has loaded. */
function fixture(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-resolution-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

/** One simulation of a host running `main` with `env`; what it recorded in globalThis[SEEN]. */
async function runHost(main, env = {}, options = {}) {
  delete globalThis[SEEN];
  const sim = new Sim({ seed: 0x5eed, ...options });
  sim.host('app', { main, env });
  await sim.run();
  return globalThis[SEEN];
}

/** Runs `fn` and returns the cache's outcomes, in order, as "outcome request". */
async function outcomesOf(fn) {
  const seen = [];
  const listener = ({ request, outcome }) => seen.push(`${outcome} ${request}`);
  diagnostics.subscribe('dst-runtime:resolution-cache', listener);
  try {
    await fn();
  } finally {
    diagnostics.unsubscribe('dst-runtime:resolution-cache', listener);
  }
  return seen;
}

/** Sets DST_RESOLUTION_CACHE for the runs inside `fn` (read when a simulation installs its shims). */
async function withSetting(value, fn) {
  const before = process.env.DST_RESOLUTION_CACHE;
  process.env.DST_RESOLUTION_CACHE = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.DST_RESOLUTION_CACHE;
    else process.env.DST_RESOLUTION_CACHE = before;
  }
}

// `require('./plugin')` tries plugin, plugin.js, plugin.json in this order (Node's extension probing).
const PLUGIN_APP = {
  'plugin.js': "module.exports = 'plugin.js';\n",
  'main.cjs': [
    "const fs = require('node:fs');",
    "const path = require('node:path');",
    "if (process.env.MOVE === '1') {",
    "  fs.renameSync(path.join(__dirname, 'plugin.js'), path.join(__dirname, 'plugin.js.old'));",
    "  fs.writeFileSync(path.join(__dirname, 'plugin.json'), JSON.stringify('plugin.json'));",
    '}',
    "let seen;",
    "try { seen = require('./plugin'); } catch (error) { seen = error.code; }",
    "globalThis[Symbol.for('dst-test.resolution-seen')] = seen;",
    '',
  ].join('\n'),
};

describe('module hosts: resolutions kept between loads, dropped when files change', function () {
  this.timeout(60_000);

  it('CommonJS: the second load of a host is answered from the cache, and not with DST_RESOLUTION_CACHE=0', async () => {
    const dir = fixture(PLUGIN_APP);
    const main = path.join(dir, 'main.cjs');
    const first = await outcomesOf(async () => assert.equal(await runHost(main), 'plugin.js'));
    assert.ok(first.includes('miss ./plugin'), String(first));
    const second = await outcomesOf(async () => assert.equal(await runHost(main), 'plugin.js'));
    assert.ok(second.includes('hit ./plugin') && !second.includes('miss ./plugin'), String(second));
    const off = await outcomesOf(() => withSetting('0', async () => assert.equal(await runHost(main), 'plugin.js')));
    assert.deepEqual(off, []);
  });

  it('DST_RESOLUTION_CACHE other than 0 or 1 is refused, saying what it takes', async () => {
    await withSetting('off', async () => {
      const sim = new Sim({ seed: 0x5eed });
      sim.host('app', () => {});
      await assert.rejects(sim.run(), /Failed to parse DST_RESOLUTION_CACHE: "off" is not 0 or 1/);
    });
  });

  it('CommonJS: a program that renames and writes files drops the kept resolutions, and resolves as a fresh process would', async () => {
    const dir = fixture(PLUGIN_APP);
    const main = path.join(dir, 'main.cjs');
    assert.equal(await runHost(main), 'plugin.js');
    // Kept, plugin.js's resolution would now name a file that is gone (ENOENT, not what Node says).
    assert.equal(await runHost(main, { MOVE: '1' }), 'plugin.json');
    assert.equal(await runHost(main), 'plugin.json');
  });

  it('CommonJS: files the test changes between two runs drop the kept resolutions, with DST_RESOLUTION_CACHE=0 too', async () => {
    // Found by a probe (2026-12-05): a test replaced plugin.js by plugin.json between runs, and
    // the next run's host was handed plugin.js (ENOENT), from the cache or from Node's _pathCache.
    for (const setting of ['1', '0']) {
      await withSetting(setting, async () => {
        const dir = fixture(PLUGIN_APP);
        const main = path.join(dir, 'main.cjs');
        assert.equal(await runHost(main), 'plugin.js');
        fs.renameSync(path.join(dir, 'plugin.js'), path.join(dir, 'plugin.js.old'));
        fs.writeFileSync(path.join(dir, 'plugin.json'), JSON.stringify('plugin.json'));
        assert.equal(await runHost(main), 'plugin.json', `DST_RESOLUTION_CACHE=${setting}`);
        // A file added beside the requiring module, where the answer lay elsewhere.
        fs.mkdirSync(path.join(dir, 'lib'));
        fs.writeFileSync(path.join(dir, 'lib', 'index.js'), "module.exports = 'lib/index.js';\n");
        fs.writeFileSync(path.join(dir, 'other.cjs'), "globalThis[Symbol.for('dst-test.resolution-seen')] = require('./lib');\n");
        assert.equal(await runHost(path.join(dir, 'other.cjs')), 'lib/index.js');
        fs.writeFileSync(path.join(dir, 'lib.js'), "module.exports = 'lib.js';\n");
        assert.equal(await runHost(path.join(dir, 'other.cjs')), 'lib.js', `DST_RESOLUTION_CACHE=${setting}`);
      });
    }
  });

  // Node 20's CommonJS loader took the binding's internalModuleStat when it loaded, before the fs
  // shim: its stats see the real files, not a simulated disk's (22 and 24 look it up per call).
  const NODE_20 = Number(process.versions.node.split('.')[0]) < 22;
  (NODE_20 ? it.skip : it)('CommonJS: on a simulated disk the disk answers every resolution, and the real files are resolved again after it (Node 22, 24)', async () => {
    const dir = fixture(PLUGIN_APP);
    const main = path.join(dir, 'main.cjs');
    assert.equal(await runHost(main), 'plugin.js');
    // The rename and the write are the simulated disk's: the real plugin.js stays.
    assert.equal(await runHost(main, { MOVE: '1' }, { disk: 'simulated' }), 'plugin.json');
    assert.ok(fs.existsSync(path.join(dir, 'plugin.js')) && !fs.existsSync(path.join(dir, 'plugin.json')), 'the real files were not touched');
    assert.equal(await runHost(main), 'plugin.js');
  });

  it(`ES modules${IN_THREAD ? '' : ' (resolved on the loader thread here: not kept)'}: a program that deletes an imported file gets Node's ERR_MODULE_NOT_FOUND at the next load`, async () => {
    const dir = fixture({
      'dep.mjs': "export default 'dep.mjs';\n",
      'main.mjs': [
        "import fs from 'node:fs';",
        "if (process.env.DELETE === '1') fs.renameSync(new URL('./dep.mjs', import.meta.url), new URL('./dep.mjs.old', import.meta.url));",
        "let seen;",
        "try { seen = (await import('./dep.mjs')).default; } catch (error) { seen = error.code; }",
        "globalThis[Symbol.for('dst-test.resolution-seen')] = seen;",
        '',
      ].join('\n'),
    });
    const main = path.join(dir, 'main.mjs');
    assert.equal(await runHost(main), 'dep.mjs');
    const second = await outcomesOf(async () => assert.equal(await runHost(main), 'dep.mjs'));
    assert.equal(second.includes('hit ./dep.mjs'), IN_THREAD, String(second));
    assert.equal(await runHost(main, { DELETE: '1' }), 'ERR_MODULE_NOT_FOUND');
  });
});
