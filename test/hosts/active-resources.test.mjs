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
