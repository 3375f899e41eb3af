/**
 * process.getActiveResourcesInfo() inside a library-mode host lists that host's own ref'd
 * simulated timers and immediates (its process is its own); the test runner outside keeps Node's.
 */
import assert from 'node:assert/strict';
import { Sim } from 'dst-runtime';

describe('process.getActiveResourcesInfo() in library mode', function () {
  it("a host sees its own ref'd timers and immediates, not another host's nor the runner's", async function () {
    const seen = {};
    const runnerTimer = setTimeout(() => {}, 60_000);
    try {
      const sim = new Sim({ seed: 0xa7 });
      sim.client('a', async () => {
        const t = setTimeout(() => {}, 1_000);
        setImmediate(() => {});
        seen.a = process.getActiveResourcesInfo();
        t.unref();
        seen.aUnref = process.getActiveResourcesInfo();
        await new Promise((resolve) => {
          setTimeout(() => {
            seen.inCallback = process.getActiveResourcesInfo();
            resolve();
          }, 10);
        });
        seen.after = process.getActiveResourcesInfo();
      });
      sim.client('b', async () => {
        setInterval(() => {}, 50).unref();
        seen.b = process.getActiveResourcesInfo();
      });
      await sim.run();
      seen.runner = process.getActiveResourcesInfo();
    } finally {
      clearTimeout(runnerTimer);
    }
    assert.deepEqual(seen.a, ['Timeout', 'Immediate']);
    assert.deepEqual(seen.aUnref, ['Immediate']);
    // During the 10 ms timer's own callback it still counts, as in Node; once it has run, not.
    assert.deepEqual(seen.inCallback, ['Timeout']);
    assert.deepEqual(seen.after, []);
    assert.deepEqual(seen.b, []);
    assert.ok(seen.runner.includes('Timeout'), `the runner's own timer is listed: ${seen.runner}`);
  });
});

describe('process.getActiveResourcesInfo() and fs requests in library mode (seed 0xa7)', function () {
  // Plain Node lists an fs request until its callback and what that queued have run, and a
  // promise call's until the code after its `await` has run: the simulated disk's requests
  // (never handed to libuv) stayed listed until collected, the real disk's were already gone.
  for (const disk of ['real', 'simulated']) {
    it(`${disk} disk: a request is listed through its callback and its ticks, then not`, async function () {
      const seen = [];
      const fsRequests = () => process.getActiveResourcesInfo().filter((name) => /^(FSReq|CloseReq)/.test(name));
      const sim = new Sim({ seed: 0xa7, disk });
      sim.client('c', async () => {
        const fs = await import('node:fs');
        await new Promise((resolve) => {
          fs.stat(process.cwd(), () => {
            seen.push(['in callback', fsRequests()]);
            process.nextTick(() => seen.push(['tick of the callback', fsRequests()]));
            setImmediate(() => {
              seen.push(['immediate after', fsRequests()]);
              resolve();
            });
          });
          seen.push(['in flight', fsRequests()]);
        });
        await fs.promises.stat(process.cwd());
        seen.push(['after await', fsRequests()]);
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(['an immediate later', fsRequests()]);
      });
      await sim.run();
      assert.deepEqual(seen, [
        ['in flight', ['FSReqCallback']],
        ['in callback', ['FSReqCallback']],
        ['tick of the callback', ['FSReqCallback']],
        ['immediate after', []],
        ['after await', ['FSReqPromise']],
        ['an immediate later', []],
      ]);
    });
  }
});
