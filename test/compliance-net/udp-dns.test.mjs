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
import { fileURLToPath } from 'node:url';
import { describeNetCompliance, listPrograms } from '../support/programs.mjs';

const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));

describeNetCompliance({
  name: 'UDP and DNS',
  dir: PROGRAMS_DIR,
  programs: listPrograms(PROGRAMS_DIR, /^\d+-(udp|dns)-.*\.mjs$/),
  minPrograms: 8,
  seedMain: '0x5eed',
  seedOther: '0x9f3c1a22',
  plainFinished: (stdout) => stdout.includes('exit 0'),
});
