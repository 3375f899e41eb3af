// The tests expect replay commands without TZ= or LC_ALL= assignments, which dst-runtime adds
// when the machine's time zone is not UTC or its locale not en-US: pin both for the programs the
// tests start (and this process's own Date), whatever the machine's settings.
// test/hosts/time-zone.test.mjs sets other values where it needs them.
process.env.TZ = 'UTC';
process.env.LC_ALL = 'C.UTF-8';

// Node 20 reads and parses the NODE_EXTRA_CA_CERTS bundle when it starts, before running a
// line, whether or not the program ever makes a TLS connection (Node 22 and 24 only when a TLS
// context is first made; docs/notes/node-facts.md, test/unit/harness.test.mjs). With Debian's
// bundle (144 certificates) that is about 80 ms of CPU per process, and the suite starts well
// over a thousand Node processes: minutes of CPU. None of them needs a certificate from that
// bundle (the TLS programs trust their own test CA) except npm fetching from the registry in
// test/runners/projects.test.mjs, so the variable is
// taken out of the environment the tests' children inherit and kept as
// TEST_NODE_EXTRA_CA_CERTS, which that file (and bench/npm-hosts.mjs, which the bench smoke
// test reaches) gives back to npm.
if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
  process.env.TEST_NODE_EXTRA_CA_CERTS ??= process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
}
