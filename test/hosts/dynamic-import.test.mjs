/**
 * A library-mode client that awaits a dynamic import() goes on once the module has loaded, as in
 * Node, however the load is done: on Node 20 the ES module loader reads a new file with real
 * fs/promises requests, and once loader hooks run on Node's loader thread (a module host started
 * them, or a project's loader) every import(), even of a builtin, is a request to that thread.
 * The run used to end as quiescent while the load was in flight, so the client's later work
 * depended on which test files had run before in the same process (shims/process/real-loads.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Sim } from 'dst-runtime';
import { childEnv } from '../support/programs.mjs';

const app = fileURLToPath(new URL('./fixtures/counter-app/', import.meta.url));

/** Runs `script` as an ES module in a child Node, from this directory (dst-runtime resolves). */
function runScript(script) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: fileURLToPath(new URL('.', import.meta.url)), env: childEnv({}) });
}

describe('dynamic import() in a library-mode client (seed 0xd1)', function () {
  let dir;
  let made = 0;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dst-dynamic-import-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A module no earlier import has loaded: Node must read it from the disk. */
  function freshModule() {
    const file = path.join(dir, `m${made++}.mjs`);
    writeFileSync(file, 'export const answer = 42;\n');
    return pathToFileURL(file).href;
  }

  async function runClient(load) {
    const log = [];
    const sim = new Sim({ seed: 0xd1 });
    sim.client('c', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(['before', performance.now()]);
      const loaded = await load();
      log.push(['loaded', loaded, performance.now()]);
      await new Promise((resolve) => setTimeout(resolve, 10));
      log.push(['after', performance.now()]);
    });
    const result = await sim.run();
    return { log, result };
  }

  const cases = [
    ['a module not loaded before (read from the disk)', () => import(freshModule()).then((m) => m.answer)],
    ['a builtin', () => import('node:fs').then((m) => typeof m.stat)],
  ];

  for (const [what, load] of cases) {
    it(`${what}: the client goes on, at the virtual time it asked, the same every run`, async function () {
      const first = await runClient(load);
      assert.equal(first.result.stopReason, 'clients-done');
      assert.equal(first.log.length, 3, JSON.stringify(first.log));
      assert.deepEqual(first.log.map(([label]) => label), ['before', 'loaded', 'after']);
      // Virtual time stood still while Node loaded the module.
      assert.equal(first.log[1][2], first.log[0][1]);
      assert.equal(first.log[2][1] - first.log[1][2] >= 10, true);
      const second = await runClient(load);
      assert.deepEqual(second.log, first.log);
      assert.equal(second.result.fingerprint, first.result.fingerprint);
    });
  }

  it('after a module host has run in this process (Node 20: loader hooks on their own thread), the same', async function () {
    const sim = new Sim({ seed: 0xd1 });
    sim.host('m', { main: `${app}cjs-main.cjs`, env: { HOST_LABEL: 'm' } });
    await sim.run();
    for (const [, load] of cases) {
      const { log, result } = await runClient(load);
      assert.equal(result.stopReason, 'clients-done');
      assert.deepEqual(log.map(([label]) => label), ['before', 'loaded', 'after']);
    }
  });

  it('a run of hosts only waits for a host\'s import() too, after a module host has run (seed 0x5)', async function () {
    // Found 2026-12-05 by mocha --parallel: on Node 20 such a run ended as quiescent after its
    // first event in 21 of 30 tries, and the rest of the host ran after the run, outside it.
    const sim = new Sim({ seed: 0xd1 });
    sim.host('m', { main: `${app}cjs-main.cjs`, env: { HOST_LABEL: 'm' } });
    await sim.run();
    const runs = [];
    for (let i = 0; i < 10; i++) {
      const log = [];
      const hostsOnly = new Sim({ seed: 5 });
      hostsOnly.host('h', async () => {
        const dgram = await import('node:dgram');
        log.push(['loaded', performance.now()]);
        const socket = dgram.createSocket('udp4');
        await new Promise((resolve) => socket.bind(7000, resolve));
        setTimeout(() => {
          log.push(['closing', performance.now()]);
          socket.close();
        }, 100);
      });
      const result = await hostsOnly.run();
      assert.deepEqual(log.map(([label]) => label), ['loaded', 'closing']);
      runs.push({ log, elapsedNs: result.elapsedNs, fingerprint: result.fingerprint });
    }
    for (const run of runs) assert.deepEqual(run, runs[0]);
    assert.equal(runs[0].elapsedNs, 100_000_000);
  });

  it('a host\'s import() settles at the virtual instant it was made while other timers run, with and without the hooks thread', async function () {
    // Found by a probe (2026-12-05): beside a 1 ms interval the import settled after 1,023 to
    // 5,887 ticks without the hooks thread (4 outcomes in 15 runs of one seed), and after 0 to
    // 15,360 with it (7 in 10): other hosts' events ran on while Node 20's loader worked.
    async function importBesideInterval() {
      const log = [];
      const sim = new Sim({ seed: 7 });
      sim.host('ticker', () => {
        const interval = setInterval(() => log.push('tick'), 1);
        setTimeout(() => clearInterval(interval), 20);
      });
      sim.host('h', async () => {
        let ticks = 0;
        const interval = setInterval(() => ticks++, 1);
        const started = performance.now();
        const loaded = await import(freshModule());
        log.push(`loaded ${loaded.answer} after ${ticks} ticks, ${performance.now() - started} ms`);
        clearInterval(interval);
      });
      const result = await sim.run();
      return { log, fingerprint: result.fingerprint };
    }
    const before = [];
    for (let i = 0; i < 4; i++) before.push(await importBesideInterval());
    const moduleHost = new Sim({ seed: 0xd1 });
    moduleHost.host('m', { main: `${app}cjs-main.cjs`, env: { HOST_LABEL: 'm' } });
    await moduleHost.run();
    const after = [];
    for (let i = 0; i < 4; i++) after.push(await importBesideInterval());
    for (const run of [...before, ...after]) {
      assert.equal(run.log.find((line) => line.startsWith('loaded')), 'loaded 42 after 0 ticks, 0 ms');
      assert.deepEqual(run, before[0]);
    }
  });

  it('register mode without DST_HELD_IMPORTS: a lazy import() beside a 1 ms interval settles at the instant it was made, the same every run', function () {
    // Found by a probe (2026-12-06): on Node 20 `DST_SEED=S node --import dst-runtime/register`
    // of a program whose request handler imports a package lazily gave one seed three
    // fingerprints (8,000 to 17,000 events), and failed a 2 s client timeout plain Node meets.
    const program = path.join(dir, 'lazy-import.mjs');
    writeFileSync(program, [
      'let ticks = 0;',
      'const interval = setInterval(() => ticks++, 1);',
      'setTimeout(async () => {',
      '  const started = performance.now();',
      `  const loaded = await import(${JSON.stringify(freshModule())});`,
      '  console.log(`loaded ${loaded.answer} at +${performance.now() - started} ms, ${ticks} ticks`);',
      '  clearInterval(interval);',
      '}, 5);',
      '',
    ].join('\n'));
    const runs = [];
    for (let i = 0; i < 4; i++) {
      const run = spawnSync(process.execPath, ['--import', fileURLToPath(new URL('../../dist/register.mjs', import.meta.url)), program], {
        encoding: 'utf8',
        env: childEnv({ DST_SEED: '0x6', DST_HELD_IMPORTS: '0' }),
      });
      assert.equal(run.status, 0, run.stderr);
      runs.push({ stdout: run.stdout, summary: run.stderr.split('\n').find((line) => line.startsWith('dst: seed')) });
    }
    assert.match(runs[0].stdout, /^loaded 42 at \+0 ms, 4 ticks\n$/);
    for (const run of runs) assert.deepEqual(run, runs[0]);
  });

  it('register mode without DST_HELD_IMPORTS: an import() the top level makes before the first event settles at the instant it was made too', function () {
    // The entry's own graph is read unheld, and so was an import() its top level made before the
    // first event: its first read raced the driver's first slice of events, and the import
    // settled after 256 ticks of a 1 ms interval, or 512 when the thread pool was slow.
    const lazy = freshModule();
    const programs = {
      'awaited-after-timer.mjs': [
        'let ticks = 0;',
        'const started = performance.now();',
        'const interval = setInterval(() => ticks++, 1);',
        `const loaded = await import(${JSON.stringify(lazy)});`,
        'console.log(`loaded ${loaded.answer} at +${performance.now() - started} ms, ${ticks} ticks`);',
        'clearInterval(interval);',
      ],
      'import-before-timer.mjs': [
        'let ticks = 0;',
        'const started = performance.now();',
        `import(${JSON.stringify(freshModule())}).then((loaded) => {`,
        '  console.log(`loaded ${loaded.answer} at +${performance.now() - started} ms, ${ticks} ticks`);',
        '  clearInterval(interval);',
        '});',
        'const interval = setInterval(() => ticks++, 1);',
      ],
    };
    for (const [name, lines] of Object.entries(programs)) {
      const program = path.join(dir, name);
      writeFileSync(program, [...lines, ''].join('\n'));
      for (let i = 0; i < 3; i++) {
        const run = spawnSync(process.execPath, ['--import', fileURLToPath(new URL('../../dist/register.mjs', import.meta.url)), program], {
          encoding: 'utf8',
          env: childEnv({ DST_SEED: '0x6', DST_HELD_IMPORTS: '0' }),
        });
        assert.equal(run.status, 0, run.stderr);
        assert.equal(run.stdout, 'loaded 42 at +0 ms, 0 ticks\n', `${name}: ${run.stderr}`);
      }
    }
  });

  it('the check for loads in flight leaves Node\'s handles alone: runs after a host used monitorEventLoopDelay do not abort Node', () => {
    // Found by a probe (2026-12-05): the check listed ports with process._getActiveHandles(),
    // which aborts in AsyncWrap::GetOwner on the handle of a histogram a host had enabled.
    const script = [
      "import { Sim } from 'dst-runtime';",
      "import { monitorEventLoopDelay } from 'node:perf_hooks';",
      'const sim = new Sim({ seed: 7 });',
      "sim.host('h', async () => { const h = monitorEventLoopDelay(); h.enable(); await new Promise((r) => setTimeout(r, 50)); h.disable(); });",
      'await sim.run();',
      "for (let i = 0; i < 4; i++) { const s = new Sim({ seed: 1 }); s.host('x', async () => {}); await s.run(); }",
      "console.log('runs done');",
    ].join('\n');
    const run = runScript(script);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'runs done\n');
  });

  it('a loader-hooks request still in flight when its run failed does not hold later runs of the process (seed 0x51)', function () {
    // Found by a CI run (2026-12-06, Node 20): two runs of hosts only hung in mocha workers. A
    // run had failed while its host's import() awaited the loader-hooks thread; the answer came
    // between two runs, when the unref that ends the wait was not watched, so the request counted
    // as in flight for ever and every later run of hosts only waited for it at its end.
    const hooks = path.join(dir, 'hooks.mjs');
    writeFileSync(hooks, 'export async function load(url, context, next) { return next(url, context); }\n');
    const script = [
      "import { register } from 'node:module';",
      "import { writeFileSync } from 'node:fs';",
      "import { Sim } from 'dst-runtime';",
      `register(${JSON.stringify(pathToFileURL(hooks).href)});`,
      'const ports = () => process.getActiveResourcesInfo().filter((r) => r === \'MessagePort\').length;',
      'let pending = false;',
      'for (let i = 0; i < 20 && !pending; i++) {',
      `  const file = ${JSON.stringify(dir)} + '/failed-' + i + '.mjs';`,
      "  writeFileSync(file, 'export const answer = 42;\\n');",
      '  const failing = new Sim({ seed: 3 });',
      "  failing.host('h', () => { import(file); throw new Error('boom'); });",
      '  await failing.run().catch(() => {});',
      '  pending = ports() > 0;',
      '}',
      // The answer comes in between the runs.
      'for (let i = 0; i < 200 && ports() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));',
      "const watchdog = setTimeout(() => { console.log('the run of hosts only hung'); process.exit(3); }, 10_000);",
      'const sim = new Sim({ seed: 0x51 });',
      "sim.host('a', () => { setTimeout(() => {}, 10); });",
      'const result = await sim.run();',
      'clearTimeout(watchdog);',
      "console.log(`${pending ? 'a request was in flight' : 'no request was in flight'}; then ${result.stopReason}`);",
    ].join('\n');
    const run = runScript(script);
    assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
    // Node 20's loader posts an import()'s requests to the hooks thread after the failing event;
    // 22 and 24 may have the answer before the run ends, which leaves nothing to pin there.
    if (process.versions.node.startsWith('20.')) assert.equal(run.stdout, 'a request was in flight; then quiescent\n');
    else assert.match(run.stdout, /; then quiescent\n$/);
  });

  it('a run that waits at its end for real file work says so on stderr, with its seed and what it waits for', function () {
    if (process.platform === 'win32') this.skip();
    this.timeout(30_000);
    // A read of a FIFO nobody writes, made by code outside the simulation: a real request that
    // does not end. A run of hosts only waits at its end for any such request (it may be a
    // host's import()); with nothing else to see, that wait looked like a hang.
    const fifo = path.join(dir, 'never-written');
    spawnSync('mkfifo', [fifo]);
    const script = [
      "import { readFile, openSync, closeSync } from 'node:fs';",
      "import { Sim } from 'dst-runtime';",
      `const fifo = ${JSON.stringify(fifo)};`,
      "readFile(fifo, () => console.log('the fifo read ended'));",
      'const sim = new Sim({ seed: 0x51, wallClockLimitMs: 6000 });',
      "sim.host('a', () => { setTimeout(() => {}, 10); });",
      "await sim.run().catch((error) => console.log(`${error.report.kind}: ${error.report.summary}\\n${error.cause.message}`));",
      "closeSync(openSync(fifo, 'w'));",
    ].join('\n');
    const run = runScript(script);
    assert.equal(run.status, 0, run.stderr);
    // The abort says the run was waiting, not busy.
    assert.equal(run.stdout, [
      'aborted: run aborted: still running after 6,000 ms of real time (wallClockLimitMs) (it was waiting for real file requests (FSReqCallback))',
      'run aborted: still running after 6,000 ms of real time (wallClockLimitMs). It was not busy: it was waiting for real file requests (FSReqCallback), which did not end',
      'the fifo read ended',
      '',
    ].join('\n'));
    assert.match(run.stderr, /^dst: the run of seed 0x51 has nothing left to run, and has waited 5 s \(real time\) for real file requests \(FSReqCallback\), which a host may be awaiting/m);
  });

  it('a client waiting on something that never comes still ends the run as quiescent', async function () {
    const sim = new Sim({ seed: 0xd1 });
    let reached = false;
    sim.client('stuck', async () => {
      await import('node:fs');
      reached = true;
      await new Promise(() => {});
    });
    const result = await sim.run();
    assert.equal(reached, true);
    assert.equal(result.stopReason, 'quiescent');
  });
});
