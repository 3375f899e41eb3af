#!/usr/bin/env bash
# The same tests under mocha, node:test, Jest 30 (CommonJS, and ESM with vm-modules) and Vitest
# (forks, threads and vmThreads pools), each in a project that installs this package as packed:
# every fingerprint and everything the hosts saw must equal mocha's, and simTest, its replay
# lines, .only, and simulations cut by a test's timeout must behave the same in each
# (test/runners/lab/run.mjs says what is checked).
#
#   bash test/runners/lab.sh                          # with the node on PATH, in a fresh directory
#   LAB_DIR=/tmp/lab bash test/runners/lab.sh         # keep the install there for the next run
#   PATH=/path/to/node22/bin:$PATH LAB_DIR=/tmp/lab LAB_TGZ=dst-runtime-0.1.0.tgz bash test/runners/lab.sh
#
# Needs the npm registry (jest, vitest, vite, mocha) the first time in a LAB_DIR. Run by hand (7-8
# minutes on 2 cores; CI runs the smaller test/runners/projects.test.mjs). Vitest 4 needs Node 20.19+
# (skipped before); LAB_VITEST picks another Vitest; LAB_JOBS how many runners run at once (2).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="${LAB_DIR:-}"
if [ -z "$work" ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/dst-runner-lab.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
node "$repo/test/runners/lab/run.mjs" --work "$work" --jobs "${LAB_JOBS:-2}" ${LAB_TGZ:+--tgz "$LAB_TGZ"}
