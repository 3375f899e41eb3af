/**
 * A seed of a plain program in an explore worker (shims/program-seeds.ts) must not see what the
 * seed before it changed of Node's built-in objects and process-wide settings
 * (shims/process-state.ts): each fixture prints what it sees, changes it, and prints it again;
 * every seed's output and fingerprint in one worker must be its fresh replay's. What cannot be
 * put back must make the worker say it cannot run another seed, with the reason.
 */
import assert from 'node:assert/strict';
import { fork, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('./fixtures/program-seeds/state/', import.meta.url));
const REGISTER = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../../cli/dst.mjs', import.meta.url));
const SEEDS = ['0x1', '0x2', '0x3', '0x4'];

/** The lines a fixture printed for each seed (each starts `[seed] `), by seed. */
function linesBySeed(stdout) {
  const bySeed = new Map();
  for (const line of stdout.split('\n')) {
    const match = /^\[(\S+)\] (.*)$/.exec(line);
    if (match === null) continue;
    if (!bySeed.has(match[1])) bySeed.set(match[1], []);
    bySeed.get(match[1]).push(match[2]);
  }
  return bySeed;
}

/** Every seed through the explorer's worker, replaced when it says it must be; its output too. */
async function inWorkers(file, seeds) {
  const answers = [];
  let stdout = '';
  let child;
  let workers = 0;
  const exits = [];
  for (const seed of seeds) {
    if (child === undefined) {
      child = fork(CLI, ['__app-worker', file], { stdio: ['ignore', 'pipe', 'ignore', 'ipc'] });
      child.stdout.on('data', (chunk) => (stdout += chunk));
      exits.push(new Promise((resolve) => child.once('exit', resolve)));
      workers++;
    }
    let died;
    const answer = await new Promise((resolve, reject) => {
      died = (code) => reject(new Error(`the worker exited with code ${code} during seed ${seed}`));
      child.once('message', resolve);
      child.once('exit', died);
      child.send({ type: 'seed', seed });
    });
    child.removeListener('exit', died);
    answers.push(answer);
    if (!answer.reusable) child = undefined;
  }
  child?.send({ type: 'stop' });
  await Promise.all(exits);
  const lines = linesBySeed(stdout);
  return {
    workers,
    seeds: answers.map((answer, i) => {
      const r = answer.result;
      return {
        seed: seeds[i],
        reusable: answer.reusable,
        unfit: answer.unfit,
        lines: lines.get(seeds[i]) ?? [],
        exitCode: r.ok ? 0 : r.failure.exitCode,
        fingerprint: r.ok ? r.fingerprint : r.fingerprint.split(':').at(-1),
        events: r.events,
      };
    }),
  };
}

/** One seed alone, as its replay command runs it. */
function alone(file, seed, dir) {
  const report = path.join(dir, `report-${path.basename(file)}-${seed}.json`);
  const run = spawnSync(process.execPath, ['--import', REGISTER, file], {
    env: { ...process.env, DST_SEED: seed, DST_QUIET: '1', DST_REPORT: report },
    encoding: 'utf8',
  });
  const data = JSON.parse(fs.readFileSync(report, 'utf8'));
  return { lines: linesBySeed(run.stdout).get(seed) ?? [], exitCode: run.status, fingerprint: data.fingerprint, events: data.events };
}

function assertSameAsAlone(name, worker, fresh) {
  for (let i = 0; i < worker.seeds.length; i++) {
    const w = worker.seeds[i];
    const f = fresh[i];
    assert.deepEqual(w.lines, f.lines, `${name} seed ${w.seed}: what it printed in the worker and alone`);
    assert.deepEqual({ exitCode: w.exitCode, fingerprint: w.fingerprint, events: w.events }, { exitCode: f.exitCode, fingerprint: f.fingerprint, events: f.events }, `${name} seed ${w.seed}`);
  }
  assert.ok(new Set(fresh.map((r) => r.fingerprint)).size > 1, `${name}: every seed ran alike`);
}

describe('a plain program in an explore worker: what a seed changed of the process', function () {
  this.timeout(240_000);
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-program-state-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const name of ['builtins.cjs', 'builtins.mjs', 'settings.cjs', 'lasting.mjs', 'descriptors.mjs']) {
    it(`${name}: put back after each seed, seeds ${SEEDS[0]}..${SEEDS.at(-1)} in one worker print and run as alone`, async () => {
      const file = path.join(FIXTURES, name);
      const worker = await inWorkers(file, SEEDS);
      const fresh = SEEDS.map((seed) => alone(file, seed, dir));
      // Each change the fixture makes took effect: otherwise putting it back proves nothing.
      const [before, after] = fresh[0].lines.map((line) => JSON.parse(line.replace(/^\w+ /, '')));
      for (const key of Object.keys(before)) assert.notDeepEqual(after[key], before[key], `${name}: the fixture's change of ${key} did not take effect`);
      assert.equal(worker.workers, 1, `${name}: every change can be put back, yet the worker was replaced: ${worker.seeds.map((s) => s.unfit).filter(Boolean)}`);
      assertSameAsAlone(name, worker, fresh);
    });
  }

  const unfit = {
    'unfit-v8-flags.cjs': /v8\.setFlagsFromString/,
    'unfit-warning.cjs': /Node emitted a warning.*a deprecated function of the fixture/,
    'unfit-frozen.cjs': /querystring was made non-extensible/,
    'unfit-domain.cjs': /builtin module 'domain'/,
    'unfit-global.cjs': /the global counter as non-configurable/,
    'unfit-lasting.cjs': /os\.setPriority\(\)/,
    'unfit-stdin.mjs': /process\.stdin/,
    'unfit-corked.mjs': /process\.stdout was left corked/,
    'unfit-module-hooks.mjs': /module hooks \(module\.(registerHooks|register)\)/,
    'unfit-module-register.mjs': /module hooks \(module\.register\)/,
  };
  for (const [name, reason] of Object.entries(unfit)) {
    it(`${name}: cannot be put back, so the worker says so after each seed and is replaced`, async () => {
      const file = path.join(FIXTURES, name);
      const worker = await inWorkers(file, SEEDS);
      for (const seed of worker.seeds) {
        assert.equal(seed.reusable, false, `${name} seed ${seed.seed}`);
        assert.match(seed.unfit ?? '', reason, `${name} seed ${seed.seed}`);
      }
      assert.equal(worker.workers, SEEDS.length);
      assertSameAsAlone(name, worker, SEEDS.map((seed) => alone(file, seed, dir)));
    });
  }
});
