/**
 * Compliance of the simulated UDP and DNS: every program ./programs/NN-udp-*.mjs and
 * NN-dns-*.mjs runs once on plain Node and once under `--import dst-runtime/register` (the
 * built dist/register.mjs), with the Node binary that runs mocha, and both runs must print the
 * same stdout and exit with the same code. Then each program runs under the simulator twice
 * with one seed (same fingerprint) and once with another seed (same stdout).
 *
 * The programs talk over 127.0.0.1 / ::1 only and print only what real Node guarantees (port
 * numbers masked, arrival order of bursts sorted, answers of a real DNS server reduced to
 * their shape). Other programs of this folder (TCP) belong to another harness.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listPrograms, readReport, REGISTER_MJS, runProgram } from '../support/programs.mjs';

const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));
const SEED_MAIN = '0x5eed';
const SEED_OTHER = '0x9f3c1a22';

const PROGRAMS = listPrograms(PROGRAMS_DIR, /^\d+-(udp|dns)-.*\.mjs$/);

/** Runs one program plainly (seed undefined) or under the simulator with that seed. */
function run(program, options = {}) {
  return runProgram(PROGRAMS_DIR, program, options);
}

describe(`compliance of UDP and DNS: plain Node ${process.version} vs --import dist/register.mjs`, function () {
  before(function () {
    assert.ok(fs.existsSync(REGISTER_MJS), `Failed to find ${REGISTER_MJS}: run \`npm run build\` first`);
    assert.ok(PROGRAMS.length >= 8, `expected at least 8 UDP/DNS programs in ${PROGRAMS_DIR}, found ${PROGRAMS.length}`);
  });

  for (const program of PROGRAMS) {
    it(`${program}: same stdout and exit code`, function () {
      const plain = run(program);
      const simulated = run(program, { seed: SEED_MAIN });
      const context = `\n--- plain stderr ---\n${plain.stderr}\n--- simulated stderr ---\n${simulated.stderr}`;
      assert.ok(plain.stdout.includes('exit 0'), `${program} plainly did not finish cleanly:\n${plain.stdout}${context}`);
      assert.equal(simulated.stdout, plain.stdout, `stdout differs (seed ${SEED_MAIN})${context}`);
      assert.equal(simulated.status, plain.status, `exit code differs (seed ${SEED_MAIN})${context}`);
    });
  }
});

describe('UDP and DNS compliance programs are deterministic under the simulator', function () {
  let tmpDir;
  before(function () {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-compliance-net-'));
  });
  after(function () {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  });

  for (const program of PROGRAMS) {
    it(`${program}: seeds ${SEED_MAIN} and ${SEED_OTHER} print the same; ${SEED_MAIN} twice replays exactly`, function () {
      const firstReport = path.join(tmpDir, `${program}.1.json`);
      const secondReport = path.join(tmpDir, `${program}.2.json`);
      const first = run(program, { seed: SEED_MAIN, reportFile: firstReport });
      const again = run(program, { seed: SEED_MAIN, reportFile: secondReport });
      const other = run(program, { seed: SEED_OTHER });

      assert.equal(again.stdout, first.stdout, `stdout differs between two runs of seed ${SEED_MAIN}`);
      assert.equal(again.status, first.status, `exit code differs between two runs of seed ${SEED_MAIN}`);
      const a = readReport(firstReport);
      const b = readReport(secondReport);
      assert.equal(a.seed, SEED_MAIN);
      assert.equal(b.fingerprint, a.fingerprint, `fingerprint differs between two runs of seed ${SEED_MAIN}`);
      assert.equal(b.events, a.events, `event count differs between two runs of seed ${SEED_MAIN}`);

      assert.equal(other.stdout, first.stdout, `stdout differs between seeds ${SEED_MAIN} and ${SEED_OTHER}`);
      assert.equal(other.status, first.status, `exit code differs between seeds ${SEED_MAIN} and ${SEED_OTHER}`);
    });
  }
});
