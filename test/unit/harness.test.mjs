/**
 * The test harness's own settings (test/support/pin-machine.cjs, required by .mocharc.json in
 * every mocha process): what the tests' children inherit, and the Node fact it rests on.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const MAJOR = Number(process.versions.node.split('.')[0]);
const MISSING_BUNDLE = '/nonexistent/dst-runtime-test/extra-ca.pem';

/** Runs `code` with NODE_EXTRA_CA_CERTS naming a file that does not exist; its stderr. */
function stderrWithMissingBundle(code) {
  const run = spawnSync(process.execPath, ['-e', code], { env: { ...process.env, NODE_EXTRA_CA_CERTS: MISSING_BUNDLE }, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, 'ran\n');
  return run.stderr;
}

describe('the test harness (test/support/pin-machine.cjs)', () => {
  it('takes NODE_EXTRA_CA_CERTS out of the environment the tests give their children', () => {
    assert.equal(process.env.NODE_EXTRA_CA_CERTS, undefined);
    const child = spawnSync(process.execPath, ['-e', 'console.log(JSON.stringify([process.env.NODE_EXTRA_CA_CERTS ?? null, process.env.TZ, process.env.LC_ALL]))'], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(child.stdout), [null, 'UTC', 'C.UTF-8']);
  });

  it(`Node ${MAJOR} reads the NODE_EXTRA_CA_CERTS bundle ${MAJOR < 22 ? 'at start, before any TLS' : 'at the first TLS context only'}`, () => {
    const warning = /Warning: Ignoring extra certs from `\/nonexistent\/dst-runtime-test\/extra-ca\.pem`, load failed/;
    // A program that never touches TLS: Node 20 has read (and failed to read) the bundle anyway.
    const plain = stderrWithMissingBundle('console.log("ran")');
    if (MAJOR < 22) assert.match(plain, warning);
    else assert.equal(plain, '');
    // The first secure context reads it on every version (once: Node 20 does not read it again).
    const tls = stderrWithMissingBundle('require("node:tls").createSecureContext(); console.log("ran")');
    assert.equal(tls.match(new RegExp(warning.source, 'g'))?.length, 1, tls);
  });
});
