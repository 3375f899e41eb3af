// The time zone and the locale are the machine settings the seed does not fix that change what
// a run prints (Date's local-time methods, toLocaleString, Intl): every replay command carries
// them when they are not UTC and en-US.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineSettings, Sim, SimulationError } from 'dst-runtime';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures/machine-settings/', import.meta.url));
const REGISTER_MJS = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));

function runRegister(env, file = 'local-hour.mjs') {
  // The pinned LC_ALL would decide the locale first: drop it (an empty LC_ALL is not "unset" to ICU).
  const { LC_ALL: _pinned, ...inherited } = process.env;
  const result = spawnSync(process.execPath, ['--import', REGISTER_MJS, file], { cwd: FIXTURES, env: { ...inherited, ...env }, encoding: 'utf8' });
  const replay = /^ {2}replay {3}(.*)$/m.exec(result.stderr)?.[1];
  return { stdout: result.stdout.split('\n')[0], replay, status: result.status };
}

/** The variables a replay line assigns before DST_SEED, as an object. */
function assignments(replay) {
  const words = replay.slice(0, replay.indexOf('DST_SEED=')).trim().split(' ').filter(Boolean);
  return Object.fromEntries(words.map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
}

describe('replay commands carry the time zone and locale when they are not UTC and en-US', function () {
  this.timeout(60_000);

  it('machineSettings: TZ and the deciding locale variable, nothing for UTC or en-US under any of their names', () => {
    assert.deepEqual(machineSettings({ TZ: 'Asia/Tokyo' }), { TZ: 'Asia/Tokyo' });
    assert.deepEqual(machineSettings({ TZ: 'EST5EDT', LANG: 'de_DE.UTF-8' }), { TZ: 'EST5EDT', LC_ALL: 'de_DE.UTF-8' });
    assert.deepEqual(machineSettings({ TZ: 'UTC', LANG: 'de_DE.UTF-8', LC_MESSAGES: 'fr_FR.UTF-8' }), { LC_ALL: 'fr_FR.UTF-8' });
    assert.deepEqual(machineSettings({ TZ: 'UTC', LANG: 'de_DE.UTF-8', LC_ALL: 'C' }), {});
    // An empty variable still decides (plainly Node's locale is then "und"): the replay keeps it empty.
    assert.deepEqual(machineSettings({ TZ: 'UTC', LANG: 'de_DE.UTF-8', LC_ALL: '' }), { LC_ALL: '' });
    for (const utc of ['UTC', 'Etc/UTC', 'Etc/GMT', 'Universal', 'Zulu']) assert.deepEqual(machineSettings({ TZ: utc }), {}, utc);
    for (const english of ['C', 'C.UTF-8', 'POSIX', 'en_US.UTF-8', 'en_US']) assert.deepEqual(machineSettings({ TZ: 'UTC', LANG: english }), {}, english);
    // This process runs with TZ=UTC and LC_ALL=C.UTF-8 (test/support/pin-machine.cjs).
    assert.deepEqual(machineSettings(), {});
  });

  it('NODE_OPTIONS, when set, goes with them (its preloads and flags change the run): machineSettings and a register-mode replay line', () => {
    assert.deepEqual(machineSettings({ TZ: 'UTC', NODE_OPTIONS: '--import tsx' }), { NODE_OPTIONS: '--import tsx' });
    assert.deepEqual(machineSettings({ TZ: 'UTC', NODE_OPTIONS: ' ' }), {});
    const run = runRegister({ DST_SEED: '0x7', TZ: 'UTC', NODE_OPTIONS: '--no-deprecation --max-old-space-size=900' });
    assert.match(run.replay, /^NODE_OPTIONS='--no-deprecation --max-old-space-size=900' DST_SEED=0x7 node /);
  });

  it('machineSettings: the system zone, resolved once per value of Node\'s TZ, follows a TZ set in the process', () => {
    // An environment without TZ: the zone is the one Intl uses, which follows Node's own TZ.
    const saved = process.env.TZ;
    try {
      assert.deepEqual(machineSettings({}), {});
      process.env.TZ = 'Asia/Tokyo';
      assert.deepEqual(machineSettings({}), { TZ: 'Asia/Tokyo' });
      assert.deepEqual(machineSettings({ TZ: '' }), { TZ: 'Asia/Tokyo' });
      process.env.TZ = 'America/Sao_Paulo';
      assert.deepEqual(machineSettings({}), { TZ: 'America/Sao_Paulo' });
    } finally {
      process.env.TZ = saved;
    }
    assert.deepEqual(machineSettings({}), {});
  });

  it('register mode: the replay line starts with TZ=... LC_ALL=..., and running it prints the same (seed 0x7)', () => {
    const berlin = runRegister({ DST_SEED: '0x7', TZ: 'Asia/Tokyo', LANG: 'de_DE.UTF-8' });
    assert.equal(berlin.status, 1);
    assert.match(berlin.replay, /^TZ=Asia\/Tokyo LC_ALL=de_DE\.UTF-8 DST_SEED=0x7 node --import \S+ local-hour\.mjs$/);
    const plain = runRegister({ DST_SEED: '0x7', TZ: 'UTC' });
    assert.match(plain.replay, /^DST_SEED=0x7 /);
    // What the assignments change: the same seed prints another local time and number format.
    assert.notEqual(plain.stdout, berlin.stdout);
    assert.equal(runRegister({ DST_SEED: '0x7', LANG: 'en_US.UTF-8', ...assignments(berlin.replay) }).stdout, berlin.stdout);
  });

  it('register mode: a program that moves its time zone replays in the zone it started in (seed 0x7)', () => {
    // The replay line used to resolve the system zone when the failure was reported, after the
    // program set TZ: it said TZ=Asia/Tokyo, and that replay started in another hour.
    const { TZ: _tz, ...noZone } = process.env;
    for (const env of [{ DST_SEED: '0x7', TZ: undefined }, { DST_SEED: '0x7', TZ: 'America/Sao_Paulo' }]) {
      const run = runRegister({ ...noZone, ...env }, 'moves-zone.mjs');
      assert.equal(run.status, 1);
      const started = assignments(runRegister({ ...noZone, ...env }).replay).TZ;
      assert.equal(assignments(run.replay).TZ, started, run.replay);
      assert.equal(runRegister({ DST_SEED: '0x7', ...assignments(run.replay) }, 'moves-zone.mjs').stdout, run.stdout);
    }
  });

  it('library mode: a failure names them, for a pinned seed too (seed 0x7)', async () => {
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
    assert.match(stdout, /DST_COUNTER_BUG=1 TZ=Asia\/Tokyo node cli\/dst\.mjs run examples\/scenarios\/replicated-counter\.mjs --seed 0x/); // inside the checkout dst is node cli/dst.mjs (pasteable)
    const written = JSON.parse(readFileSync(report, 'utf8'));
    assert.deepEqual(written.settings, { DST_COUNTER_BUG: '1', TZ: 'Asia/Tokyo' });
    assert.ok(written.failing.length > 0);
  });
});
