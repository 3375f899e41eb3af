import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sim, STARTUP_MS } from 'dst-runtime';

const FIXTURES = fileURLToPath(new URL('./fixtures/startup-work/', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function takeLog() {
  const log = globalThis.__dstStartupLog ?? [];
  globalThis.__dstStartupLog = [];
  return log;
}

// What a database engine does before it listens (issue 18: PGlite imports fs/promises, reads a
// 6 MB data bundle and a 9 MB WebAssembly file, and instantiates it), without a database.
describe('real work a host starts before it serves: held in virtual time, every run the same (seed 0x18)', function () {
  this.timeout(60_000);
  let dir;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-startup-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => takeLog());

  it('a server that imports, reads 20 MB and instantiates WebAssembly before listening answers a client that connects at 5 ms', async () => {
    const data = path.join(dir, 'data.bin');
    fs.writeFileSync(data, crypto.createHash('sha512').update('startup').digest().toString('hex').repeat(160_000)); // 20 MB
    const runOnce = async () => {
      const sim = new Sim({ seed: 0x18 });
      sim.host('server', { main: `${FIXTURES}server.mjs`, env: { DATA_FILE: data } });
      sim.client('client', { main: `${FIXTURES}client.mjs` });
      const result = await sim.run();
      assert.equal(result.stopReason, 'clients-done');
      return { log: takeLog(), fingerprint: result.fingerprint };
    };
    const first = await runOnce();
    assert.deepEqual(first.log.slice(0, 1), [`server: ready at ${STARTUP_MS} ms`]);
    assert.match(first.log[1], /^client: "20480000 bytes, 2 \+ 3 = 5" at \d+(\.\d+)? ms$/);
    assert.deepEqual(await runOnce(), first);
  });

  it('a dynamic import settles in call order, or after its module\'s top-level await of a timer', async () => {
    const runOnce = async () => {
      globalThis.__dstTicks = 0;
      const sim = new Sim({ seed: 0x18 });
      sim.host('ticker', () => {
        const interval = setInterval(() => globalThis.__dstTicks++, 1);
        setTimeout(() => clearInterval(interval), 20);
      });
      sim.host('importer', { main: `${FIXTURES}import-waits.mjs` });
      const result = await sim.run();
      return { log: takeLog(), fingerprint: result.fingerprint };
    };
    const first = await runOnce();
    // In-thread hooks (Node 22.15+, 24): Node's own order, within the event that imported (the
    // failed resolve first). A loader thread (Node 20): held, then settled in call order, each
    // in an 'io' event of its own, behind the tick already queued for 9 ms.
    const settled = typeof module.registerHooks === 'function' ? `ERR_MODULE_NOT_FOUND, a, b at ${STARTUP_MS + 9} ms, ticks seen 8` : `a, b, ERR_MODULE_NOT_FOUND at ${STARTUP_MS + 9} ms, ticks seen 9`;
    assert.deepEqual(first.log, ['top-level-timer: evaluated after 7 ms', `settled ${settled}`]);
    assert.deepEqual(await runOnce(), first);
  });

  it('a host\'s fs call made while another host\'s module graph loads is held too', async function () {
    if (typeof module.registerHooks === 'function') {
      // In-thread loader hooks (Node 22.15+, 24) load a graph synchronously: no host code runs
      // meanwhile, and a module that is a FIFO would block the thread.
      this.skip();
    }
    const mkfifo = (name) => {
      const file = path.join(dir, name);
      const made = spawnSync('mkfifo', [file]);
      if (made.status !== 0) this.skip();
      return file;
    };
    const slowMain = mkfifo('slow-main.mjs'); // its graph loads when the test writes it
    const readerFifo = mkfifo('reader.fifo');
    const gate = new Int32Array(new SharedArrayBuffer(4));
    const sim = new Sim({ seed: 0x18 });
    sim.host('reader', async () => {
      await Atomics.waitAsync(gate, 0, 0).value; // resumes outside every simulated event
      const text = await fs.promises.readFile(readerFifo, 'utf8');
      globalThis.__dstStartupLog.push(`reader: "${text}" at ${performance.now()} ms`);
    });
    sim.host('slow', { main: slowMain });
    sim.client('client', async () => {
      await sleep(10);
      globalThis.__dstStartupLog.push(`client: done at ${performance.now()} ms`);
    });
    const running = sim.run();
    await sleep(100); // the slow host's graph is loading: its main module cannot be read yet
    Atomics.notify(gate, 0); // the reader starts its read now, during that loading
    await sleep(100);
    await fs.promises.writeFile(slowMain, 'globalThis.__dstStartupLog.push(`slow: evaluating at ${performance.now()} ms`);\n');
    await sleep(100); // before the fix, the run went on to 10 ms here and ended
    await fs.promises.writeFile(readerFifo, 'late data');
    const result = await running;
    assert.equal(result.stopReason, 'clients-done');
    assert.deepEqual(takeLog(), [`slow: evaluating at ${STARTUP_MS} ms`, `reader: "late data" at ${STARTUP_MS} ms`, `client: done at ${STARTUP_MS + 10} ms`]);
  });
});
