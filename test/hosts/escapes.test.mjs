import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import fs from 'node:fs';
import { watch as watchPromises } from 'node:fs/promises';
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { Sim } from 'dst-runtime';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The error Node itself throws for `fn` (outside every host), as the tests print it. */
function plainError(fn) {
  try {
    fn();
  } catch (error) {
    return `${error.code}: ${error.message.split(':')[0]}`;
  }
  throw new Error('expected Node to throw');
}

describe('strict mode: APIs that would escape the simulation (seed 0xe5)', () => {
  it('refuses forked children, worker threads, real fds and file watchers inside hosts, naming the API', async () => {
    const errors = [];
    const sim = new Sim({ seed: 0xe5 });
    sim.client('c', async () => {
      const attempt = (fn) => {
        try {
          fn();
          errors.push('no error');
        } catch (error) {
          errors.push(`${error.code}: ${error.message.split(':')[0]}`);
        }
      };
      attempt(() => childProcess.fork('./nothing.js'));
      // A child with an IPC channel is a fork by another name; Node's own argument checks come first.
      attempt(() => childProcess.spawn('true', { stdio: ['pipe', 'pipe', 'pipe', 'ipc'] }));
      attempt(() => childProcess.fork(42));
      attempt(() => new Worker('console.log(1)', { eval: true }));
      attempt(() => fs.watch('.'));
      // Recursive on Linux: Node 20 and 22 watch with their own stat polls (fs.watchFile, which is
      // simulated); Node 24 with an inotify watcher per folder, refused.
      try {
        fs.watch('.', { recursive: true }).close();
        errors.push('recursive: a watcher');
      } catch (error) {
        errors.push(`recursive: ${error.code}`);
      }
      // The promise API starts watching at the first next(), as Node's does.
      const watcher = watchPromises('.');
      errors.push(`promise API returned ${typeof watcher[Symbol.asyncIterator]}`);
      await watcher.next().then(() => errors.push('no error'), (error) => errors.push(`${error.code}: ${error.message.split(':')[0]}`));
      // Node's own argument errors come first, and a path that is not there is its ENOENT.
      attempt(() => fs.watch('a\0b'));
      attempt(() => fs.watch('no-such-file-here'));
      attempt(() => fs.watch('.', { encoding: 'bogus' }));
    });
    await sim.run();
    assert.deepEqual(errors, [
      'DST_UNSUPPORTED: child_process.fork(), or any child process with an IPC channel (\'ipc\' in its stdio; cluster\'s workers too) is not supported inside a dst-runtime simulation',
      'DST_UNSUPPORTED: child_process.fork(), or any child process with an IPC channel (\'ipc\' in its stdio; cluster\'s workers too) is not supported inside a dst-runtime simulation',
      plainError(() => childProcess.fork(42)),
      'DST_UNSUPPORTED: new worker_threads.Worker() is not supported inside a dst-runtime simulation',
      'DST_UNSUPPORTED: fs.watch() is not supported inside a dst-runtime simulation',
      NODE_MAJOR >= 24 ? 'recursive: DST_UNSUPPORTED' : 'recursive: a watcher',
      'promise API returned function',
      'DST_UNSUPPORTED: fs.promises.watch() is not supported inside a dst-runtime simulation',
      plainError(() => fs.watch('a\0b')),
      plainError(() => fs.watch('no-such-file-here')),
      plainError(() => fs.watch('.', { encoding: 'bogus' })),
    ]);
    assert.match(errors.at(-1), /^ERR_INVALID_ARG_VALUE/);
  });

  it('runs synchronous children for real on the real disk: the host waits for the exit, as in Node', async () => {
    const seen = [];
    const sim = new Sim({ seed: 0xe5 });
    sim.client('c', async () => {
      const before = Date.now();
      seen.push(childProcess.execFileSync(process.execPath, ['-e', 'process.stdout.write(String(6 * 7))']).toString());
      const r = childProcess.spawnSync(process.execPath, ['-e', 'process.stderr.write("no"); process.exit(3)'], { encoding: 'utf8' });
      seen.push(`${r.status} ${r.stderr}`);
      try {
        childProcess.execSync('exit 4', { stdio: 'pipe' });
      } catch (error) {
        seen.push(`execSync threw, status ${error.status}`);
      }
      seen.push(`virtual ms during: ${Date.now() - before}`);
    });
    await sim.run();
    assert.deepEqual(seen, ['42', '3 no', 'execSync threw, status 4', 'virtual ms during: 0']);
  });

  it('refuses synchronous children on a simulated disk, which the child could not see', async () => {
    let message;
    const sim = new Sim({ seed: 0xe5, disk: 'simulated' });
    sim.client('c', () => {
      try {
        childProcess.spawnSync('true');
      } catch (error) {
        message = `${error.code}: ${error.message}`;
      }
    });
    await sim.run();
    assert.match(message, /^DST_UNSUPPORTED: child_process\.spawnSync\(\) on a simulated disk \(host "c"\) is not supported inside a dst-runtime simulation: the child would read and write the real disk, not the host's simulated one; run with the real disk/);
  });

  it('leaves them working for the test runner, during and after a run', async () => {
    const sim = new Sim({ seed: 0xe5 });
    let during;
    sim.client('c', () => new Promise((r) => setTimeout(r, 10)));
    const running = sim.run();
    during = childProcess.execFileSync(process.execPath, ['-e', 'process.stdout.write("ok")']).toString();
    await running;
    assert.equal(during, 'ok');
    assert.equal(childProcess.execFileSync(process.execPath, ['-e', 'process.stdout.write("after")']).toString(), 'after');
    const worker = new Worker('require("worker_threads").parentPort.postMessage(7)', { eval: true });
    assert.equal(await new Promise((r) => worker.once('message', r)), 7);
    await worker.terminate();
  });
});
