/**
 * examples/scenarios/ledger.mjs: a checksummed log on a disk that tears writes, fails fsyncs,
 * corrupts and fails reads, fills up and lags. Each planted bug fails on the seed dst explore
 * found first (seeds 1-200; docs/guide.md has the counts), the same way twice; the correct store
 * passes those seeds and the seeds that exercise its recovery paths.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { runScenario } from 'dst-runtime';
import { ledgerScenario } from '../../examples/scenarios/ledger.mjs';

/** The first failing seed of `dst explore --seeds 200` for each bug, and what it reports. */
const PINNED = {
  checksum: { seed: 0x14, message: /recovered record 6 is "record 6:[^"]*"\.\.\., not what was written/ },
  truncate: { seed: 0x10, message: /94 records acknowledged but the store holds 77/ },
  shortwrite: { seed: 0x1, message: /35 records acknowledged but the store holds 32/ },
  fsync: { seed: 0x1, message: /36 records acknowledged but the store holds 31/ },
  readcheck: { seed: 0x1, message: /read of record 5 returned "record 5:[^"]*"\.\.\., not what was written/ },
};

describe('the ledger example under disk faults (examples/scenarios/ledger.mjs)', function () {
  this.timeout(120_000);

  for (const [bug, { seed, message }] of Object.entries(PINNED)) {
    it(`planted bug "${bug}" fails on seed 0x${seed.toString(16)}, the same way twice`, async () => {
      const scenario = ledgerScenario({ bug });
      const first = await runScenario(scenario, seed);
      const again = await runScenario(scenario, seed);
      assert.equal(first.ok, false, `seed ${seed} passed with bug ${bug}`);
      assert.equal(first.failure.kind, 'safety');
      assert.match(first.failure.message, message);
      assert.equal(again.fingerprint, first.fingerprint);
    });
  }

  it('the correct store passes the pinned seeds and those where it cut a torn tail, restarted after a failed fsync and cut a short write', async () => {
    const seeds = new Set([...Object.values(PINNED).map((p) => p.seed), 3, 4, 5]);
    const hits = {};
    for (const seed of seeds) {
      const result = await runScenario(ledgerScenario({ bug: undefined }), seed);
      assert.equal(result.ok, true, `seed ${seed}: ${result.failure?.message}`);
      for (const { message, hits: n } of result.coverage) hits[message] = (hits[message] ?? 0) + n;
    }
    for (const path of ['a failed fsync made the store restart', 'a read failed its checksum and was retried', 'a short write was cut off']) {
      assert.ok(hits[path] > 0, `no seed took the path "${path}" (${JSON.stringify(hits)})`);
    }
    // The log lived on the simulated disk only.
    assert.equal(fs.existsSync('data/ledger'), false);
  });
});
