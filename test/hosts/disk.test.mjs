import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineScenario, Sim } from 'dst-runtime';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const FIXTURES = fileURLToPath(new URL('./fixtures/disk/', import.meta.url));
const REGISTER_MJS = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));

/** A real directory for the test (the simulated disks lie over it); removed after. */
function realDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dst-disk-test-'));
}

/**
 * One machine writes a log the way many stores do, then its machine crashes: `db` boots once,
 * writes, and a client crashes and restarts it after 20 ms. The second boot reports what it
 * finds. Returns that report and the run's result.
 */
async function crashAfterWrites(dir, seed, write) {
  const found = {};
  const sim = new Sim({ seed, disk: 'simulated' });
  let boots = 0;
  sim.host(
    'db',
    async () => {
      boots++;
      if (boots === 1) {
        await write();
        setInterval(() => {}, 1000); // stays up until crashed
        return;
      }
      for (const name of fs.readdirSync(dir).sort()) {
        const file = path.join(dir, name);
        found[name] = fs.statSync(file).isDirectory() ? 'directory' : fs.readFileSync(file, 'utf8');
      }
    },
    { onCrash: 'keep-down' },
  );
  sim.client('operator', async () => {
    await sleep(20);
    sim.crash('db');
    sim.restart('db');
    await sleep(20);
  });
  const result = await sim.run();
  return { found, result };
}

