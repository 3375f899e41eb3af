/**
 * fs.opendir from a host, on both disks (shims/fs/fs.ts, "directories opened by fs.opendir").
 * Node's Dir reads through a binding of its own, which the fs shim never saw: on the real disk its
 * reads completed wherever the thread pool put them among the simulation's events, and on a
 * simulated disk they read the real directory behind the disk's back. (What each call gives,
 * errors included, is compared with plain Node by the compliance programs 15-opendir.mjs and
 * 119-fs-opendir.mjs.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Sim } from 'dst-runtime';

describe('fs.opendir inside a simulation (seed 7)', function () {
  this.timeout(60_000);
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-opendir-'));
    for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(dir, `f${String(i).padStart(2, '0')}`), '');
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'inner'), '');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A host that reads `dir` 4 entries at a time while a 1 ms interval ticks, and what it saw. */
  async function readWhileTicking(options) {
    const log = [];
    const sim = new Sim({ seed: 7, ...options });
    sim.host('h', async () => {
      let ticks = 0;
      const interval = setInterval(() => ticks++, 1);
      const opened = await fs.promises.opendir(dir, { bufferSize: 4 });
      log.push(`open@${ticks}`);
      let count = 0;
      for await (const entry of opened) {
        count++;
        if (count % 10 === 0) log.push(`${count}@${ticks}:${entry.name}`);
      }
      clearInterval(interval);
      log.push(`end@${ticks}:${count}`);
    });
    const result = await sim.run();
    return { log, fingerprint: result.fingerprint, elapsedNs: result.elapsedNs };
  }

  it('on the real disk: every run of one seed reads the directory at the same points of the run', async () => {
    // Found by a probe (2026-12-05): 13 different runs in 20 of one seed.
    const runs = [];
    for (let i = 0; i < 10; i++) runs.push(await readWhileTicking({}));
    for (const run of runs) assert.deepEqual(run, runs[0]);
    assert.match(runs[0].log.at(-1), /^end@\d+:41$/);
  });

  it('on a simulated disk with latency: the reads take virtual time, the same in every run', async () => {
    const options = { disk: 'simulated', diskFaults: { latency: { minMs: 2, maxMs: 5 } } };
    const first = await readWhileTicking(options);
    const second = await readWhileTicking(options);
    assert.deepEqual(second, first);
    assert.match(first.log.at(-1), /^end@\d+:41$/);
    // The open and 11 reads of 4 entries (and the last, empty one) each waited 2-5 ms.
    const ticks = Number(/^end@(\d+)/.exec(first.log.at(-1))[1]);
    assert.ok(ticks >= 2 * 12, first.log.join(' '));
  });

  it('on a simulated disk: it lists what the disk holds, not the real directory', async () => {
    let names;
    const sim = new Sim({ seed: 7, disk: 'simulated' });
    sim.host('h', async () => {
      fs.writeFileSync(path.join(dir, 'made-in-the-run'), 'x');
      fs.unlinkSync(path.join(dir, 'f00'));
      names = [];
      for await (const entry of await fs.promises.opendir(dir)) names.push(entry.name);
    });
    await sim.run();
    assert.equal(names.includes('made-in-the-run'), true);
    assert.equal(names.includes('f00'), false);
    assert.equal(names.length, 41);
    // The real directory is as it was.
    assert.equal(fs.existsSync(path.join(dir, 'f00')), true);
    assert.equal(fs.existsSync(path.join(dir, 'made-in-the-run')), false);
  });

  it('a Dir whose host is gone fails with EBADF, as its FileHandles do, instead of never answering', async () => {
    // Found by a review (2026-12-05): read() after the run never called back, and the Dir was
    // stuck (readSync: ERR_DIR_CONCURRENT_OPERATION).
    for (const disk of ['real', 'simulated']) {
      let opened;
      const sim = new Sim({ seed: 7, disk });
      sim.host('h', () => {
        opened = fs.opendirSync(dir);
      });
      await sim.run();
      await assert.rejects(opened.read(), { code: 'EBADF', syscall: 'scandir' }, disk);
      assert.throws(() => opened.readSync(), { code: 'EBADF', syscall: 'scandir' }, disk);
      assert.throws(() => opened.closeSync(), { code: 'EBADF', syscall: 'closedir' }, disk);
    }
  });

  it('recursive: read on the real disk; refused on a simulated disk, whose subdirectories Node\'s Dir would read from the real one', async () => {
    const seen = {};
    for (const disk of ['real', 'simulated']) {
      const sim = new Sim({ seed: 7, disk });
      sim.host('h', () => {
        try {
          const opened = fs.opendirSync(dir, { recursive: true });
          const names = [];
          for (let entry = opened.readSync(); entry !== null; entry = opened.readSync()) names.push(path.relative(dir, path.join(entry.parentPath, entry.name)));
          opened.closeSync();
          seen[disk] = names.length;
        } catch (error) {
          seen[disk] = `${error.code}: ${error.message}`;
        }
      });
      await sim.run();
    }
    assert.equal(seen.real, 42);
    assert.match(seen.simulated, /^DST_UNSUPPORTED: fs\.opendirSync with \{ recursive: true \} on a simulated disk \(host "h"\)/);
  });
});
