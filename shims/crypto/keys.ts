/**
 * Keys OpenSSL would make from its own generator, made from the seed instead. Plainly key
 * generation reads OpenSSL's generator, which no JavaScript can seed, so a host that printed a
 * fresh key (a node identity, say) printed something new on every run of the same seed. Inside a
 * host these draw from the host's `openssl` stream:
 *
 * - `generateKeyPair(Sync)` of `ed25519`, `ed448`, `x25519`, `x448`, `ec` on P-256, P-384,
 *   P-521 and secp256k1 (named parameters), and `rsa`; `generateKey(Sync)` of `hmac` and `aes`;
 * - `crypto.subtle.generateKey` of the same kinds (Ed25519, X25519, Ed448, X448, ECDSA, ECDH,
 *   RSASSA-PKCS1-v1_5, RSA-PSS, RSA-OAEP, HMAC, AES-*);
 * - `ECDH#generateKeys` and `DiffieHellman#generateKeys` (groups too).
 *
 * Every call still goes to Node's own function first, with the program's arguments, so
 * validation, errors (codes, messages, sync throw or async rejection), encodings, the result's
 * shape and the timing of callbacks and promises are Node's. Then the random part of the result
 * is replaced by one made from the seed with the same material OpenSSL would use: keys are built
 * from drawn private scalars (PKCS#8, JWK) and imported through Node, RSA primes are drawn and
 * tested with `checkPrimeSync`. Node's own `verify`, `diffieHellman` and `privateDecrypt` accept
 * every key made here (test/hosts/crypto-keys.test.mjs checks that).
 *
 * The one exception to "Node's function first": RSA generation by node:crypto runs Node's with
 * a 512-bit modulus (after checking the program's modulusLength the way Node would), so a
 * 4096-bit key is not generated twice.
 *
 * The KeyObjects behind the CryptoKeys made here are remembered for signatures.ts (Node 24
 * gives no other way to a non-extractable key's material without a warning).
 *
 * Left to OpenSSL (documented in the guide): DSA, DH and RSA-PSS key types, other curves,
 * explicit EC parameters, `generatePrime`, and the salt and IV of an encrypted PEM export.
 */
import { CRYPTO_BUILTINS, nodeCrypto } from './node-crypto.js';
import { lazyModule } from '../../runtime/lazy-module.js';
import { captureReal, type Proto, protoOf, real } from './keys-real.js';
import type { Fn } from './material.js';
import { mirrorFunction, type PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

// ---- install -------------------------------------------------------------------------------------

/**
 * The code that makes keys from the seed (keys-impl.ts, 20 KB) loads at the first call of a
 * patched generator: the patches are in place from the start, so no call can miss them, and an
 * empty program does not compile that code (docs/benchmarks.md, figure 12).
 */
const impl = lazyModule(() => import('./keys-impl.js'));
type Forwarded = 'simGenerateKeyPairSync' | 'simGenerateKeyPair' | 'simGenerateKeySync' | 'simGenerateKey' | 'simEcdhGenerateKeys' | 'simSubtleGenerateKey';
function forward(name: Forwarded): Fn {
  return function (this: unknown) {
    return Reflect.apply(impl()[name] as Fn, this, arguments);
  };
}
/** DiffieHellman(Group)#generateKeys over `original`, made at its first call. */
function forwardDh(original: () => Fn): Fn {
  let made: Fn | undefined;
  return function (this: unknown) {
    made ??= impl().dhGenerateKeysFrom(original());
    return Reflect.apply(made, this, arguments);
  };
}

export const cryptoKeysShim: Shim = {
  name: 'crypto-keys',
  builtins: CRYPTO_BUILTINS,
  install(patches: PatchSet) {
    captureReal();
    const crypto = nodeCrypto();
    const mod = crypto as unknown as Record<string, Fn>;
    patches.replace(mod, 'generateKeyPairSync', mirrorFunction(forward('simGenerateKeyPairSync'), real.generateKeyPairSync));
    patches.replace(mod, 'generateKeyPair', mirrorFunction(forward('simGenerateKeyPair'), real.generateKeyPair));
    patches.replace(mod, 'generateKeySync', mirrorFunction(forward('simGenerateKeySync'), real.generateKeySync));
    patches.replace(mod, 'generateKey', mirrorFunction(forward('simGenerateKey'), real.generateKey));
    patches.replace(protoOf(crypto.ECDH), 'generateKeys', mirrorFunction(forward('simEcdhGenerateKeys'), real.ecdhGenerateKeys));
    patches.replace(protoOf(crypto.DiffieHellman), 'generateKeys', mirrorFunction(forwardDh(() => real.dhGenerateKeys), real.dhGenerateKeys));
    patches.replace(
      protoOf(crypto.DiffieHellmanGroup),
      'generateKeys',
      mirrorFunction(forwardDh(() => real.dhGroupGenerateKeys), real.dhGroupGenerateKeys),
    );
    const subtleProto = Object.getPrototypeOf(crypto.webcrypto.subtle) as Proto;
    patches.replace(subtleProto, 'generateKey', mirrorFunction(forward('simSubtleGenerateKey'), real.subtleGenerateKey));
  },
};
