/**
 * The shims of node:tls, node:https and node:http2 are installed at the builtin's first load, not
 * at start-up (shims/builtin-loads.ts, Shim.builtins in shims/install.ts): an empty program does
 * not load them. A way in that got the module before its shim would be a determinism hole (TLS
 * over a simulated socket fails outright, ticket keys and HTTP/2 pings come from the real world):
 * each way is tried here, in a fresh `node --import dst-runtime/register` process, and must print
 * what the plainest way prints, with the same fingerprint.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');
const FIXTURES = path.join(HERE, 'fixtures/lazy-builtins');
const PROGRAM = path.join(FIXTURES, 'program.mjs');
const run = promisify(execFile);

async function register(family, way, seed = '0x5') {
  const preload = { preloaded: 'preload.cjs', 'no-load-list': 'no-load-list.cjs' }[way];
  const args = preload === undefined ? [] : ['--require', path.join(FIXTURES, preload)];
  const { stdout, stderr } = await run(process.execPath, [...args, '--import', REGISTER, PROGRAM], {
    env: { ...process.env, DST_SEED: seed, FAMILY: family, WAY: way === 'no-load-list' ? 'require-node' : way },
  });
  return { stdout: stdout.trim(), fingerprint: /fingerprint (\S+)/.exec(stderr)?.[1] };
}

const LAZY = /^NativeModule (tls|_tls_wrap|https|http2)$/;

describe('tls, https and http2 shims installed at the builtin’s first load (register mode)', function () {
  this.timeout(60_000);

  it('an empty program loads none of tls, https, http2 (process.moduleLoadList, seed 0x5)', async () => {
    const { stdout, stderr } = await run(process.execPath, ['--import', REGISTER, '-e', `console.log(JSON.stringify(process.moduleLoadList.filter((m) => ${LAZY}.test(m))))`], {
      env: { ...process.env, DST_SEED: '0x5' },
    });
    assert.equal(stdout.trim(), '[]');
    assert.match(stderr, /fingerprint [0-9a-f]{16}/, 'the program ran under register mode');
  });

  it('plainly, two runs give different TLS ticket keys and HTTP/2 pings (what the seeded runs are compared against)', async () => {
    const plain = async (family) => (await run(process.execPath, [PROGRAM], { env: { ...process.env, FAMILY: family, WAY: 'require' } })).stdout.trim();
    assert.notEqual(/ticket (\w+)/.exec(await plain('tls'))[1], /ticket (\w+)/.exec(await plain('tls'))[1]);
    assert.notEqual(/ping (\S+)/.exec(await plain('http2'))[1], /ping (\S+)/.exec(await plain('http2'))[1]);
  });

  const expected = {
    tls: /^tls hi authorized true ticket [0-9a-f]{16} @\d+$/,
    https: /^https 200 ok host's globalAgent true @\d+$/,
    http2: /^http2 h2 ok date \w{3}, \d\d \w{3} \d{4} [\d:]{8} GMT ping [\d.]+ @\d+$/,
  };
  const ways = [
    ['require', "require('x') from CommonJS"],
    ['create-require', "createRequire(import.meta.url)('node:x')"],
    ['import-default', "import x from 'node:x'"],
    ['import-named', "import { createServer, ... } from 'node:x'"],
    ['import-namespace', "import * as x from 'node:x'"],
    ['dynamic-import', "import('node:x')"],
    ['get-builtin-module', "process.getBuiltinModule('node:x')"],
    ['preloaded', '`--require` of the builtin before dst-runtime/register (installed at once)'],
    ['no-load-list', 'process.moduleLoadList replaced before dst-runtime/register (nothing to watch: installed at once)'],
  ];
  for (const family of ['tls', 'https', 'http2']) {
    it(`${family}: require('node:${family}') gets the simulated behaviour, and another seed other ticket keys (seeds 0x5, 0x6)`, async () => {
      const reference = await register(family, 'require-node');
      assert.match(reference.stdout, expected[family]);
      assert.match(reference.fingerprint, /^[0-9a-f]{16}$/);
      assert.deepEqual(await register(family, 'require-node'), reference, 'replays');
      if (family === 'tls') assert.notEqual(/ticket (\w+)/.exec((await register(family, 'require-node', '0x6')).stdout)[1], /ticket (\w+)/.exec(reference.stdout)[1]);
    });
    const familyWays = family === 'tls' ? [...ways, ['loaded-by-https', 'loaded by node:https, then required'], ['tls-wrap-first', "require('_tls_wrap') before node:tls (a require cycle inside Node)"]] : ways;
    for (const [way, what] of familyWays) {
      if (way === 'get-builtin-module' && typeof process.getBuiltinModule !== 'function') continue;
      it(`${family}, ${what.replaceAll("'x'", `'${family}'`).replaceAll('node:x', `node:${family}`)}: the run of require('node:${family}') (seed 0x5)`, async () => {
        const [reference, got] = await Promise.all([register(family, 'require-node'), register(family, way)]);
        assert.deepEqual(got, reference);
      });
    }
  }

  it('library mode: tls first loaded inside a host installs its shim there, restored after the run; the next run (tls loaded) installs it at once and replays (seed 0x9)', async () => {
    const { stdout } = await run(process.execPath, [path.join(FIXTURES, 'library.mjs')]);
    const { loadedAtStart, first, second, sameAfter } = JSON.parse(stdout);
    assert.equal(loadedAtStart, false, 'dst-runtime itself does not load node:tls');
    assert.match(first.out, /^hi ticket [0-9a-f]{96}$/);
    for (const run of [first, second]) {
      assert.equal(run.patchedInRun, true, 'the shim was in place during the run');
      assert.equal(run.afterIsNodes, true, "Node's setSecureContext is back after the run");
      assert.equal(run.listIsPlainArray, true, 'process.moduleLoadList has its prototype back');
    }
    assert.equal(sameAfter, true);
    assert.deepEqual({ ...second }, { ...first });
  });

  it('Node appends a builtin to process.moduleLoadList after its top level ran and before an ES module import binds its exports (the trigger’s premise, plain Node)', async () => {
    // A watcher like shims/builtin-loads.ts's replaces http2.connect at the push; the named
    // import made afterwards must bind the replacement.
    const named = "import { connect } from 'node:http2'; console.log(globalThis.http2CompleteAtPush, connect.name);";
    const { stdout } = await run(process.execPath, ['--require', path.join(FIXTURES, 'watch-http2-load.cjs'), '--input-type=module', '-e', named]);
    assert.equal(stdout.trim(), 'true replaced');
  });
});