describe('simulated disks', function () {
  this.timeout(60_000);
  /** A fresh real directory per test: what the simulated disks lie over. */
  let dir;

  beforeEach(() => {
    dir = realDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('in library mode (disk: "simulated")', function () {
    it('process.chdir() into a directory the simulated disk made says why it cannot, and what to do', async () => {
      // It failed with the real chdir's ENOENT for a directory the program could see (Node's
      // test-fs-mkdir and others; a probe, 2026-12-05).
      const seen = {};
      const sim = new Sim({ seed: 7, disk: 'simulated' });
      sim.client('app', () => {
        const made = path.join(dir, 'made');
        fs.mkdirSync(made);
        try {
          process.chdir(made);
        } catch (error) {
          seen.made = `${error.code}: ${error.message}`;
        }
        try {
          process.chdir(path.join(dir, 'missing'));
        } catch (error) {
          seen.missing = error.code; // a directory that is nowhere: the real error
        }
        process.chdir(dir); // a real directory: entered
        seen.cwd = process.cwd() === dir;
      });
      const cwd = process.cwd();
      try {
        await sim.run();
      } finally {
        process.chdir(cwd);
      }
      assert.match(seen.made, /^DST_UNSUPPORTED: process\.chdir\(\) into a directory the simulated disk made \('.*made', host "app"\).*name files by absolute paths/);
      assert.equal(seen.missing, 'ENOENT');
      assert.equal(seen.cwd, true);
    });

    it('copyFile with COPYFILE_FICLONE_FORCE fails as on ext4 (ENOTSUP), after libuv opened the destination: it is removed', async () => {
      // Plainly on ext4 (measured on 20, 22, 24); the simulated disk kept the old destination (a probe, 2026-12-05).
      const seen = {};
      const sim = new Sim({ seed: 7, disk: 'simulated' });
      sim.client('copier', () => {
        fs.writeFileSync(path.join(dir, 'src'), 'source');
        fs.writeFileSync(path.join(dir, 'dst'), 'old destination');
        try {
          fs.copyFileSync(path.join(dir, 'src'), path.join(dir, 'dst'), fs.constants.COPYFILE_FICLONE_FORCE);
        } catch (error) {
          seen.error = `${error.code} ${error.syscall}`;
        }
        seen.after = fs.existsSync(path.join(dir, 'dst'));
        fs.copyFileSync(path.join(dir, 'src'), path.join(dir, 'dst'), fs.constants.COPYFILE_FICLONE); // falls back to a copy
        seen.ficlone = fs.readFileSync(path.join(dir, 'dst'), 'utf8');
      });
      await sim.run();
      assert.deepEqual(seen, { error: 'ENOTSUP copyfile', after: false, ficlone: 'source' });
    });

    it("mkdtemp's failure names the template when synchronous, the last name tried when not, as Node's", async () => {
      // Found by a probe (2026-12-05): the asynchronous forms named the template (XXXXXX).
      const runOnce = async () => {
        const paths = [];
        const sim = new Sim({ seed: 7, disk: 'simulated' });
        sim.client('maker', async () => {
          const prefix = path.join(dir, 'missing', 'p-');
          try {
            fs.mkdtempSync(prefix);
          } catch (error) {
            paths.push(`${error.code} ${error.syscall} ${path.relative(dir, error.path)} ${error.message.endsWith(`'${error.path}'`)}`);
          }
          const callback = await new Promise((resolve) => fs.mkdtemp(prefix, resolve));
          const promised = await fs.promises.mkdtemp(prefix).catch((error) => error);
          for (const error of [callback, promised]) paths.push(`${error.code} ${error.syscall} ${path.relative(dir, error.path)} ${error.message.endsWith(`'${error.path}'`)}`);
        });
        await sim.run();
        return paths;
      };
      const paths = await runOnce();
      assert.equal(paths[0], 'ENOENT mkdtemp missing/p-XXXXXX true');
      for (const line of paths.slice(1)) assert.match(line, /^ENOENT mkdtemp missing\/p-[a-zA-Z0-9]{6} true$/);
      assert.notEqual(paths[1], paths[2]);
      assert.deepEqual(await runOnce(), paths);
    });

    it('a machine crash keeps what was fsync\'d and loses the rest; names are journaled', async () => {
      const { found } = await crashAfterWrites(dir, 1, async () => {
        const log = fs.openSync(path.join(dir, 'log'), 'a');
        fs.writeSync(log, 'one\n');
        fs.fsyncSync(log);
        fs.writeSync(log, 'two\n'); // never synced
        fs.closeSync(log);
        // The classic: write a new version, rename it over the old one, no fsync.
        fs.writeFileSync(path.join(dir, 'config'), 'v1');
        const config = fs.openSync(path.join(dir, 'config'), 'r');
        fs.fsyncSync(config);
        fs.closeSync(config);
        fs.writeFileSync(path.join(dir, 'config.tmp'), 'v2');
        fs.renameSync(path.join(dir, 'config.tmp'), path.join(dir, 'config'));
        // Done right: fdatasync before the rename.
        const fd = fs.openSync(path.join(dir, 'state.tmp'), 'w');
        fs.writeSync(fd, 'durable');
        fs.fdatasyncSync(fd);
        fs.closeSync(fd);
        fs.renameSync(path.join(dir, 'state.tmp'), path.join(dir, 'state'));
        // O_SYNC writes are durable as they return; promise-API writes are not.
        const synced = fs.openSync(path.join(dir, 'osync'), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_SYNC);
        fs.writeSync(synced, 'at once');
        fs.closeSync(synced);
        await fs.promises.writeFile(path.join(dir, 'promised'), 'lost');
        fs.mkdirSync(path.join(dir, 'sub'));
      });
      assert.deepEqual(found, { config: '', log: 'one\n', osync: 'at once', promised: '', state: 'durable', sub: 'directory' });
    });

    it("a process that dies (uncaught exception) loses nothing: the kernel still holds its writes", async () => {
      const found = {};
      const sim = new Sim({ seed: 2, disk: 'simulated' });
      let boots = 0;
      sim.host(
        'db',
        () => {
          boots++;
          if (boots === 1) {
            fs.writeFileSync(path.join(dir, 'unsynced'), 'kept');
            setTimeout(() => {
              throw new Error('boom');
            }, 5);
            return;
          }
          found.text = fs.readFileSync(path.join(dir, 'unsynced'), 'utf8');
        },
        { onCrash: 'restart' },
      );
      await sim.run();
      assert.equal(boots, 2);
      assert.deepEqual(found, { text: 'kept' });
    });

    it('never writes the real disk: real files read through, writes and deletes stay simulated', async () => {
      fs.writeFileSync(path.join(dir, 'real.txt'), 'real contents');
      fs.mkdirSync(path.join(dir, 'real-dir'));
      fs.writeFileSync(path.join(dir, 'real-dir', 'inner'), 'inner');
      const seen = {};
      const sim = new Sim({ seed: 3, disk: 'simulated' });
      sim.client('app', async () => {
        seen.read = fs.readFileSync(path.join(dir, 'real.txt'), 'utf8');
        fs.appendFileSync(path.join(dir, 'real.txt'), ' + simulated');
        seen.appended = await fs.promises.readFile(path.join(dir, 'real.txt'), 'utf8');
        fs.writeFileSync(path.join(dir, 'new.txt'), 'new');
        fs.rmSync(path.join(dir, 'real-dir'), { recursive: true });
        fs.renameSync(path.join(dir, 'new.txt'), path.join(dir, 'moved.txt'));
        seen.listing = fs.readdirSync(dir).sort();
      });
      await sim.run();
      assert.deepEqual(seen, { read: 'real contents', appended: 'real contents + simulated', listing: ['moved.txt', 'real.txt'] });
      // The real disk is as it was.
      assert.deepEqual(fs.readdirSync(dir).sort(), ['real-dir', 'real.txt']);
      assert.equal(fs.readFileSync(path.join(dir, 'real.txt'), 'utf8'), 'real contents');
      assert.equal(fs.readFileSync(path.join(dir, 'real-dir', 'inner'), 'utf8'), 'inner');
    });

    it('a real directory moved after a file in it was written keeps all its real entries, at every depth', async () => {
      // Found by a probe: the write put the directory in the upper layer (it still read its other
      // entries from its real path), and the move left that path, so its new name listed ENOENT
      // (or, moved over an empty real directory, that directory's entries: none).
      for (const [name, contents] of [['a/one', 'one'], ['a/two', 'two'], ['a/sub/y', 'y'], ['a/sub/deep/x', 'x'], ['a/gone', 'g']]) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), contents);
      }
      fs.mkdirSync(path.join(dir, 'empty'));
      const seen = {};
      const sim = new Sim({ seed: 3, disk: 'simulated' });
      sim.client('app', () => {
        const at = (name) => path.join(dir, name);
        fs.appendFileSync(at('a/one'), '+');
        fs.appendFileSync(at('a/sub/deep/x'), '+');
        fs.rmSync(at('a/gone'));
        fs.renameSync(at('a'), at('empty'));
        const tree = (name) => Object.fromEntries(fs.readdirSync(at(name), { withFileTypes: true }).map((e) => [e.name, e.isDirectory() ? tree(`${name}/${e.name}`) : fs.readFileSync(at(`${name}/${e.name}`), 'utf8')]));
        seen.moved = tree('empty');
        seen.top = fs.readdirSync(dir).sort();
        try {
          fs.rmdirSync(at('empty'));
        } catch (error) {
          seen.rmdir = error.code;
        }
      });
      await sim.run();
      assert.deepEqual(seen, {
        moved: { one: 'one+', two: 'two', sub: { y: 'y', deep: { x: 'x+' } } },
        top: ['empty'],
        rmdir: 'ENOTEMPTY',
      });
      assert.deepEqual(fs.readdirSync(dir).sort(), ['a', 'empty'], 'the real disk is as it was');
    });

    it('a real file copied up on open: a reader opened first sees what another descriptor appends', async () => {
      fs.writeFileSync(path.join(dir, 'app.log'), 'log1\n');
      const seen = {};
      const sim = new Sim({ seed: 7, disk: 'simulated' });
      sim.client('tail', () => {
        const reader = fs.openSync(path.join(dir, 'app.log'), 'r');
        const chunk = Buffer.alloc(64);
        seen.first = chunk.toString('utf8', 0, fs.readSync(reader, chunk, 0, 64, null));
        fs.appendFileSync(path.join(dir, 'app.log'), 'log2\n');
        seen.next = chunk.toString('utf8', 0, fs.readSync(reader, chunk, 0, 64, null));
        seen.size = fs.fstatSync(reader).size;
        fs.closeSync(reader);
      });
      await sim.run();
      assert.deepEqual(seen, { first: 'log1\n', next: 'log2\n', size: 10 });
      assert.equal(fs.readFileSync(path.join(dir, 'app.log'), 'utf8'), 'log1\n');
    });

    it('each host has its own disk, and the test runner sees the real one', async () => {
      const seen = {};
      const sim = new Sim({ seed: 4, disk: 'simulated' });
      sim.client('a', async () => {
        fs.writeFileSync(path.join(dir, 'mine'), 'a');
        await sleep(10);
        seen.a = fs.readFileSync(path.join(dir, 'mine'), 'utf8');
      });
      sim.client('b', async () => {
        await sleep(5);
        seen.bSeesA = fs.existsSync(path.join(dir, 'mine'));
        fs.writeFileSync(path.join(dir, 'mine'), 'b');
      });
      await sim.run();
      assert.equal(seen.a, 'a');
      assert.equal(seen.bSeesA, false);
      assert.equal(fs.existsSync(path.join(dir, 'mine')), false);
    });

    it('runs are a function of the seed: hosts appending at random times give the same files and fingerprint', async () => {
      async function run(seed) {
        const files = {};
        const sim = new Sim({ seed, disk: 'simulated' });
        for (const name of ['n1', 'n2', 'n3']) {
          sim.host(name, async () => {
            const log = await fs.promises.open(path.join(dir, 'log'), 'a');
            for (let i = 0; i < 20; i++) {
              await sleep(1 + Math.floor(Math.random() * 10));
              await log.write(`${name}:${i}:${Math.random().toFixed(6)}\n`);
              if (Math.random() < 0.3) await log.sync();
            }
            await log.close();
            files[name] = await fs.promises.readFile(path.join(dir, 'log'), 'utf8');
          });
        }
        sim.client('chaos', async () => {
          await sleep(40 + Math.floor(Math.random() * 40));
          sim.crash('n2');
          sim.restart('n2');
          await sleep(500); // the run ends with the last client: after every host is done
        });
        const result = await sim.run();
        return { fingerprint: result.fingerprint, events: result.events, files };
      }
      const first = await run(11);
      const again = await run(11);
      const other = await run(12);
      assert.deepEqual(again, first);
      assert.deepEqual(Object.keys(first.files).sort(), ['n1', 'n2', 'n3']);
      assert.match(first.files.n1, /^(n1:\d+:0\.\d{6}\n){20}$/);
      assert.notEqual(other.fingerprint, first.fingerprint);
      assert.notDeepEqual(other.files, first.files);
    });

    it('fs.readFile (callback API) works after lib has loaded its read machinery before the run', async () => {
      const real = path.join(dir, 'preloaded.txt');
      fs.writeFileSync(real, 'from the real disk');
      // Loads lib's ReadFileContext with Node's own binding functions, outside any simulation.
      await new Promise((resolve, reject) => fs.readFile(real, (error) => (error ? reject(error) : resolve())));
      const seen = {};
      const sim = new Sim({ seed: 5, disk: 'simulated' });
      sim.client('app', async () => {
        fs.writeFileSync(path.join(dir, 'sim.txt'), 'simulated');
        seen.sim = await new Promise((resolve) => fs.readFile(path.join(dir, 'sim.txt'), 'utf8', (error, data) => resolve([error, data])));
        seen.real = await new Promise((resolve) => fs.readFile(real, (error, data) => resolve([error, data.toString()])));
        const fd = fs.openSync(path.join(dir, 'sim.txt'), 'r');
        seen.byFd = await new Promise((resolve) => fs.readFile(fd, 'utf8', (error, data) => resolve([error, data])));
        fs.closeSync(fd);
        seen.missing = await new Promise((resolve) => fs.readFile(path.join(dir, 'nope'), (error) => resolve(error.code)));
      });
      await sim.run();
      assert.deepEqual(seen, { sim: [null, 'simulated'], real: [null, 'from the real disk'], byFd: [null, 'simulated'], missing: 'ENOENT' });
    });

    it('an API the disk does not simulate yet fails the host with a message naming it and what to do', async () => {
      const sim = new Sim({ seed: 6, disk: 'simulated' });
      sim.client('app', () => {
        fs.statfsSync(dir);
      });
      await assert.rejects(sim.run(), (error) => {
        assert.match(error.message, /UnsupportedError: fs\.statfsSync on a simulated disk \(host "app"\) is not supported inside a dst-runtime simulation: the simulated disk does not serve it yet/);
        assert.match(error.message, /DST_DISK=real/);
        assert.match(error.message, /seed/i);
        return true;
      });
      // Each form of a call names itself (all three used to say "fs.statfs"). A recursive Dir
      // opens subdirectories through the directory binding, fs.openAsBlob reads through the Blob
      // binding, fs.cpSync copies in C++: none of them could see the simulated disk, so they are
      // refused too.
      for (const [call, api] of [
        [() => fs.promises.statfs(dir), 'fs.promises.statfs'],
        [() => new Promise((resolve) => fs.statfs(dir, resolve)), 'fs.statfs'],
        [() => fs.opendirSync(dir, { recursive: true }), 'fs.opendirSync with { recursive: true }'],
        [() => fs.openAsBlob(path.join(dir, 'x')), 'fs.openAsBlob'],
        [() => fs.cpSync(dir, path.join(dir, 'copy'), { recursive: true }), 'fs.cpSync'],
      ]) {
        const again = new Sim({ seed: 6, disk: 'simulated' });
        again.client('app', call);
        await assert.rejects(again.run(), new RegExp(`${api.replace(/[.{}]/g, '\\$&')} on a simulated disk \\(host "app"\\) is not supported`));
      }
    });

    it('rejects a bad disk option with a clear message, in Sim and in scenarios', () => {
      assert.throws(() => new Sim({ seed: 1, disk: 'ssd' }), { message: `Failed to configure simulation: disk must be 'real' or 'simulated', got "ssd"` });
      assert.throws(() => defineScenario({ name: 's', hosts: () => {}, durationMs: 100, disk: true }), /disk must be 'simulated' or 'real', got true/);
    });
  });

  describe('in register mode (DST_DISK=simulated)', function () {

    function runFixture(env) {
      return spawnSync(process.execPath, ['--import', REGISTER_MJS, path.join(FIXTURES, 'write-and-fail.mjs'), dir], {
        encoding: 'utf8',
        env: { ...process.env, DST_SEED: '0x2a', ...env },
      });
    }

    it('the program writes only to the simulated disk, stdout still reaches the real fd 1, and the replay command carries DST_DISK', () => {
      const result = runFixture({ DST_DISK: 'simulated' });
      assert.match(result.stdout, /^read back: written by the program\nsize: 22\n/);
      assert.equal(fs.existsSync(path.join(dir, 'out.txt')), false, 'the real disk was written');
      assert.match(result.stderr, /DST_SEED=0x2a DST_DISK=simulated /);
    });

    it('with the real disk, the same program writes the real file', () => {
      const result = runFixture({ DST_DISK: '' });
      assert.match(result.stdout, /^read back: written by the program\n/);
      assert.equal(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8'), 'written by the program');
    });

    it('an unknown DST_DISK is a usage error that says what to write', () => {
      const result = runFixture({ DST_DISK: 'ramdisk' });
      assert.equal(result.status, 64, result.stderr); // docs/guide.md: 64 is a usage error
      assert.match(result.stderr, /Failed to parse DST_DISK: "ramdisk" is not a disk mode \(use DST_DISK=simulated or DST_DISK=real\)/);
    });
  });
});
