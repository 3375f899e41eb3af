// Determinism and soundness of the production-shaped faults of plain programs (DST_FAULTS): each
// kind alone and all of them together, under register mode, in fresh processes. Every kind must
// change the run (it is really on), give the same run twice for a seed (fingerprint, output and
// trace), and never break what production cannot: no TCP line lost, duplicated or reordered
// inside a live connection, no timer firing early, Node's order of timers and immediates within
// a chain (test/determinism/fixtures/faults-app.mjs checks these as it runs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REGISTER = pathToFileURL(path.join(ROOT, 'dist/register.mjs')).href;
const APP = fileURLToPath(new URL('./fixtures/faults-app.mjs', import.meta.url));

// Strong enough that each kind acts in every seed of the fixture's ~0.5 s run.
const KINDS = {
  latency: 'latency=40',
  reorder: 'reorder=5',
  reset: 'reset=0.05',
  loss: 'loss=0.3',
  lag: 'lag=0.8',
  stall: 'stall=4',
  skew: 'skew=20',
  all: 'all',
  swarm: 'swarm',
};
const SEEDS = ['0x1', '0x2'];

describe('determinism and soundness of program faults (DST_FAULTS, each kind and all)', function () {
  this.timeout(300_000);
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-faults-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  let n = 0;
  function run(faults, seed) {
    const name = `${++n}`;
    const report = path.join(dir, `${name}.json`);
    const trace = path.join(dir, `${name}.jsonl`);
    const env = { ...process.env, DST_SEED: seed, DST_REPORT: report, DST_TRACE: trace, DST_QUIET: '1' };
    if (faults === undefined) delete env.DST_FAULTS;
    else env.DST_FAULTS = faults;
    const child = spawnSync(process.execPath, ['--import', REGISTER, APP], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.status, 0, `DST_FAULTS=${faults} DST_SEED=${seed} failed (status ${child.status}):\n${child.stderr}`);
    return { report: JSON.parse(fs.readFileSync(report, 'utf8')), out: JSON.parse(child.stdout), trace: fs.readFileSync(trace, 'utf8') };
  }

  const plain = new Map();
  for (const [kind, faults] of Object.entries(KINDS)) {
    it(`${kind} (DST_FAULTS=${faults}): the same run twice per seed, a different one than without faults, nothing broken`, () => {
      for (const seed of SEEDS) {
        if (!plain.has(seed)) plain.set(seed, run(undefined, seed));
        const a = run(faults, seed);
        const b = run(faults, seed);
        assert.equal(b.report.fingerprint, a.report.fingerprint, `seed ${seed}`);
        assert.deepEqual(b.out, a.out, `seed ${seed}`);
        assert.equal(b.trace, a.trace, `seed ${seed}: traces differ`);
        assert.deepEqual(a.out.violations, [], `seed ${seed}: ${a.out.violations.join('; ')}`);
        assert.ok(a.report.faults !== undefined, 'the report carries the fault mix');
        if (kind !== 'swarm') assert.notEqual(a.report.fingerprint, plain.get(seed).report.fingerprint, `seed ${seed}: ${kind} changed nothing`);
        if (kind === 'reset') assert.ok(a.out.resets > 0, `seed ${seed}: no connection was reset`);
        if (kind === 'loss') assert.ok(a.out.datagrams !== 60, `seed ${seed}: no datagram was lost or duplicated`);
        if (kind !== 'reset' && kind !== 'all' && kind !== 'swarm') assert.equal(a.out.resets, 0, `seed ${seed}: ${kind} reset a connection`);
      }
    });
  }

  it('runs without faults exactly as before faults existed: DST_FAULTS unset draws nothing (no fault line, no mix)', () => {
    const a = run(undefined, '0x1');
    assert.equal(a.report.faults, undefined);
    assert.deepEqual(a.out.violations, []);
    assert.equal(a.out.resets, 0);
    assert.equal(a.out.datagrams, 60);
  });
});
