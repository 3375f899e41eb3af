/**
 * HTTP compliance: every NN-http-*.mjs and NN-fetch-*.mjs program in ./programs (NN from 60 to
 * 89) runs once on plain Node, over the real loopback, and under `--import dist/register.mjs`,
 * over the simulated network, with the Node binary that runs mocha (process.execPath). Both
 * runs must print the same stdout and end with the same exit code. Then each program runs under
 * the simulator twice with one seed (same stdout, same fingerprint: the run is a function of
 * the seed) and once with another seed (same stdout: what the programs print does not depend
 * on timing).
 *
 * Each program is one scenario of node:http (or global fetch) between a server and a client in
 * the same process, on its own fixed port (21600-21899). The programs print only what real
 * Node guarantees: each was run plainly at least 20 times on Node 20, 22 and 24 with the same
 * stdout every time. Where the two sides act concurrently, each side keeps its own log and the
 * server's log is printed first, then the client's. A difference here is a simulator bug,
 * never noise.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listPrograms, readReport, REGISTER_MJS, runProgram } from '../support/programs.mjs';

const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));
const SEED_MAIN = '0x7c9';
const SEED_OTHER = '0xa11ce';

const PROGRAMS = listPrograms(PROGRAMS_DIR, /^([6-8]\d)-(http|fetch)-.*\.mjs$/);

/** Runs one program plainly (seed undefined) or under the simulator with that seed. */
function run(program, options = {}) {
  return runProgram(PROGRAMS_DIR, program, options);
}

describe(`HTTP compliance: plain Node ${process.version} over loopback vs the simulated network`, function () {
  before(function () {
    assert.ok(fs.existsSync(REGISTER_MJS), `Failed to find ${REGISTER_MJS}: run \`npm run build\` first`);
    assert.ok(PROGRAMS.length >= 20, `expected at least 20 NN-http-* / NN-fetch-* programs in ${PROGRAMS_DIR}, found ${PROGRAMS.length}`);
  });

  for (const program of PROGRAMS) {
    it(`${program}: same stdout and exit code`, function () {
      const plain = run(program);
      const simulated = run(program, { seed: SEED_MAIN });
      const context = `\n--- plain stderr ---\n${plain.stderr}\n--- simulated stderr ---\n${simulated.stderr}`;
      assert.ok(plain.stdout.length > 0, `${program} printed nothing on plain Node${context}`);
      assert.equal(simulated.stdout, plain.stdout, `stdout differs (DST_SEED=${SEED_MAIN})${context}`);
      assert.equal(simulated.status, plain.status, `exit code differs (DST_SEED=${SEED_MAIN})${context}`);
    });
  }
});

describe('HTTP compliance programs are deterministic under the simulator', function () {
  let tmpDir;
  before(function () {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-compliance-http-'));
  });
  after(function () {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  });

  for (const program of PROGRAMS) {
    it(`${program}: seed ${SEED_MAIN} twice replays exactly; seed ${SEED_OTHER} prints the same`, function () {
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
