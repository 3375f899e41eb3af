/**
 * The shims of node:child_process, node:worker_threads, node:v8 and readline's crlfDelay are
 * installed at the builtin's first load (Shim.builtins in shims/install.ts), not at start-up: an
 * empty program under register mode loads none of these builtins (figure 12, start-up). Each way
 * in must meet the shim: a child process or worker refused inside a host, v8's fixed heap
 * statistics, readline's line ends on the virtual clock (what plain Node gives, while the real
 * time between the "\r" and the "\n" is near zero under the simulation).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');
const PROGRAM = path.join(HERE, 'fixtures/lazy-builtins-more.mjs');
const run = promisify(execFile);

async function simulated(family, way, seed = '0x5') {
  const { stdout, stderr } = await run(process.execPath, ['--import', REGISTER, PROGRAM], { env: { ...process.env, DST_SEED: seed, FAMILY: family, WAY: way } });
  return { stdout: stdout.trim(), fingerprint: /fingerprint (\S+)/.exec(stderr)?.[1] };
}

const LAZY = /^NativeModule (child_process|worker_threads|v8|readline|readline\/promises)$/;

describe('child_process, worker_threads, v8 and readline shims installed at the builtin’s first load (register mode, seed 0x5)', function () {
  this.timeout(60_000);

  it('an empty program loads none of them (process.moduleLoadList)', async () => {
    const { stdout, stderr } = await run(process.execPath, ['--import', REGISTER, '-e', `console.log(JSON.stringify(process.moduleLoadList.filter((m) => ${LAZY}.test(m))))`], {
      env: { ...process.env, DST_SEED: '0x5' },
    });
    assert.equal(stdout.trim(), '[]');
    assert.match(stderr, /fingerprint [0-9a-f]{16}/, 'the program ran under register mode');
  });

  const expected = {
    child_process: /^child_process ran: pid \d+, exit 0 at \d+ ms, said hi\nfork refused: DST_UNSUPPORTED child_process\.fork\(\), or any child process with an IPC channel/,
    worker_threads: /^worker refused: DST_UNSUPPORTED new worker_threads\.Worker\(\) is not supported inside a dst-runtime simulation/,
    v8: /^v8 used_heap_size \d+ heap_size_limit \d+$/,
    readline: /^readline lines \["a","","b"\]$/,
    'readline-promises': /^readline-promises lines \["a","","b"\]$/,
  };
  const ways = ['require', 'dynamic-import', ...(typeof process.getBuiltinModule === 'function' ? ['get-builtin-module'] : [])];
  for (const family of Object.keys(expected)) {
    const familyWays = family === 'readline' ? [...ways, 'repl'] : ways;
    it(`${family}: ${familyWays.join(', ')} all meet the shim, the same run each way`, async () => {
      const reference = await simulated(family, 'require');
      assert.match(reference.stdout, expected[family]);
      assert.match(reference.fingerprint, /^[0-9a-f]{16}$/);
      for (const way of familyWays.slice(1)) assert.deepEqual(await simulated(family, way), reference, way);
    });
  }

  it('readline: the line ends are those of plain Node, on the virtual clock', async () => {
    for (const family of ['readline', 'readline-promises']) {
      const plain = (await run(process.execPath, [PROGRAM], { env: { ...process.env, FAMILY: family, WAY: 'require' } })).stdout.trim();
      assert.equal((await simulated(family, 'require')).stdout, plain);
    }
  });

  it('worker_threads first loaded inside the sync of node:util\'s ES module facade (Node 22, 24): the shim installs, the process lives, the named import is the guarded Worker', async () => {
    // Syncing every facade from in there re-entered util's and killed V8 (SIGTRAP, exit 133).
    const { stdout, stderr } = await run(process.execPath, ['--import', REGISTER, path.join(HERE, 'fixtures/util-then-worker.mjs')], { env: { ...process.env, DST_SEED: '0x5' } });
    assert.equal(stdout.trim(), 'worker refused: DST_UNSUPPORTED');
    assert.match(stderr, /exit 0/);
  });

  it('v8: the heap statistics do not change with the seed, nor from run to run', async () => {
    const [a, b] = await Promise.all([simulated('v8', 'require', '0x5'), simulated('v8', 'require', '0x6')]);
    assert.equal(a.stdout, b.stdout);
  });
});
