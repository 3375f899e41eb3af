// lru-cache (npm, unmodified): an entry with a ttl expires on the host's clock, also when it was
// set in the program's first tick. lru-cache takes a start time of 0 for "no ttl"; a host's
// performance.now() read 0 there until the monotonic clocks began to count the process's
// start-up (STARTUP_MS), so such an entry never expired simulated, where plain Node expires it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Sim, STARTUP_MS } from 'dst-runtime';
import { LRUCache } from 'lru-cache';

const FIXTURE = fileURLToPath(new URL('./fixtures/lru-ttl.mjs', import.meta.url));
const REGISTER = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
const EXPECTED = 'at 500 ms: boot true, later false\nat 1500 ms: boot false, later true\n';

function run(args, env = {}) {
  const child = spawnSync(process.execPath, [...args, FIXTURE], { encoding: 'utf8', env: { ...process.env, DST_QUIET: '1', ...env }, timeout: 30_000 });
  assert.equal(child.status, 0, child.stderr);
  return child.stdout;
}

describe('lru-cache (npm, unmodified): ttl on the host\'s clock', function () {
  this.timeout(60_000);

  it('an entry set in the first tick expires after its ttl, simulated as plainly (register mode)', () => {
    assert.equal(run([]), EXPECTED);
    assert.equal(run(['--import', REGISTER], { DST_SEED: '0x1ce' }), EXPECTED);
  });

  it('in a host, and again in a restarted host (library mode, seed 0x1cf)', async () => {
    const seen = [];
    const sim = new Sim({ seed: 0x1cf });
    sim.host('cache', () => {
      const cache = new LRUCache({ max: 10, ttl: 100 });
      cache.set('boot', 1);
      seen.push(`boot at ${performance.now()}: remaining ${cache.getRemainingTTL('boot')}`);
      setTimeout(() => seen.push(`150 ms later: has ${cache.has('boot')}`), 150);
    });
    sim.client('operator', async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      sim.crash('cache');
      sim.restart('cache');
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    await sim.run();
    const incarnation = [`boot at ${STARTUP_MS}: remaining 100`, '150 ms later: has false'];
    assert.deepEqual(seen, [...incarnation, ...incarnation]);
  });
});
