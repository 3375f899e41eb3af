// dst-runtime loaded from a test runner's vm context (Jest; Vitest's vmThreads/vmForks pools),
// reproduced without either runner by test/support/sandbox.cjs: the same probes, in a fresh
// process each, must give what they give in Node's own realm - in the first test file of a
// worker and in the next.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const runProbes = fileURLToPath(new URL('./fixtures/run-probes.cjs', import.meta.url));
const moduleHostEnvFixture = fileURLToPath(new URL('./fixtures/module-host-env.cjs', import.meta.url));
const scenarioSeedsFixture = fileURLToPath(new URL('./fixtures/scenario-seeds.cjs', import.meta.url));
const { createSandbox } = createRequire(import.meta.url)('../support/sandbox.cjs');

function probes(...args) {
  const { status, stdout, stderr } = spawnSync(process.execPath, [runProbes, ...args], { encoding: 'utf8' });
  // Nothing on stderr: a warning the runtime's own binding calls caused (DEP0111) once went
  // to Node's process.emitWarning while the runtime held back the context's.
  assert.equal(stderr, '');
  assert.equal(status, 0);
  return JSON.parse(stdout);
}

describe('test runners that evaluate test files in a vm context', function () {
  this.timeout(60_000);
  let inNode;
  before(() => {
    [inNode] = probes('node').files;
  });

  for (const [runner, mode] of [
    ['Jest (a copy of process with its own events)', 'jest'],
    ['Vitest vmThreads/vmForks (Node\'s process)', 'vitest-vm'],
  ]) {
    describe(runner, () => {
      let out;
      before(() => {
        out = probes(mode, '2');
      });

      it('loads one runtime per process, in Node\'s realm', () => {
        assert.equal(out.sameRuntime, true);
      });

      for (const probe of ['globals', 'ownListeners', 'tickCrash', 'fetch', 'moduleHost']) {
        it(`${probe}: the same run as in Node's realm, in the first test file and the next`, () => {
          assert.ok(inNode[probe].fingerprint !== undefined || inNode[probe].failure !== undefined);
          assert.deepEqual(out.files[0][probe], inNode[probe]);
          assert.deepEqual(out.files[1][probe], inNode[probe]);
        });
      }

      it('scenarioSeeds finds the context\'s global `it` (Jest\'s)', () => {
        const defined = [];
        const box = createSandbox({ processCopy: mode === 'jest' });
        box.global.it = (name) => defined.push(name);
        assert.deepEqual([...box.require(scenarioSeedsFixture)], ['0x1', '0x2']); // an array of the context's
        assert.deepEqual(defined, ['idle seed 0x1', 'idle seed 0x2']);
      });

      it('a module host starts from the env the test file set on its process', async () => {
        const box = createSandbox({ processCopy: mode === 'jest' });
        await box.require(moduleHostEnvFixture)();
        // The host's module ran in Node's realm, which Node's own loader evaluates it in.
        assert.equal(globalThis[Symbol.for('dst-test.env')], 'set by the test file');
        delete globalThis[Symbol.for('dst-test.env')];
        if (mode === 'vitest-vm') delete process.env.DST_TEST_VALUE; // Node's own process there
        assert.equal(process.env.DST_TEST_VALUE, undefined);
      });

      it('leaves the context\'s Date, Math.random and process as they were', () => {
        assert.deepEqual(out.restored, [[], []]);
      });
    });
  }
});
