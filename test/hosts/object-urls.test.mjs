/**
 * Blob URLs come from the seed (shims/crypto/object-urls.ts): Node draws a blob URL's id from its
 * internal random module, past node:crypto, so before this shim the same seed printed another
 * URL every run. What the URLs do is Node's (test/compliance/programs/104-object-urls.mjs
 * compares it with plain Node); here, that the ids replay.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');
const URLS = path.join(HERE, 'fixtures/object-urls/urls.mjs');
const run = promisify(execFile);

async function urls(seed) {
  const args = seed === undefined ? [URLS] : ['--import', REGISTER, URLS];
  const { stdout } = await run(process.execPath, args, { env: { ...process.env, DST_SEED: seed ?? '', DST_QUIET: '1' } });
  return JSON.parse(stdout);
}

describe('blob URLs under the simulator', function () {
  this.timeout(60_000);

  it('plainly, two runs make different URLs (what the seeded runs are compared against)', async () => {
    assert.notEqual((await urls()).a, (await urls()).a);
  });

  it('the same seed makes the same URLs, and they resolve as they do plainly (seed 0x2a, twice)', async () => {
    const [first, second] = [await urls('0x2a'), await urls('0x2a')];
    assert.deepEqual(second, first);
    assert.match(first.a, /^blob:nodedata:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(first.sizes, [1, null, 3]); // b revoked (JSON makes its undefined null)
    assert.deepEqual(first.sizes, (await urls()).sizes);
  });

  it('another seed makes other URLs (seeds 0x2a, 0x2b)', async () => {
    const [one, other] = [await urls('0x2a'), await urls('0x2b')];
    for (const key of ['a', 'b', 'c']) assert.notEqual(other[key], one[key]);
  });

  it("a URL's id is drawn from the host's crypto stream, as randomUUID's are (seed 0x2a)", async () => {
    // One stream: the first URL takes the stream's first UUID, randomUUID the next one.
    const script = 'console.log(crypto.randomUUID(), crypto.randomUUID())';
    const { stdout } = await run(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], { env: { ...process.env, DST_SEED: '0x2a', DST_QUIET: '1' } });
    const [first, next] = stdout.trim().split(' ');
    const seen = await urls('0x2a');
    assert.equal(seen.a, `blob:nodedata:${first}`);
    assert.equal(seen.uuid, next);
  });
});
