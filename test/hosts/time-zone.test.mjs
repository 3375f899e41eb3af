// The time zone is the one machine setting the seed does not fix that changes what a run prints
// (Date's local-time methods, Intl): every replay command carries it when it is not UTC.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replayTimeZone, Sim, SimulationError } from 'dst-runtime';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/time-zone/', import.meta.url));
const REGISTER_MJS = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));

function runRegister(env) {
  const result = spawnSync(process.execPath, ['--import', REGISTER_MJS, 'local-hour.mjs'], { cwd: FIXTURES, env: { ...process.env, ...env }, encoding: 'utf8' });
  const replay = /^ {2}replay {3}(.*)$/m.exec(result.stderr)?.[1];
  return { stdout: result.stdout.split('\n')[0], replay, status: result.status };
}

describe('replay commands carry the time zone when it is not UTC', function () {
  this.timeout(60_000);

  it('replayTimeZone: TZ as set, else the system zone; nothing for UTC under any of its names', () => {
    assert.equal(replayTimeZone({ TZ: 'Asia/Tokyo' }), 'Asia/Tokyo');
    assert.equal(replayTimeZone({ TZ: 'EST5EDT' }), 'EST5EDT');
    for (const utc of ['UTC', 'Etc/UTC', 'Etc/GMT', 'Universal', 'Zulu']) assert.equal(replayTimeZone({ TZ: utc }), undefined, utc);
    // This process runs with TZ=UTC (test/support/pin-time-zone.cjs): the system zone is not asked.
    assert.equal(replayTimeZone(), undefined);
  });

  it('register mode: the replay line starts with TZ=..., and running it prints the same local time (seed 0x7)', () => {
    const tokyo = runRegister({ DST_SEED: '0x7', TZ: 'Asia/Tokyo' });
    assert.equal(tokyo.status, 1);
    assert.match(tokyo.replay, /^TZ=Asia\/Tokyo DST_SEED=0x7 node --import \S+ local-hour\.mjs$/);
    const utc = runRegister({ DST_SEED: '0x7', TZ: 'UTC' });
    assert.match(utc.replay, /^DST_SEED=0x7 /);
    // What the assignment changes: the same seed prints another local time in another zone.
    assert.notEqual(utc.stdout, tokyo.stdout);
    const zone = /^TZ=(\S+) /.exec(tokyo.replay)[1];
    assert.equal(runRegister({ DST_SEED: '0x7', TZ: zone }).stdout, tokyo.stdout);
  });

  it('library mode: a failure names the zone, for a pinned seed too (seed 0x7)', async () => {
    const saved = process.env.TZ;
    process.env.TZ = 'America/Sao_Paulo';
    try {
      const sim = new Sim({ seed: 0x7 });
      sim.host('a', () => {
        throw new Error('planted failure');
      });
      const failure = await sim.run().then(
        () => undefined,
        (error) => error,
      );
      assert.ok(failure instanceof SimulationError, String(failure));
      assert.equal(failure.report.replay, 'new Sim({ seed: 0x7 }) (the seed is pinned in the test, with TZ=America/Sao_Paulo)');
    } finally {
      process.env.TZ = saved;
    }
  });

  it('dst explore: failing seeds replay with TZ=..., and the report keeps it for dst replay', async () => {
    const report = path.join(os.tmpdir(), `dst-tz-${process.pid}.json`);
    const { stdout } = await new Promise((resolve) => {
      execFile(
        process.execPath,
        ['cli/dst.mjs', 'explore', 'examples/scenarios/replicated-counter.mjs', '--seeds', '30', '--jobs', '1', '--report', report],
        { cwd: ROOT, env: { ...process.env, DST_COUNTER_BUG: '1', TZ: 'Asia/Tokyo' } },
        (error, out) => resolve({ stdout: out }),
      );
    });
    assert.match(stdout, /DST_COUNTER_BUG=1 TZ=Asia\/Tokyo dst run examples\/scenarios\/replicated-counter\.mjs --seed 0x/);
    const written = JSON.parse(readFileSync(report, 'utf8'));
    assert.deepEqual(written.settings, { DST_COUNTER_BUG: '1', TZ: 'Asia/Tokyo' });
    assert.ok(written.failing.length > 0);
  });
});
