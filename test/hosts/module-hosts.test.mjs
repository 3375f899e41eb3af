import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import module from 'node:module';
import net from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Sim, STARTUP_MS } from 'dst-runtime';

const app = fileURLToPath(new URL('./fixtures/counter-app/', import.meta.url));

function takeLog() {
  const log = globalThis.__dstModuleLog ?? [];
  globalThis.__dstModuleLog = [];
  return log;
}

describe('hosts started from modules (seed 0x6d)', () => {
  beforeEach(() => takeLog());

  it('gives each host its own ESM, CJS and node_modules instances, and a restart fresh ones', async () => {
    const sim = new Sim({ seed: 0x6d });
    sim.host('a', { main: `${app}main.mjs`, argv: ['3'], env: { HOST_LABEL: 'a' } });
    sim.host('b', { main: `${app}main.mjs`, argv: ['2'], env: { HOST_LABEL: 'b' } });
    sim.client('operator', async () => {
      await new Promise((r) => setTimeout(r, 250));
      sim.crash('a');
      assert.equal(sim.status('a').state, 'crashed');
      sim.restart('a');
      assert.deepEqual(sim.status('a'), { state: 'running', incarnation: 2, paused: false, exitCode: undefined });
      await new Promise((r) => setTimeout(r, 1000));
    });
    await sim.run();
    assert.deepEqual(takeLog(), [
      'a boot: esm=1 cjs=1 lib=1 host=a',
      'b boot: esm=1 cjs=1 lib=1 host=b',
      `a tick 1: esm=2 cjs=2 lib=2 t=${STARTUP_MS + 100}`,
      `b tick 1: esm=2 cjs=2 lib=2 t=${STARTUP_MS + 100}`,
      `a tick 2: esm=3 cjs=3 lib=3 t=${STARTUP_MS + 200}`,
      `b tick 2: esm=3 cjs=3 lib=3 t=${STARTUP_MS + 200}`,
      // a crashed at 250 ms: its third tick never came; the restart starts from zero state
      // and its clock (performance.now) from zero.
      'a boot: esm=1 cjs=1 lib=1 host=a',
      `a tick 1: esm=2 cjs=2 lib=2 t=${STARTUP_MS + 100}`,
      `a tick 2: esm=3 cjs=3 lib=3 t=${STARTUP_MS + 200}`,
      `a tick 3: esm=4 cjs=4 lib=4 t=${STARTUP_MS + 300}`,
    ]);
  });

  it('isolates CommonJS main modules too', async () => {
    const sim = new Sim({ seed: 0x6d });
    sim.host('x', { main: `${app}cjs-main.cjs`, env: { HOST_LABEL: 'x' } });
    sim.host('y', { main: `${app}cjs-main.cjs`, env: { HOST_LABEL: 'y' } });
    await sim.run();
    assert.deepEqual(takeLog(), [
      'x cjs-main boot: cjs=1 lib=1',
      'y cjs-main boot: cjs=1 lib=1',
      'x cjs-main later: cjs=2 lib=2',
      'y cjs-main later: cjs=2 lib=2',
    ]);
  });

  it("is each host's main module, as `node <main>` makes it: require.main, process.mainModule, import.meta.main", async () => {
    // Regression: a host's CommonJS main saw require.main !== module (an `if (require.main ===
    // module) listen()` server never started), and an ES module main import.meta.main false.
    const dir = fileURLToPath(new URL('./fixtures/main-module/', import.meta.url));
    globalThis.mainModuleLog = [];
    try {
      const sim = new Sim({ seed: 0x6e });
      sim.host('c1', { main: `${dir}main.cjs`, env: { HOST_LABEL: 'c1' } });
      sim.host('c2', { main: `${dir}main.cjs`, env: { HOST_LABEL: 'c2' } });
      sim.host('m', { main: `${dir}main.mjs`, env: { HOST_LABEL: 'm' } });
      await sim.run();
      // This Node has import.meta.main (22.18+, 24.2+) when this module has it.
      const hasMain = 'main' in import.meta;
      assert.deepEqual(globalThis.mainModuleLog, [
        'c1 main.cjs: require.main===module true, process.mainModule===module true, helper is main false',
        'c2 main.cjs: require.main===module true, process.mainModule===module true, helper is main false',
        `m main.mjs: import.meta.main ${hasMain ? true : undefined}, dep ${hasMain ? false : undefined}, process.mainModule undefined`,
      ]);
    } finally {
      delete globalThis.mainModuleLog;
    }
  });

  it("gives each host its own require.cache, as each process has its own", async () => {
    // Regression: a host's require.cache was the test process's, which held none of the host's
    // modules: deleting one from it did nothing, and the next require gave the old module.
    const dir = fileURLToPath(new URL('./fixtures/main-module/', import.meta.url));
    globalThis.mainModuleLog = [];
    try {
      const sim = new Sim({ seed: 0x6f });
      sim.host('a', { main: `${dir}cache-main.cjs`, env: { HOST_LABEL: 'a' } });
      sim.host('b', { main: `${dir}cache-main.cjs`, env: { HOST_LABEL: 'b' } });
      await sim.run();
      assert.deepEqual(globalThis.mainModuleLog, ['a: own true, fresh true', 'b: own true, fresh false']);
      const processCache = module.createRequire(import.meta.url).cache;
      assert.equal(Object.keys(processCache).some((k) => k.startsWith(dir)), false, "the hosts' modules are not in the process's cache");
    } finally {
      delete globalThis.mainModuleLog;
    }
  });

  it('leaves out of require.cache, under register mode, the runtime\'s own files, as plain Node has none', () => {
    // Regression: the program listed dist/register.cjs, its chunks and seedrandom, and deleting
    // every entry could make a later lazy load of a chunk a second copy of the runtime.
    const file = fileURLToPath(new URL('./fixtures/main-module/clear-cache.cjs', import.meta.url));
    const register = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
    const runs = [1, 2].map(() => spawnSync(process.execPath, ['--import', register, file], { env: { ...process.env, DST_SEED: '0x5', DST_QUIET: '1' }, encoding: 'utf8' }));
    for (const run of runs) assert.equal(run.status, 0, run.stderr);
    const seen = JSON.parse(runs[0].stdout);
    assert.deepEqual(seen.before, ['clear-cache.cjs']);
    assert.equal(seen.after, 0);
    assert.equal(runs[1].stdout, runs[0].stdout, 'the seed replays');
  });

  it('takes main as a file: URL, a path relative to the working directory, or a package specifier resolved from it', async () => {
    const cwd = process.cwd();
    process.chdir(app);
    try {
      const sim = new Sim({ seed: 0x6d });
      sim.host('url', { main: pathToFileURL(`${app}cjs-main.cjs`).href, env: { HOST_LABEL: 'url' } });
      sim.host('relative', { main: 'cjs-main.cjs', env: { HOST_LABEL: 'relative' } });
      sim.host('package', { main: 'host-pkg/server', env: { HOST_LABEL: 'package' } });
      await sim.run();
    } finally {
      process.chdir(cwd);
    }
    assert.deepEqual(takeLog(), [
      'url cjs-main boot: cjs=1 lib=1',
      'relative cjs-main boot: cjs=1 lib=1',
      'package host-pkg/server boot: lib=1',
      'url cjs-main later: cjs=2 lib=2',
      'relative cjs-main later: cjs=2 lib=2',
    ]);
  });

  it('is deterministic: the same seed gives the same fingerprint', async () => {
    const run = async () => {
      const sim = new Sim({ seed: 0x6d });
      sim.host('a', { main: `${app}main.mjs`, argv: ['2'], env: { HOST_LABEL: 'a' } });
      sim.host('b', { main: `${app}cjs-main.cjs`, env: { HOST_LABEL: 'b' } });
      return (await sim.run()).fingerprint;
    };
    assert.equal(await run(), await run());
  });

  it('rejects a malformed module spec', () => {
    const sim = new Sim({ seed: 1 });
    assert.throws(() => sim.host('m', { main: '' }), /main must be a module path/);
    assert.throws(() => sim.host('m', { main: 'x.js', argv: 'nope' }), /argv must be an array of strings/);
    assert.throws(() => sim.host('m', { main: 'x.js', env: { A: 1 } }), /env must be an object of strings/);
  });

  it('does not leak the host module caches into the test process', async () => {
    const sim = new Sim({ seed: 2 });
    sim.host('a', { main: `${app}cjs-main.cjs`, env: { HOST_LABEL: 'a' } });
    await sim.run();
    const { createRequire } = await import('node:module');
    const require = createRequire(import.meta.url);
    assert.equal(require.cache[`${app}cjs-counter.cjs`], undefined);
    assert.equal(process.env.HOST_LABEL, undefined);
  });

  it('a dynamic import() in the middle of a run completes at the same virtual instant', async () => {
    // With module.registerHooks (Node 22.15+, 24) the import takes no turn of the event loop; on
    // Node 20 (and 22 before 22.15) it is a round trip to the loader thread, held as real work.
    const dynamic = fileURLToPath(new URL('./fixtures/dynamic-import/main.mjs', import.meta.url));
    const once = async () => {
      globalThis.__dstDynamicLog = [];
      globalThis.__dstTicks = 0;
      const sim = new Sim({ seed: 0x6d });
      sim.host('busy', () => setInterval(() => globalThis.__dstTicks++, 1));
      sim.host('importer', { main: dynamic, env: { HOST_LABEL: 'importer' } });
      sim.client('c', () => new Promise((r) => setTimeout(r, 50)));
      const { fingerprint } = await sim.run();
      return { log: globalThis.__dstDynamicLog, fingerprint };
    };
    const first = await once();
    // The busy host ticked at 1..9 ms (its tick due at 10 ms was rescheduled at 9 ms, after the
    // importer's timer was created), and not once during the import. A held import settles in
    // an 'io' event of its own, behind the tick already queued for 10 ms.
    const ticks = typeof module.registerHooks === 'function' ? 9 : 10;
    assert.deepEqual(first.log, [`importer: imported esm 1 and cjs (cjs) in 0 ms, ticks seen ${ticks}`]);
    const second = await once();
    assert.deepEqual(second.log, [`importer: imported esm 2 and cjs (cjs) in 0 ms, ticks seen ${ticks}`], 'a fresh instance per run');
    assert.equal(second.fingerprint, first.fingerprint);
  });

  it('uses module.registerHooks exactly where Node has it (22.15+, 24), module.register elsewhere', () => {
    const [major, minor] = process.versions.node.split('.').map(Number);
    const expected = major > 22 || (major === 22 && minor >= 15);
    assert.equal(typeof module.registerHooks === 'function', expected);
  });

  it('a module client is done when its module has loaded and nothing it started is pending (issue 20 item 12)', async () => {
    // A CommonJS main has loaded as soon as its top level ran: the run used to end at t=0,
    // before the request it started was answered.
    globalThis.__dstModuleClient = [];
    const sim = new Sim({ seed: 0x6d });
    sim.host('server', () => {
      net.createServer((s) => s.on('data', () => setTimeout(() => s.end('42'), 100))).listen(7000);
    });
    sim.client('asker', { main: fileURLToPath(new URL('./fixtures/module-client/ask.cjs', import.meta.url)) });
    const result = await sim.run();
    assert.equal(globalThis.__dstModuleClient.length, 1);
    assert.match(globalThis.__dstModuleClient[0], /^answer "42" at 1\d\d\.\d+ ms$/);
    assert.equal(result.stopReason, 'clients-done');
  });
});
