// The README's main job: `npm run demo` runs examples/kv-demo.mjs. It must pass, replay its seed
// to the same fingerprint and find the planted bug (seed 0x2a pinned here).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run demo (examples/kv-demo.mjs, seed 0x2a)', function () {
  this.timeout(180_000);

  it('runs the KV cluster under faults, replays it, and finds and replays the planted bug', () => {
    const run = spawnSync(process.execPath, ['examples/kv-demo.mjs'], { cwd: root, env: { ...process.env, DST_SEED: '0x2a' }, encoding: 'utf8' });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^seed {10}0x2a$/m);
    assert.match(run.stdout, /^transactions {2}\d+: \d+ committed, \d+ aborted, \d+ outcome unknown/m);
    assert.match(run.stdout, /^invariants {4}ok/m);
    assert.match(run.stdout, /^replayed {6}same seed, same fingerprint$/m);
    assert.match(run.stdout, /^found on seed {2}0x[0-9a-f]+: safety: /m);
    assert.match(run.stdout, /^replayed 3x {3}the same failure each time/m);
    assert.match(run.stdout, /DST_KV_BUG=noLongestLog node cli\/dst\.mjs run packages\/kv\/scenarios\/crash-recovery\.mjs --seed 0x/);
  });
});
