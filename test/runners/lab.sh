#!/usr/bin/env bash
# The same tests under mocha, node:test, Jest 30 (CommonJS, and ESM with vm-modules) and Vitest
# (forks, threads and vmThreads pools), each in a fresh project that installs this package as
# packed; every fingerprint and everything the hosts saw must equal mocha's.
#
#   bash test/runners/lab.sh                 # with the node on PATH
#   PATH=/path/to/node22/bin:$PATH bash test/runners/lab.sh
#
# Needs the npm registry (jest, vitest, vite, mocha). Not run by .ci/run: a CI that wants it
# calls it once per Node version. Vitest 4 needs Node 20.19+; Vitest 5 needs 22 (LAB_VITEST).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
lab="$repo/test/runners/lab"
work="$(mktemp -d "${TMPDIR:-/tmp}/dst-runner-lab.XXXXXX")"
out="$work/out"
mkdir -p "$out"
trap 'rm -rf "$work"' EXIT

echo "== Node $(node --version): packing dst-runtime"
(cd "$repo" && npm run build >/dev/null && npm pack --pack-destination "$work" >/dev/null 2>&1)
tgz="$(ls "$work"/dst-runtime-*.tgz)"

project() { # name, packages..., then the lab files are copied in
  local name=$1; shift
  mkdir -p "$work/$name"
  cp "$lab"/{lab.cjs,subsystems.cjs,server.mjs,server.cjs} "$work/$name/"
  echo "{\"name\":\"lab-$name\",\"private\":true}" > "$work/$name/package.json"
  (cd "$work/$name" && npm i --no-audit --no-fund --loglevel=error "$tgz" "$@" >/dev/null)
}
project mocha mocha@11 && cp "$lab/mocha.lab.cjs" "$work/mocha/lab.test.cjs"
project node-test && cp "$lab/node-test.lab.mjs" "$work/node-test/lab.test.mjs"
project jest-cjs jest@30 && cp "$lab/jest-cjs.lab.js" "$work/jest-cjs/lab.test.js"
echo "module.exports = { testMatch: ['**/lab.test.js'] };" > "$work/jest-cjs/jest.config.cjs"
project jest-esm jest@30 && cp "$lab/jest-esm.lab.mjs" "$work/jest-esm/lab.test.mjs"
echo "module.exports = { testMatch: ['**/lab.test.mjs'], transform: {} };" > "$work/jest-esm/jest.config.cjs"
project vitest -E vite@8.3.8 "${LAB_VITEST:-vitest@4.1.12}" && cp "$lab/vitest.lab.mjs" "$work/vitest/lab.test.mjs"

status=0
run() { # runner, directory, command...
  local runner=$1 dir=$2; shift 2
  if (cd "$work/$dir" && LAB_OUT="$out/$runner.jsonl" "$@" >"$out/$runner.log" 2>&1); then echo "$runner: tests passed"
  else echo "$runner: tests FAILED"; tail -40 "$out/$runner.log"; status=1; fi
}
run mocha mocha npx mocha lab.test.cjs
run node-test node-test node --test lab.test.mjs
run jest-cjs jest-cjs npx jest --ci
run jest-esm jest-esm env NODE_OPTIONS=--experimental-vm-modules npx jest --ci
for pool in forks threads vmThreads; do run "vitest-$pool" vitest npx vitest run --pool="$pool"; done
node "$lab/compare.mjs" "$out" || status=1
exit $status
