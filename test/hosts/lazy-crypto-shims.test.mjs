/**
 * The crypto shims are installed at the first load of node:crypto or of Node's Web Crypto module
 * (globalThis.crypto), not at start (shims/crypto/node-crypto.ts): an empty program under
 * register mode loads neither. Each way a program can first touch randomness is tried in a fresh
 * `node --import dst-runtime/register` process, with nothing loaded before it: every way must
 * draw the seed's bytes, the same whatever the way.
 *
 * NODE_DISABLE_COMPILE_CACHE=1: on Node 20 register mode keeps a code cache of its own, keyed by a
 * SHA-1 of the runtime's text, and so loads node:crypto before the shims; without the cache the
 * shims' first-load path is what runs on every version.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');
const WAYS = path.join(HERE, 'fixtures/lazy-crypto/random-ways.cjs');
const LIBRARY = path.join(HERE, 'fixtures/lazy-crypto/library.cjs');
const WEBSOCKET = path.join(HERE, 'fixtures/lazy-crypto/websocket-mask.cjs');
const EMPTY = path.join(HERE, 'fixtures/lazy-crypto/empty.cjs');
const STATIC_IMPORT = path.join(HERE, 'fixtures/lazy-crypto/static-import.mjs');
const run = promisify(execFile);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

async function register(file, { way, seed = '0x5', cache = false } = {}) {
  const env = { ...process.env, DST_SEED: seed, DST_QUIET: '1', WAY: way ?? '' };
  if (cache) delete env.NODE_DISABLE_COMPILE_CACHE;
  else env.NODE_DISABLE_COMPILE_CACHE = '1';
  const { stdout } = await run(process.execPath, ['--import', REGISTER, file], { env });
  return stdout.trim();
}
const bytesOf = (out) => /bytes (\w+)$/.exec(out)[1];

/** The hex of a version 4 UUID made from these 16 bytes (version and variant bits set). */
function asUuidV4(hex) {
  const bytes = Buffer.from(hex, 'hex');
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return bytes.toString('hex');
}

describe('crypto shims installed at the first load of node:crypto or globalThis.crypto (register mode)', function () {
  this.timeout(120_000);

  it('an empty program loads neither node:crypto nor the Web Crypto module (seed 0x5)', async () => {
    assert.equal(await register(EMPTY), 'false false');
    // Node's own compile cache (22+) needs no hash: with it on, still neither.
    if (NODE_MAJOR >= 22) assert.equal(await register(EMPTY, { cache: true }), 'false false');
  });

  it('plainly, two runs draw different bytes (what the seeded runs below are compared against)', async () => {
    const plain = async () => bytesOf((await run(process.execPath, [WAYS], { env: { ...process.env, WAY: 'require' } })).stdout.trim());
    assert.notEqual(await plain(), await plain());
  });

  const ways = [
    ['require', "require('crypto').randomBytes"],
    ['require-webcrypto', "require('node:crypto').webcrypto.getRandomValues"],
    ['global-getRandomValues', 'globalThis.crypto.getRandomValues'],
    ['dynamic-import', "(await import('node:crypto')).randomFillSync"],
    ['get-builtin-module', "process.getBuiltinModule('node:crypto') (where Node has it)"],
    ['random-fill-async', "require('crypto').randomFill with a callback"],
  ];
  /** The seed's first 16 bytes as `require('crypto').randomBytes` draws them (seed 0x5). */
  let reference;
  before(async () => {
    reference = bytesOf(await register(WAYS, { way: 'require' }));
  });
  for (const [way, what] of ways) {
    it(`${what}: nothing of crypto loaded before, and the seed's first 16 bytes (seed 0x5)`, async () => {
      const out = await register(WAYS, { way });
      assert.match(out, /^before crypto false webcrypto false; bytes [0-9a-f]{32}$/);
      assert.equal(bytesOf(out), reference);
    });
  }

  it("globalThis.crypto.randomUUID: the seed's first 16 bytes as a version 4 UUID (seed 0x5)", async () => {
    const out = await register(WAYS, { way: 'global-randomUUID' });
    assert.match(out, /^before crypto false webcrypto false; /);
    assert.equal(bytesOf(out), asUuidV4(reference));
  });

  it("a static ES import of node:crypto: the seed's first 16 bytes (seed 0x5)", async () => {
    assert.equal(bytesOf(await register(STATIC_IMPORT)), reference);
  });

  it('another seed draws other bytes, whatever the way (seeds 0x5, 0x6)', async () => {
    for (const way of ['require', 'global-getRandomValues']) {
      assert.notEqual(bytesOf(await register(WAYS, { way, seed: '0x6' })), bytesOf(await register(WAYS, { way, seed: '0x5' })));
    }
  });

  it('globalThis.crypto.subtle.generateKey as the first touch: the keys shim is in, the key comes from the seed (seeds 0x5, 0x6)', async () => {
    const [a, b, other] = [await register(WAYS, { way: 'subtle-hmac-key' }), await register(WAYS, { way: 'subtle-hmac-key' }), await register(WAYS, { way: 'subtle-hmac-key', seed: '0x6' })];
    assert.match(a, /^before crypto false webcrypto false; bytes [0-9a-f]{32}$/);
    assert.equal(a, b);
    assert.notEqual(bytesOf(other), bytesOf(a));
  });

  it('library mode, where installing the shims loads node:crypto itself: the seed decides the bytes (seeds 5, 6)', async () => {
    const library = async (seed) => bytesOf((await run(process.execPath, [LIBRARY], { env: { ...process.env, SEED: seed } })).stdout.trim());
    const [a, b, other] = [await library('5'), await library('5'), await library('6')];
    assert.equal(a, b);
    assert.notEqual(other, a);
  });

  it("library mode: a WebSocket's handshake key and frame mask come from the seed (seeds 5, 6; Node 22+)", async function () {
    const frames = async (seed) => (await run(process.execPath, [WEBSOCKET], { env: { ...process.env, SEED: seed } })).stdout.trim();
    const first = await frames('5');
    if (first === 'no WebSocket') this.skip(); // Node 20: no global WebSocket without a flag
    assert.match(first, /^key \S+\nframe 8185[0-9a-f]{18}$/);
    assert.equal(await frames('5'), first);
    const other = await frames('6');
    assert.notEqual(other.split('\n')[0], first.split('\n')[0]);
    assert.notEqual(other.split('\n')[1], first.split('\n')[1]);
  });

  it('with the compile cache on as it is by default: the same bytes (seed 0x5)', async () => {
    assert.equal(bytesOf(await register(WAYS, { way: 'global-getRandomValues', cache: true })), reference);
  });
});
