/**
 * Node's process.getActiveResourcesInfo() walks the environment's list of requests and allocates a
 * string for each; a request never dispatched to libuv is weak, and a collection started by one of
 * those allocations deleted the request being listed: SIGSEGV in node::GetActiveResourcesInfo
 * (Node 20, 22 and 24; docs/notes/node-facts.md). The simulation's shims answer lib's requests
 * themselves (the simulated disk's FSReqCallbacks, simulated sockets' and DNS requests), so such
 * requests are always there, and the native-immediate hold calls getActiveResourcesInfo before
 * every event once a host has an HTTP/2 session: a register-mode program that did an h2c exchange
 * and then fs.rm with retries on a simulated disk with latency crashed in about half its runs.
 * Now every call keeps the listed requests alive during the walk (shims/process/real-resources.ts).
 * The fixture repeats the recipe, with the program's own calls too: 6 runs of 6 crashed before.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

describe("Node's getActiveResourcesInfo and requests the shims answered (SIGSEGV)", function () {
  this.timeout(60_000);

  it('register mode: h2c, then fs.rm with retries and fs calls on a simulated disk with latency, four times in one process, exits 0', () => {
    const env = {
      ...process.env,
      DST_SEED: '0x31',
      DST_DISK: 'simulated',
      DST_DISK_FAULTS: 'paths=/tmp/dst-active-resources-gc/**,latency=1-3ms',
    };
    delete env.DST_TRACE;
    const child = spawnSync(process.execPath, ['--import', 'dst-runtime/register', 'h2c-fs-active-resources.mjs'], {
      cwd: fileURLToPath(new URL('./fixtures/', import.meta.url)),
      encoding: 'utf8',
      env,
    });
    assert.equal(child.status, 0, `the program failed (${child.signal ?? child.status}):\n${child.stdout}${child.stderr}`);
    for (let round = 0; round < 4; round++) {
      assert.match(child.stdout, new RegExp(`^${round} h2c hello /b trailer=1\\n${round} rm ENOTEMPTY\\n${round} listed 200$`, 'm'));
    }
    assert.match(child.stderr, /dst: seed 0x31 {2}fingerprint [0-9a-f]{16} .* exit 0\n$/);
  });
});
