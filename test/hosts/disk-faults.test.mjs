/**
 * Disk faults on simulated disks (runtime/disk/faults.ts, shims/fs/disk.ts): EIO on read, write
 * and fsync (with Linux's dropped pages), ENOSPC past a quota, torn writes at a crash, latency
 * and slow disks, corrupted reads; per host and path pattern; from the Sim option, from
 * sim.setDiskFaults, from DST_DISK_FAULTS and from a scenario's profile.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineScenario, runScenario, Sim, STARTUP_MS, swarmFaults } from 'dst-runtime';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const FIXTURES = fileURLToPath(new URL('./fixtures/disk/', import.meta.url));
const REGISTER_MJS = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));

/** An error as a program sees it: the fields Node sets and their order. */
const shape = (error) => ({ message: error.message, errno: error.errno, code: error.code, syscall: error.syscall, path: error.path, keys: Object.keys(error) });

describe('disk faults', function () {
  this.timeout(60_000);
  let dir;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-disk-faults-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('EIO on reads and writes of the paths a rule names, in every call form, with errors as Node makes them', async () => {
    const seen = {};
    // A real file with contents: a read at its end would not reach the device.
    fs.mkdirSync(path.join(dir, 'bad'));
    fs.writeFileSync(path.join(dir, 'bad', 'file'), 'real contents');
    const sim = new Sim({ seed: 1, disk: 'simulated', diskFaults: { paths: `${dir}/bad/**`, readErrorRate: 1, writeErrorRate: 1 } });
    sim.client('app', async () => {
      fs.writeFileSync(path.join(dir, 'good'), 'fine'); // another path: untouched
      seen.good = fs.readFileSync(path.join(dir, 'good'), 'utf8');
      const bad = path.join(dir, 'bad', 'file');
      const attempt = (label, fn) => {
        try {
          fn();
          seen[label] = 'no error';
        } catch (error) {
          seen[label] = shape(error);
        }
      };
      const fd = fs.openSync(bad, 'r+'); // the open itself succeeds
      attempt('readSync', () => fs.readSync(fd, Buffer.alloc(4)));
      attempt('readFileSync utf8', () => fs.readFileSync(bad, 'utf8'));
      seen.callback = await new Promise((resolve) => fs.readFile(bad, (error) => resolve(shape(error))));
      attempt('writeSync', () => fs.writeSync(fd, 'x'));
      fs.closeSync(fd);
      // (Its open truncates the file, as the kernel does before the write fails.)
      attempt('writeFileSync', () => fs.writeFileSync(bad, 'x'));
      seen.promise = await fs.promises.writeFile(bad, 'y').then(() => 'no error', shape);
    });
    await sim.run();
    const read = { message: 'EIO: i/o error, read', errno: -5, code: 'EIO', syscall: 'read', path: undefined, keys: ['errno', 'code', 'syscall'] };
    const write = { message: 'EIO: i/o error, write', errno: -5, code: 'EIO', syscall: 'write', path: undefined, keys: ['errno', 'code', 'syscall'] };
    assert.deepEqual(seen, {
      good: 'fine',
      writeFileSync: write,
      // writeSync passes a ctx: lib's uvException builds the error, keys in its order.
      writeSync: { ...write, keys: ['errno', 'syscall', 'code'] },
      readSync: read,
      'readFileSync utf8': read,
      callback: read,
      promise: write,
    });
  });

  it('path patterns: * within a component, ** across them, ? one character, relative ones from the working directory, **/ anywhere', async () => {
    const failed = {};
    const sim = new Sim({ seed: 1, disk: 'simulated', diskFaults: { paths: ['dst-pattern-test/*.log', `${dir}/x?.bin`, '**/deep/**/*.wal'], writeErrorRate: 1 } });
    sim.client('app', () => {
      // The simulated disk: nothing here reaches the real working directory.
      fs.mkdirSync('dst-pattern-test/sub', { recursive: true });
      fs.mkdirSync(path.join(dir, 'deep', 'er', 'still'), { recursive: true });
      const files = {
        'relative *.log': 'dst-pattern-test/a.log',
        'relative, another component': 'dst-pattern-test/sub/a.log',
        'relative, another extension': 'dst-pattern-test/a.txt',
        'x?.bin, one character': path.join(dir, 'x1.bin'),
        'x?.bin, two characters': path.join(dir, 'x12.bin'),
        '**/deep/**/*.wal, deeper': path.join(dir, 'deep', 'er', 'still', 'w.wal'),
        '**/deep/**/*.wal, right under deep': path.join(dir, 'deep', 'w.wal'),
        '**/deep/**/*.wal, not a wal': path.join(dir, 'deep', 'w.log'),
      };
      for (const [label, file] of Object.entries(files)) {
        try {
          fs.writeFileSync(file, 'x');
          failed[label] = false;
        } catch (error) {
          failed[label] = error.code;
        }
      }
    });
    await sim.run();
    assert.deepEqual(failed, {
      'relative *.log': 'EIO',
      'relative, another component': false,
      'relative, another extension': false,
      'x?.bin, one character': 'EIO',
      'x?.bin, two characters': false,
      '**/deep/**/*.wal, deeper': 'EIO',
      '**/deep/**/*.wal, right under deep': 'EIO',
      '**/deep/**/*.wal, not a wal': false,
    });
    assert.equal(fs.existsSync('dst-pattern-test'), false, 'the real working directory is untouched');
  });

  it('a failed fsync drops the unsynced data (Linux marks the dirty pages clean): the next fsync succeeds and saves nothing', async () => {
    const seen = {};
    let boots = 0;
    const sim = new Sim({ seed: 2, disk: 'simulated' });
    const log = path.join(dir, 'log');
    sim.host(
      'db',
      async () => {
        boots++;
        if (boots === 2) {
          seen.afterCrash = fs.readFileSync(log, 'utf8');
          return;
        }
        const fd = fs.openSync(log, 'a');
        fs.writeSync(fd, 'one\n');
        fs.fsyncSync(fd);
        fs.writeSync(fd, 'two\n');
        sim.setDiskFaults('db', { fsyncErrorRate: 1 });
        try {
          fs.fsyncSync(fd);
        } catch (error) {
          seen.fsync = shape(error);
        }
        seen.visible = fs.readFileSync(log, 'utf8');
        sim.setDiskFaults('db', null);
        fs.fsyncSync(fd); // succeeds: the pages are clean
        seen.fdatasync = await new Promise((resolve) => {
          sim.setDiskFaults('db', { fsyncErrorRate: 1 });
          fs.writeSync(fd, 'three\n');
          fs.fdatasync(fd, (error) => resolve(shape(error)));
        });
        sim.setDiskFaults('db', null);
        setInterval(() => {}, 1000);
      },
      { onCrash: 'keep-down' },
    );
    sim.client('operator', async () => {
      await sleep(10);
      sim.crash('db');
      sim.restart('db');
      await sleep(10);
    });
    await sim.run();
    assert.deepEqual(seen, {
      fsync: { message: 'EIO: i/o error, fsync', errno: -5, code: 'EIO', syscall: 'fsync', path: undefined, keys: ['errno', 'code', 'syscall'] },
      visible: 'one\n',
      fdatasync: { message: 'EIO: i/o error, fdatasync', errno: -5, code: 'EIO', syscall: 'fdatasync', path: undefined, keys: ['errno', 'code', 'syscall'] },
      afterCrash: 'one\n',
    });
  });

  it('a failed writeback is reported once to every descriptor open at the time (Linux errseq, 4.13+), not to one opened after', async () => {
    // Found by a probe: a writer that acks only after its own fsync succeeded acked data a
    // flusher's fsync on another descriptor had already lost.
    const seen = [];
    const sim = new Sim({ seed: 1, disk: 'simulated' });
    const wal = path.join(dir, 'wal');
    sim.client('c', () => {
      const attempt = (label, fd) => {
        try {
          fs.fsyncSync(fd);
          seen.push(`${label}: ok`);
        } catch (error) {
          seen.push(`${label}: ${error.code}`);
        }
      };
      const writer = fs.openSync(wal, 'w');
      const flusher = fs.openSync(wal, 'r');
      const appender = fs.openSync(wal, 'as'); // O_APPEND | O_SYNC: every write is synced
      fs.writeSync(writer, 'record-1\n');
      sim.setDiskFaults('c', { fsyncErrorRate: 1 });
      attempt('flusher', flusher);
      sim.setDiskFaults('c', null);
      const later = fs.openSync(wal, 'r');
      fs.writeSync(writer, 'record-2\n');
      attempt('writer', writer);
      attempt('writer again', writer);
      attempt('flusher again', flusher);
      attempt('opened after', later);
      // An O_SYNC write syncs too: it is written and flushed, and reports the error once.
      for (const label of ['O_SYNC write', 'O_SYNC write again']) {
        try {
          fs.writeSync(appender, 'r3\n');
          seen.push(`${label}: ok`);
        } catch (error) {
          seen.push(`${label}: ${error.code}`);
        }
      }
      seen.push(JSON.stringify(fs.readFileSync(wal, 'utf8')));
    });
    await sim.run();
    // The writer's fsync flushes record-2 and reports record-1's loss; each descriptor hears of
    // it once. record-1's bytes are gone (the writer's offset stayed past them: a hole).
    assert.deepEqual(seen, [
      'flusher: EIO',
      'writer: EIO',
      'writer again: ok',
      'flusher again: ok',
      'opened after: ok',
      'O_SYNC write: EIO',
      'O_SYNC write again: ok',
      JSON.stringify(`${'\0'.repeat(9)}record-2\nr3\nr3\n`),
    ]);
  });

  it('ENOSPC past a quota: a short write first, then ENOSPC; deleting a file frees its blocks', async () => {
    const seen = {};
    const sim = new Sim({ seed: 3, disk: 'simulated', diskFaults: { hosts: 'app', quotaBytes: 16384 } });
    sim.client('app', () => {
      fs.writeFileSync(path.join(dir, 'small'), 'x'); // one 4 KiB block
      const fd = fs.openSync(path.join(dir, 'big'), 'w');
      seen.short = fs.writeSync(fd, Buffer.alloc(20_000, 1)); // three blocks left
      try {
        fs.writeSync(fd, 'more');
      } catch (error) {
        seen.full = shape(error);
      }
      seen.overwriteInPlace = fs.writeSync(fd, 'in place', 0); // needs no new block
      fs.closeSync(fd);
      fs.unlinkSync(path.join(dir, 'big'));
      seen.afterUnlink = fs.writeSync(fs.openSync(path.join(dir, 'again'), 'w'), Buffer.alloc(8192));
    });
    sim.client('other', () => {
      // Another host's disk has no quota.
      fs.writeFileSync(path.join(dir, 'other'), Buffer.alloc(100_000));
      seen.other = fs.statSync(path.join(dir, 'other')).size;
    });
    await sim.run();
    assert.deepEqual(seen, {
      short: 12288,
      full: { message: 'ENOSPC: no space left on device, write', errno: -28, code: 'ENOSPC', syscall: 'write', path: undefined, keys: ['errno', 'syscall', 'code'] },
      overwriteInPlace: 8,
      afterUnlink: 8192,
      other: 100_000,
    });
  });

  it('a quota counts what the host adds to the disk, not the real files it reads; a string written whole fails past it', async () => {
    // Found by a probe (2026-12-05): reading a real file copied it into the simulation and its
    // blocks took room (on Node 22/24 the loader's read of the program did too), and
    // writeFileSync/appendFileSync of a string past the quota wrote what fitted and succeeded.
    const real = path.join(dir, 'real.bin');
    fs.writeFileSync(real, Buffer.alloc(40_000, 7));
    const seen = {};
    const sim = new Sim({ seed: 3, disk: 'simulated', diskFaults: { quotaBytes: 32768 } });
    sim.client('app', async () => {
      seen.read = fs.readFileSync(real).length;
      seen.readAsync = (await fs.promises.readFile(real)).length;
      fs.writeFileSync(path.join(dir, 'fits'), Buffer.alloc(24_576)); // six of the eight blocks
      fs.appendFileSync(real, Buffer.alloc(100)); // the real file's last block has room: none taken
      for (const [label, write] of [
        ['writeFileSync string', () => fs.writeFileSync(path.join(dir, 'a'), 'a'.repeat(20_000))],
        ['appendFileSync string', () => fs.appendFileSync(path.join(dir, 'b'), 'b'.repeat(20_000))],
      ]) {
        try {
          write();
          seen[label] = 'no error';
        } catch (error) {
          seen[label] = error.code;
        }
      }
      seen.sizes = ['a', 'b'].map((name) => fs.statSync(path.join(dir, name)).size);
    });
    await sim.run();
    assert.deepEqual(seen, { read: 40_000, readAsync: 40_000, 'writeFileSync string': 'ENOSPC', 'appendFileSync string': 'ENOSPC', sizes: [8192, 0] });
  });

  it('a read of no bytes or at the end of the file, and a write of no bytes, never reach the device: no EIO', async () => {
    // Found by a probe (2026-12-05): each failed with EIO at rate 1, where the kernel returns 0
    // before any I/O (an empty file read whole, writeFileSync(path, '')).
    const seen = {};
    const sim = new Sim({ seed: 3, disk: 'simulated', diskFaults: { readErrorRate: 1, writeErrorRate: 1 } });
    sim.client('app', async () => {
      const empty = path.join(dir, 'empty');
      fs.writeFileSync(empty, '');
      fs.appendFileSync(empty, '');
      fs.writeFileSync(empty, Buffer.alloc(0));
      seen.readFileSync = fs.readFileSync(empty, 'utf8');
      seen.readFile = (await fs.promises.readFile(empty)).length;
      const fd = fs.openSync(empty, 'r+');
      seen.writeSync = [fs.writeSync(fd, Buffer.alloc(0)), fs.writeSync(fd, '')];
      seen.readSync = [fs.readSync(fd, Buffer.alloc(4), 0, 0, 0), fs.readSync(fd, Buffer.alloc(4), 0, 4, 0), fs.readSync(fd, Buffer.alloc(4), 0, 4, 100)];
      fs.closeSync(fd);
      fs.copyFileSync(empty, path.join(dir, 'copy'));
      seen.copy = fs.statSync(path.join(dir, 'copy')).size;
      try {
        fs.writeFileSync(empty, 'x');
      } catch (error) {
        seen.oneByte = error.code; // a write that has bytes still fails
      }
    });
    await sim.run();
    assert.deepEqual(seen, { readFileSync: '', readFile: 0, writeSync: [0, 0], readSync: [0, 0, 0], copy: 0, oneByte: 'EIO' });
  });

  it("disk faults never touch Node's reads of the program's own modules, on any Node version", () => {
    // Found by a probe (2026-12-05): on Node 22 and 24 (whose loader reads modules through the
    // binding, at once) a corrupted read flipped a bit of the program's source and a read error
    // failed its import; on Node 20 the same seed ran the program.
    const program = path.join(dir, 'program.mjs');
    fs.writeFileSync(path.join(dir, 'dep.cjs'), 'module.exports = "dependency";\n');
    fs.writeFileSync(program, "import dep from './dep.cjs';\nconsole.log('program ran with', dep);\n");
    for (const faults of ['corrupt=1', 'read=1', 'latency=5ms']) {
      const run = spawnSync(process.execPath, ['--import', REGISTER_MJS, program], {
        encoding: 'utf8',
        env: { ...process.env, DST_SEED: '1', DST_DISK: 'simulated', DST_DISK_FAULTS: faults, DST_QUIET: '1' },
      });
      assert.equal(run.stdout, 'program ran with dependency\n', `${faults}: ${run.stderr}`);
      assert.equal(run.status, 0, run.stderr);
    }
  });

  it('a file deleted while open keeps its blocks until its last descriptor closes, and a crash closes them', async () => {
    // Linux frees an unlinked file's blocks at its last close: the rotated-away log a process
    // still holds open keeps filling the disk. The quota freed them at the unlink (found by a probe).
    const seen = [];
    const sim = new Sim({ seed: 3, disk: 'simulated', diskFaults: { hosts: 'app', quotaBytes: 16384 } });
    const at = (name) => path.join(dir, name);
    const attempt = (label, write) => {
      try {
        seen.push(`${label}: ${write()}`);
      } catch (error) {
        seen.push(`${label}: ${error.code}`);
      }
    };
    let boots = 0;
    sim.host(
      'app',
      () => {
        boots++;
        if (boots === 2) {
          attempt('after the crash', () => fs.writeSync(fs.openSync(at('after'), 'w'), Buffer.alloc(16384)));
          return;
        }
        fs.writeFileSync(at('log'), Buffer.alloc(16384)); // the whole quota
        const fd = fs.openSync(at('log'), 'r+');
        fs.unlinkSync(at('log'));
        attempt('while open', () => fs.writeSync(fs.openSync(at('new'), 'w'), Buffer.alloc(4096)));
        fs.ftruncateSync(fd, 4096);
        attempt('after shrinking it', () => fs.writeSync(fs.openSync(at('new'), 'w'), Buffer.alloc(8192)));
        attempt('growing it', () => fs.writeSync(fd, Buffer.alloc(8192), 0, 8192, 4096));
        fs.closeSync(fd);
        attempt('after its last close', () => fs.writeSync(fs.openSync(at('new2'), 'w'), Buffer.alloc(4096)));
        const held = fs.openSync(at('new2'), 'r');
        fs.unlinkSync(at('new2'));
        fs.unlinkSync(at('new'));
        setInterval(() => {}, 1000);
        return held;
      },
      { onCrash: 'keep-down' },
    );
    sim.client('operator', async () => {
      await sleep(10);
      sim.kill('app');
      sim.restart('app');
      await sleep(10);
    });
    await sim.run();
    assert.deepEqual(seen, [
      'while open: ENOSPC',
      'after shrinking it: 8192',
      'growing it: 4096', // a short write: one block was left
      'after its last close: 4096',
      'after the crash: 16384', // the whole quota: the killed process's descriptors were closed
    ]);
  });

  it('a full disk fails every form of write exactly as a real full file system does (pinned from tmpfs; /dev/full where it exists)', () => {
    const expected = fs.readFileSync(path.join(FIXTURES, 'full-disk.expected.txt'), 'utf8');
    const simulated = spawnSync(process.execPath, ['--import', REGISTER_MJS, path.join(FIXTURES, 'full-disk.mjs'), path.join(dir, 'target')], {
      encoding: 'utf8',
      env: { ...process.env, DST_SEED: '1', DST_DISK: 'simulated', DST_DISK_FAULTS: 'full=1', DST_QUIET: '1' },
    });
    assert.equal(simulated.status, 0, simulated.stderr);
    assert.equal(simulated.stdout, expected);
    let device;
    try {
      device = fs.statSync('/dev/full').isCharacterDevice();
    } catch {
      device = false;
    }
    if (!device) return; // (not every container has /dev/full)
    const plain = spawnSync(process.execPath, [path.join(FIXTURES, 'full-disk.mjs'), '/dev/full'], { encoding: 'utf8' });
    assert.equal(plain.stdout, expected);
  });

  describe('torn writes at a machine crash', function () {
    /** Writes 12 records of 300 bytes without syncing (the first two synced), crashes, returns what the disk kept. */
    async function tornRun(seed, faults) {
      let found;
      let boots = 0;
      const sim = new Sim({ seed, disk: 'simulated', ...(faults === undefined ? {} : { diskFaults: faults }) });
      const file = path.join(dir, 'wal');
      sim.host(
        'db',
        () => {
          boots++;
          if (boots === 2) {
            found = fs.readFileSync(file);
            return;
          }
          const fd = fs.openSync(file, 'w');
          for (let i = 0; i < 12; i++) {
            fs.writeSync(fd, Buffer.alloc(300, 65 + i)); // 'A', 'B', ...
            if (i === 1) fs.fdatasyncSync(fd);
          }
          setInterval(() => {}, 1000);
        },
        { onCrash: 'keep-down' },
      );
      sim.client('operator', async () => {
        await sleep(5);
        sim.crash('db');
        sim.restart('db');
        await sleep(5);
      });
      const result = await sim.run();
      return { found, fingerprint: result.fingerprint };
    }

    it('unsynced writes survive whole, not at all or cut at a sector boundary, in any order; synced ones always', async () => {
      const sector = 512;
      let holes = 0;
      let cuts = 0;
      let kept = 0;
      for (let seed = 1; seed <= 20; seed++) {
        const { found } = await tornRun(seed, { tornWrites: true, sectorBytes: sector });
        assert.ok(found.length >= 600, `seed ${seed}: the synced records are gone (${found.length} bytes)`);
        for (let i = 0; i < found.length; i++) {
          const record = Math.floor(i / 300);
          assert.ok(found[i] === 65 + record || (record >= 2 && found[i] === 0), `seed ${seed}: byte ${i} is ${found[i]}`);
        }
        assert.ok(found.length % sector === 0 || found.length % 300 === 0, `seed ${seed}: the file ends at ${found.length}, neither a sector nor a record boundary`);
        // A hole: a record lost (zeros) before one that survived: the writes reached the disk out of order.
        const records = [];
        for (let r = 0; r * 300 < found.length; r++) records.push(found.subarray(r * 300, Math.min(found.length, (r + 1) * 300)));
        if (records.some((bytes, r) => bytes.includes(0) && records.slice(r + 1).some((later) => later.some((b) => b !== 0)))) holes++;
        if (records.some((bytes) => bytes.includes(0) && bytes.some((b) => b !== 0))) cuts++;
        if (found.length > 600) kept++;
      }
      assert.ok(holes > 0 && cuts > 0 && kept > 0, `holes ${holes}, cuts ${cuts}, seeds keeping unsynced data ${kept} of 20`);
    });

    it('a rewrite through O_TRUNC leaves the old contents, nothing, the new head or the new contents: never new over old (seeds 1-40)', async () => {
      // Found by a probe (2026-12-06): each change survived on its own, so a lost truncation under
      // a surviving write left 'new-OLD-OLD', at the old size, which no instant held. The
      // truncation is metadata: the rewrite's blocks are allocated after it, in the journal's order.
      const seen = new Set();
      const possible = ['OLD-OLD-OLD', '', 'new', 'newer, and longer than the old one'];
      for (let seed = 1; seed <= 40; seed++) {
        let found;
        let boots = 0;
        const sim = new Sim({ seed, disk: 'simulated', diskFaults: { tornWrites: true } });
        const file = path.join(dir, 'config');
        sim.host('h', () => {
          boots++;
          if (boots === 2) {
            found = fs.readFileSync(file, 'latin1');
            return;
          }
          const fd = fs.openSync(file, 'w');
          fs.writeSync(fd, 'OLD-OLD-OLD');
          fs.fsyncSync(fd);
          fs.closeSync(fd);
          fs.writeFileSync(file, 'new');
          fs.writeFileSync(file, 'newer, and longer than the old one');
          setInterval(() => {}, 1000);
        }, { onCrash: 'keep-down' });
        sim.client('operator', async () => {
          await sleep(5);
          sim.crash('h');
          sim.restart('h');
          await sleep(5);
        });
        await sim.run();
        assert.ok(possible.includes(found), `seed ${seed}: ${JSON.stringify(found)}`);
        seen.add(found);
      }
      assert.deepEqual([...seen].sort(), [...possible].sort(), 'each of the four outcomes on some seed');
    });

    it('are a function of the seed; without the fault a crash keeps exactly what was synced', async () => {
      const a = await tornRun(7, { tornWrites: true });
      const b = await tornRun(7, { tornWrites: true });
      assert.deepEqual(a, b);
      const plain = await tornRun(7);
      assert.equal(plain.found.length, 600);
    });
  });

  describe('latency', function () {
    it('asynchronous completions take virtual time and interleave with timers; a synchronous call blocks its host', async () => {
      const events = [];
      const sim = new Sim({ seed: 4, disk: 'simulated', diskFaults: { latency: { minMs: 3, maxMs: 3 }, fsyncLatency: { minMs: 20, maxMs: 20 } } });
      sim.client('app', async () => {
        const file = path.join(dir, 'f');
        fs.writeFileSync(file, 'x'); // one binding call (writeFileUtf8): 3 ms of blocked process
        events.push(`sync write done at ${performance.now()}`);
        const t0 = performance.now();
        setTimeout(() => events.push(`timer 4 ms at ${performance.now() - t0}`), 4);
        const handle = await fs.promises.open(file, 'r+');
        events.push(`open at ${performance.now() - t0}`);
        await handle.sync();
        events.push(`sync at ${performance.now() - t0}`);
        await handle.close();
      });
      await sim.run();
      assert.deepEqual(events, [`sync write done at ${STARTUP_MS + 3}`, 'open at 3', 'timer 4 ms at 4', 'sync at 23']);
    });

    it('a synchronous call on a slow disk blocks its own host only, also when its event reads no clock', async () => {
      // Found by a probe: an event whose only cost was a synchronous read (no clock read, no
      // timer armed) left its time to whichever host ran next, whose clocks jumped ahead and
      // then went back.
      const seen = [];
      const sim = new Sim({ seed: 1, disk: 'simulated', diskFaults: { hosts: 'slow', latency: { minMs: 10, maxMs: 10 } } });
      fs.writeFileSync(path.join(dir, 'f'), 'x');
      sim.host('slow', () => {
        setTimeout(() => fs.readFileSync(path.join(dir, 'f')), 10);
        setTimeout(() => seen.push(`slow: due at 11 ms, ran at ${performance.now() - STARTUP_MS}`), 11);
      });
      sim.host('other', () => {
        for (const due of [11, 12]) setTimeout(() => seen.push(`other: due at ${due} ms, ran at ${performance.now() - STARTUP_MS}`), due);
      });
      await sim.run();
      // readFileSync makes three binding calls that take 10 ms each (open, fstat, read; close none).
      assert.deepEqual(seen, ['other: due at 11 ms, ran at 11', 'other: due at 12 ms, ran at 12', 'slow: due at 11 ms, ran at 40']);
    });

    it('a slow disk set while running (sim.setDiskFaults) slows the host; clearing it restores the speed', async () => {
      const took = [];
      const sim = new Sim({ seed: 5, disk: 'simulated' });
      sim.client('app', async () => {
        const file = path.join(dir, 'f');
        fs.writeFileSync(file, 'x');
        for (const slow of [false, true, false]) {
          sim.setDiskFaults('app', slow ? { latency: { minMs: 100, maxMs: 200 } } : null);
          const t0 = performance.now();
          await fs.promises.readFile(file);
          took.push(performance.now() - t0);
        }
      });
      await sim.run();
      assert.equal(took[0], 0);
      assert.ok(took[1] >= 300 && took[1] <= 600, `slow: ${took[1]} ms`); // open, fstat, read: 100-200 ms each
      assert.equal(took[2], 0);
    });
  });

  it('a corrupted read flips exactly one bit of what the program gets; the file is intact', async () => {
    const seen = {};
    const sim = new Sim({ seed: 6, disk: 'simulated', diskFaults: { paths: '**/*.dat', corruptReadRate: 1 } });
    sim.client('app', () => {
      const data = Buffer.alloc(4096, 0x5a);
      fs.writeFileSync(path.join(dir, 'blob.dat'), data);
      const read = fs.readFileSync(path.join(dir, 'blob.dat'));
      let bits = 0;
      for (let i = 0; i < data.length; i++) for (let x = data[i] ^ read[i]; x; x &= x - 1) bits++;
      seen.bits = bits;
      sim.setDiskFaults('app', { paths: '**/*.dat', corruptReadRate: 0 });
      seen.intact = fs.readFileSync(path.join(dir, 'blob.dat')).equals(data);
    });
    await sim.run();
    assert.deepEqual(seen, { bits: 1, intact: true });
  });

  it('runs with faults are a function of the seed', async () => {
    async function run(seed) {
      const sim = new Sim({
        seed,
        disk: 'simulated',
        diskFaults: [{ readErrorRate: 0.1, writeErrorRate: 0.1, fsyncErrorRate: 0.2, latency: { minMs: 0.1, maxMs: 5, distribution: 'exponential' } }, { tornWrites: true, quotaBytes: 1 << 20 }],
      });
      const outcomes = [];
      for (const name of ['n1', 'n2']) {
        sim.client(name, async () => {
          const file = path.join(dir, 'log');
          for (let i = 0; i < 30; i++) {
            try {
              await fs.promises.appendFile(file, `${name} ${i}\n`);
              if (i % 5 === 0) {
                const h = await fs.promises.open(file, 'r');
                await h.sync();
                await h.close();
              }
              outcomes.push(`${name} ${i} ok`);
            } catch (error) {
              outcomes.push(`${name} ${i} ${error.code}`);
            }
          }
        });
      }
      const result = await sim.run();
      return { fingerprint: result.fingerprint, outcomes };
    }
    const a = await run(9);
    const b = await run(9);
    assert.deepEqual(a, b);
    assert.ok(a.outcomes.some((o) => o.endsWith('EIO')) && a.outcomes.some((o) => o.endsWith('ok')), a.outcomes.join(', '));
    assert.notEqual((await run(10)).fingerprint, a.fingerprint);
  });

  describe('configuration', function () {
    it('clear usage errors for the option, sim.setDiskFaults and DST_DISK_FAULTS', () => {
      assert.throws(() => new Sim({ seed: 1, diskFaults: { readErrorRate: 0.1 } }), {
        message: "Failed to configure simulation: the diskFaults option needs simulated disks: add disk: 'simulated' (or DST_DISK=simulated)",
      });
      assert.throws(() => new Sim({ seed: 1, disk: 'simulated', diskFaults: { readErrorRate: 2 } }), {
        message: 'Failed to configure simulation: diskFaults: readErrorRate must be a probability in [0, 1], got 2',
      });
      assert.throws(() => new Sim({ seed: 1, disk: 'simulated', diskFaults: [{ paths: 'data/**', quotaBytes: 10 }] }), {
        message: 'Failed to configure simulation: diskFaults[0]: quotaBytes apply to a host\'s whole disk, not to some paths: put it in a rule without paths',
      });
      assert.throws(() => new Sim({ seed: 1, disk: 'simulated', diskFaults: { latency: { minMs: 5, maxMs: 1 } } }), /latency needs numbers 0 <= minMs <= maxMs/);
      assert.throws(() => new Sim({ seed: 1, disk: 'simulated', diskFaults: { readErrors: 0.1 } }), /unknown key "readErrors" \(known: hosts, paths, readErrorRate/);
      const sim = new Sim({ seed: 1, disk: 'simulated' });
      sim.host('db', () => {});
      assert.throws(() => sim.setDiskFaults('dbx', { full: true }), /Failed to set the disk faults of host "dbx": no such host \(known: db;/);
      assert.throws(() => new Sim({ seed: 1 }).setDiskFaults('db', { full: true }), /disk faults need simulated disks/);
    });

    it('a rule naming a host the run does not have fails the run at its start', async () => {
      const sim = new Sim({ seed: 1, disk: 'simulated', diskFaults: { hosts: 'dbb', full: true } });
      sim.host('db', () => {});
      await assert.rejects(sim.run(), { message: 'Failed to configure simulation: diskFaults name host "dbb", which the simulation does not have (hosts: db)' });
    });

    it('DST_DISK_FAULTS in register mode: the compact form and JSON; a bad value is a usage error (64); the replay carries it', () => {
      const run = (faults, disk = 'simulated') =>
        spawnSync(process.execPath, ['--import', REGISTER_MJS, path.join(FIXTURES, 'full-disk.mjs'), path.join(dir, 'target')], {
          encoding: 'utf8',
          env: { ...process.env, DST_SEED: '1', DST_DISK: disk, DST_DISK_FAULTS: faults },
        });
      const compact = run(`hosts=main,paths=${dir}/*rget,write=1;latency=1-2ms`);
      assert.equal(compact.status, 0, compact.stderr);
      assert.match(compact.stdout, /^writeSync string .*"EIO: i\/o error, write"/);
      const json = run(JSON.stringify([{ paths: `${dir}/**`, writeErrorRate: 1 }]));
      assert.match(json.stdout, /^writeSync string .*"EIO: i\/o error, write"/);
      const bad = run('fsync=often');
      assert.equal(bad.status, 64);
      assert.match(bad.stderr, /Failed to parse DST_DISK_FAULTS: fsync=often: not a number \(example: DST_DISK_FAULTS=/);
      const unknown = run('eio=0.1');
      assert.match(unknown.stderr, /unknown key "eio" \(known: hosts, paths, read, write, fsync, corrupt, latency, fsyncLatency, quota, full, torn\)/);
      const real = run('full=1', 'real');
      assert.equal(real.status, 64);
      assert.match(real.stderr, /disk faults need simulated disks: set DST_DISK=simulated too/);
      // A failing run's replay line carries the faults.
      const failing = spawnSync(process.execPath, ['--import', REGISTER_MJS, '-e', "require('fs').writeFileSync('x', 'y')"], {
        encoding: 'utf8',
        cwd: dir,
        env: { ...process.env, DST_SEED: '1', DST_DISK: 'simulated', DST_DISK_FAULTS: 'full=1' },
      });
      assert.match(failing.stderr, /DST_SEED=0x1 DST_DISK=simulated DST_DISK_FAULTS=full=1/);
    });
  });

  describe('in scenarios', function () {
    it('profile rates need simulated disks and are checked; swarm mode mixes the disk rates too', () => {
      assert.throws(
        () => defineScenario({ name: 's', hosts: () => {}, durationMs: 100, disk: 'real', faults: { diskFsyncErrorRate: 0.1 } }),
        /faults \(diskFsyncErrorRate\) need simulated disks: add disk: 'simulated' to the scenario/,
      );
      assert.throws(() => defineScenario({ name: 's', hosts: () => {}, durationMs: 100, disk: 'simulated', faults: { diskReadErrorRate: 3 } }), /faults.diskReadErrorRate must be a probability in \[0, 1\], got 3/);
      assert.throws(() => defineScenario({ name: 's', hosts: () => {}, durationMs: 100, disk: 'simulated', faults: { diskSectorBytes: 1024 } }), /sectorBytes must be 512 or 4096/);
      const mixes = Array.from({ length: 40 }, (_, i) => swarmFaults({ diskFsyncErrorRate: 0.6, crashPerSecond: 1 }, i + 1));
      assert.ok(mixes.some((m) => m.diskFsyncErrorRate === 0) && mixes.some((m) => m.diskFsyncErrorRate > 0.6));
      assert.ok(mixes.every((m) => m.diskFsyncErrorRate <= 1 && 'crashPerSecond' in m));
    });

    it('slow and full disks come and go as faults, stop in the heal phase, and replay from the seed', async () => {
      let results;
      const scenario = defineScenario({
        name: 'disk-weather',
        disk: 'simulated',
        hosts(sim, ctx) {
          results = ctx.state.results = [];
          sim.host('store', async () => {
            for (let i = 0; ; i++) {
              const t0 = performance.now();
              let outcome;
              try {
                fs.writeFileSync(path.join(dir, `f${i % 4}`), Buffer.alloc(8192, i));
                outcome = 'ok';
              } catch (error) {
                outcome = error.code;
              }
              ctx.state.results.push([ctx.phase, outcome, performance.now() - t0]);
              await sleep(5);
            }
          });
        },
        durationMs: 3000,
        healMs: 500,
        faults: { diskSlowPerSecond: 3, diskSlowMs: [20, 40], diskFullPerSecond: 3, diskLatencyMs: [0.1, 0.2], downMsMin: 50, downMsMax: 200 },
        invariants: { liveness: [(ctx) => ctx.state.results.filter(([phase, outcome]) => phase === 'heal' && outcome === 'ok').length > 10 || 'no write succeeded while healing'] },
      });
      const a = await runScenario(scenario, 3);
      const seen = results;
      const b = await runScenario(scenario, 3);
      assert.equal(a.ok, true, a.failure?.message);
      assert.equal(a.fingerprint, b.fingerprint);
      const during = (phase, test) => seen.filter(([p, outcome, ms]) => p === phase && test(outcome, ms)).length;
      assert.ok(during('faults', (outcome) => outcome === 'ENOSPC') > 0, 'no write met a full disk');
      assert.ok(during('faults', (outcome, ms) => ms >= 20) > 0, 'no write met a slow disk');
      assert.equal(during('heal', (outcome, ms) => outcome !== 'ok' || ms >= 20), 0);
    });
  });
});
