/**
 * Compliance: every program in ./programs runs once on plain Node and once under
 * `--import dst-runtime/register`, with the Node binary that runs mocha (process.execPath), and
 * both runs must agree on stdout, the exit code and the warning lines on stderr.
 *
 * CommonJS programs: ANY --import preload (even an empty module) makes Node run a CJS entry
 * through its ESM loader, which changes its top-level order (promise jobs before nextTicks;
 * docs/notes/node-facts.md) and even lets an unref'd immediate run one more loop turn. So a
 * .cjs program is checked against `--require dst-runtime/register`, the CommonJS preload, which
 * keeps Node's plain behaviour (the user guide recommends it for CommonJS entries). Then each
 * program runs under the simulator with two different seeds and twice with the same seed: the
 * stdout must not change, and the same seed must give the same fingerprint.
 *
 * The programs print only facts real Node guarantees (checked by running each plainly many
 * times on Node 20, 22 and 24), so a difference here is a simulator bug, never noise. A program
 * that real Node runs nondeterministically must be changed, not skipped.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { describeReplays, listPrograms, programRuns, REGISTER_MJS, replayPlan } from '../support/programs.mjs';

const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));
/** How the simulator is loaded: the package's own export, resolved from inside the package. */
const REGISTER_SPECIFIER = 'dst-runtime/register';
const SEED_MAIN = '0x5eed';
const SEED_OTHER = '0x9f3c1a22';

const PROGRAMS = listPrograms(PROGRAMS_DIR, /^\d+-.*\.(mjs|cjs)$/);

/**
 * Each program's runs: plainly, and under the simulator loaded by its package name. An ESM
 * program's comparison uses the replay test's first run with SEED_MAIN (`main`); a CommonJS
 * program's uses a run of its own under --require (`mainRequire`).
 */
const runs = programRuns(PROGRAMS_DIR, PROGRAMS, {
  ...replayPlan({ seedMain: SEED_MAIN, seedOther: SEED_OTHER, register: REGISTER_SPECIFIER }),
  mainRequire: () => ({ seed: SEED_MAIN, register: REGISTER_SPECIFIER, preload: 'require' }),
});

describe(`compliance: plain Node ${process.version} vs --import ${REGISTER_SPECIFIER}`, function () {
  before(function () {
    assert.ok(fs.existsSync(REGISTER_MJS), `Failed to find ${REGISTER_MJS}: run \`npm run build\` first`);
    assert.ok(PROGRAMS.length >= 45, `expected at least 45 programs in ${PROGRAMS_DIR}, found ${PROGRAMS.length}`);
  });

  async function compare(program, simulatedRun) {
    runs.ahead(program, ['plain', simulatedRun]);
    const plain = await runs.result(program, 'plain');
    const simulated = await runs.result(program, simulatedRun);
    const context = `\n--- plain stderr ---\n${plain.stderr}\n--- simulated stderr ---\n${simulated.stderr}`;
    try {
      assert.equal(simulated.stdout, plain.stdout, `stdout differs (seed ${SEED_MAIN})${context}`);
      assert.equal(simulated.status, plain.status, `exit code differs (seed ${SEED_MAIN})${context}`);
      assert.deepEqual(simulated.warnings, plain.warnings, `warning lines differ (seed ${SEED_MAIN})${context}`);
    } catch (error) {
      runs.forget(program, 'plain'); // the next run compares with a fresh plain run
      // A plain run slowed by a loaded machine can print another order than Node's usual one
      // (seen in CI: 102 on Node 22, 107 on 24): the simulated output passes if a fresh plain
      // run prints it too; one no plain run prints still fails.
      const agrees = (again) => again.stdout === simulated.stdout && again.status === simulated.status && isDeepStrictEqual(again.warnings, simulated.warnings);
      if (await runs.plainAgainAgrees(program, 'plain', agrees)) {
        console.warn(`\ncompliance ${program}: a plain run differed (a timing race under load); a fresh plain run printed what the simulator printed`);
        return;
      }
      throw error;
    }
  }

  for (const program of PROGRAMS) {
    if (program.endsWith('.cjs')) {
      it(`${program}: same stdout, exit code and warnings (plain vs --require)`, async function () {
        await compare(program, 'mainRequire');
      });
    } else {
      it(`${program}: same stdout, exit code and warnings`, async function () {
        await compare(program, 'main');
      });
    }
  }
});

describeReplays({
  title: 'compliance programs are deterministic under the simulator',
  programs: PROGRAMS,
  seedMain: SEED_MAIN,
  seedOther: SEED_OTHER,
  runs,
});
