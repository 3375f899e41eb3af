/**
 * Feature code that loads at its first use (runtime/lazy-module.ts): the key and signature code
 * of node:crypto's shims sits in chunks of its own (dist/chunks/keys-impl-*, signatures-impl-*)
 * that an empty program never loads. The patches themselves are installed at node:crypto's first
 * load, whoever loads it (test/hosts/lazy-crypto-shims.test.mjs), so no way into node:crypto can
 * miss them: each way is tried in a fresh `node --import dst-runtime/register` process and must
 * load the code at the call and make the seed's key and signature, the same whatever the way.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');
const FIXTURE = path.join(HERE, 'fixtures/lazy-chunks/crypto-ways.mjs');
const run = promisify(execFile);

async function register(way, seed = '0x5') {
  // DST_DEBUG=1: require.cache shows dst-runtime's own modules, which the fixture looks for.
  const { stdout } = await run(process.execPath, ['--import', REGISTER, FIXTURE], { env: { ...process.env, DST_SEED: seed, WAY: way, DST_DEBUG: '1' } });
  return stdout.trim();
}

describe('lazily loaded feature code (register mode)', function () {
  this.timeout(60_000);

  it('an empty program loads none of the lazily loaded code: keys, signatures, fetch, cjs-module-lexer (seed 0x5)', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', REGISTER, '-e', "console.log(Object.keys(require.cache).filter((f) => /dist.chunks.(keys-impl|signatures-impl|material|fetch-impl)-|node_modules.cjs-module-lexer/.test(f)).length)"],
      // DST_DEBUG=1: require.cache shows dst-runtime's own modules (a program sees none of them).
      { env: { ...process.env, DST_SEED: '0x5', DST_DEBUG: '1' } },
    );
    assert.equal(stdout.trim(), '0');
  });

  it('plainly, two runs make different keys (what the seeded runs below are compared against)', async () => {
    const plain = async () => (await run(process.execPath, [FIXTURE], { env: { ...process.env, WAY: 'require' } })).stdout.trim();
    const [a, b] = [await plain(), await plain()];
    assert.notEqual(/key (\w+)/.exec(a)[1], /key (\w+)/.exec(b)[1]);
  });

  it('another seed makes another key (seeds 0x5, 0x6)', async () => {
    const [a, b] = [await register('require', '0x5'), await register('require', '0x6')];
    assert.notEqual(/key (\w+)/.exec(a)[1], /key (\w+)/.exec(b)[1]);
  });

  const ways = [
    ['require-node', "require('node:crypto')"],
    ['import-default', "import crypto from 'node:crypto'"],
    ['import-named', "import { generateKeyPairSync, createSign } from 'node:crypto'"],
    ['import-namespace', "import * as crypto from 'node:crypto'"],
    ['dynamic-import', "await import('node:crypto')"],
    ['get-builtin-module', "process.getBuiltinModule('node:crypto') (where Node has it)"],
  ];
  for (const [way, what] of ways) {
    it(`${what}: the code loads at the first call and makes require('crypto')'s key and signature (seed 0x5)`, async () => {
      const reference = (await register('require')).replace(/^require: /, '');
      assert.match(reference, /^before keys false signatures false; after keys true signatures true; key \w{16} signature \w{16}$/);
      assert.equal(await register(way), `${way}: ${reference}`);
    });
  }

  it('globalThis.crypto.subtle: the code loads at the first call and makes the same key (seed 0x5)', async () => {
    const reference = /key (\w+)/.exec(await register('require'))[1];
    const out = await register('webcrypto');
    assert.match(out, /^webcrypto: before keys false signatures false; after keys true signatures true; /);
    assert.equal(/key (\w+)/.exec(out)[1], reference);
    assert.equal(out, await register('webcrypto'));
  });
});
