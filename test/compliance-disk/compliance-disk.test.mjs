/**
 * Disk compliance: every NN-*.mjs program in ./programs runs once on plain Node, on the real
 * disk, and once under `--import dist/register.mjs` with DST_DISK=simulated, on a simulated disk
 * laid over the real files, with the Node binary that runs mocha. Both runs must print the same
 * stdout and end with the same exit code: the same contents, sizes, listings, positions, errors
 * (message, code, errno, syscall, path, dest and their key order), callback arguments and stream
 * events. Then each program runs under the simulator twice with one seed (same stdout and
 * fingerprint) and once with another (same stdout).
 *
 * Each program works in a fresh directory from mkdtemp under the machine's temp dir and prints
 * its name as <tmp>; listings are sorted (a real directory lists in an order of its own). They
 * print only what real Node guarantees on Node 20, 22 and 24.
 */
import { fileURLToPath } from 'node:url';
import { describeNetCompliance, listPrograms } from '../support/programs.mjs';

const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));

describeNetCompliance({
  name: 'disk',
  dir: PROGRAMS_DIR,
  programs: listPrograms(PROGRAMS_DIR, /^\d\d-.*\.mjs$/),
  minPrograms: 6,
  seedMain: '0xd15c',
  seedOther: '0x5eed',
  plainFinished: (stdout) => stdout.endsWith('done\n'),
  simulatedEnv: { DST_DISK: 'simulated' },
});
