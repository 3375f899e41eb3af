/**
 * TLS, https and HTTP/2 compliance: every NNN-tls-*, NNN-https-* and NNN-http2-*.mjs program
 * in ./programs (NNN from 101) runs once on plain Node, over the real loopback, and under
 * `--import dist/register.mjs`, over the simulated network, with the Node binary that runs
 * mocha. Both runs must print the same stdout and end with the same exit code; then each replays
 * exactly by seed and prints the same with another seed (see describeNetCompliance).
 *
 * The programs cover issue 17 §2 (verification errors with Node's codes, rejectUnauthorized:
 * false, SNI, ALPN, mTLS, getPeerCertificate, authorized/authorizationError, session
 * resumption, event order, a plain-text peer, the handshake timeout, STARTTLS), https and fetch
 * of https: URLs, and HTTP/2 (h2c streams, h2 with ALPN, flow control, GOAWAY, RST_STREAM,
 * timeouts and ping). Certificates come from ./programs/tls (made by tlsCertificates('0x17')).
 * What they print is what real Node guarantees: OpenSSL's per-run bytes (sessions, error
 * message prefixes) and timings are printed only as facts about them. Each program uses its
 * own fixed ports (22400-22699).
 */
import { fileURLToPath } from 'node:url';
import { describeNetCompliance, listPrograms } from '../support/programs.mjs';

const PROGRAMS_DIR = fileURLToPath(new URL('./programs/', import.meta.url));

describeNetCompliance({
  name: 'TLS, https and HTTP/2',
  dir: PROGRAMS_DIR,
  programs: listPrograms(PROGRAMS_DIR, /^1\d\d-(tls|https|http2)-.*\.mjs$/),
  minPrograms: 18,
  seedMain: '0x7151',
  seedOther: '0xbeef17',
  plainFinished: (stdout) => stdout.length > 0,
});
