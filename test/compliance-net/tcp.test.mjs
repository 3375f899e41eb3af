/**
 * TCP compliance: every NN-tcp-*.mjs program in ./programs runs once on plain
 * Node, over the real loopback, and under `--import dist/register.mjs`, over the simulated
 * network, with the Node binary that runs mocha (process.execPath). Both runs must print the
 * same stdout and end with the same exit code. Then each program runs under the simulator
 * twice with one seed (same stdout, same fingerprint: the run is a function of the seed) and
 * once with another seed (same stdout: what the programs print does not depend on timing).
 *
 * The programs print only what real Node guarantees: each was run plainly many times on Node
 * 20, 22 and 24. Where two sockets act concurrently, the order between them depends on the
 * kernel and libuv's loop phases, so such programs keep one log per side and print the server's
 * log, then the client's. A difference here is a simulator bug, never noise.
 */
import { fileURLToPath } from 'node:url';
import { describeNetCompliance, listPrograms } from '../support/programs.mjs';

const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));

describeNetCompliance({
  name: 'TCP',
  dir: PROGRAMS_DIR,
  programs: listPrograms(PROGRAMS_DIR, /^\d+-tcp-.*\.mjs$/),
  minPrograms: 40,
  seedMain: '0x7c9',
  seedOther: '0xa11ce',
  plainFinished: (stdout) => stdout.length > 0,
});
