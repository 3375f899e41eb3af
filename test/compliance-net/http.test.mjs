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
import { fileURLToPath } from 'node:url';
import { describeNetCompliance, listPrograms } from '../support/programs.mjs';

const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));

describeNetCompliance({
  name: 'HTTP',
  dir: PROGRAMS_DIR,
  programs: listPrograms(PROGRAMS_DIR, /^([6-8]\d)-(http|fetch)-.*\.mjs$/),
  minPrograms: 20,
  seedMain: '0x7c9',
  seedOther: '0xa11ce',
  plainFinished: (stdout) => stdout.length > 0,
});
