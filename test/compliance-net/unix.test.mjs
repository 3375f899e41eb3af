/**
 * Unix domain socket compliance: every NN-unix-*.mjs program in ./programs runs once on plain
 * Node and under `--import dist/register.mjs` with a simulated disk (DST_DISK=simulated: the
 * socket's file is there, as plainly: stat, readdir, the file a close unlinks), and must print
 * the same and exit the same; then each replays exactly with one seed and prints the same with
 * another (see tcp.test.mjs). All of it again on the real disk (the default), where the socket's
 * file is kept in the world and shown to the host's fs calls (shims/fs/socket-names.ts). The programs print only what real Node guarantees: each was run
 * plainly many times on Node 20, 22 and 24, also under CPU load; where the versions differ
 * (file modes, names over 108 bytes) the program's header says so and prints each version's.
 */
import { fileURLToPath } from 'node:url';
import { describeNetCompliance, listPrograms } from '../support/programs.mjs';

const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));

const programs = {
  dir: PROGRAMS_DIR,
  programs: listPrograms(PROGRAMS_DIR, /^\d+-unix-.*\.mjs$/),
  minPrograms: 12,
  seedMain: '0x51c',
  seedOther: '0xd0e',
  plainFinished: (stdout) => stdout.length > 0,
};

describeNetCompliance({ name: 'Unix domain socket', ...programs, simulatedEnv: { DST_DISK: 'simulated' } });
describeNetCompliance({ name: 'Unix domain socket (real disk)', ...programs });
