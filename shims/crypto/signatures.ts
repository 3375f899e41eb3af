/**
 * Signatures and encryptions OpenSSL randomizes, made from the seed instead: an ECDSA signature
 * draws a nonce, an RSA-PSS signature a salt, RSA encryption (OAEP, and PKCS#1 v1.5's padding)
 * a seed or padding bytes. Plainly those come from OpenSSL's own generator, so a host that printed
 * an ES256 or PS256 token, or an encrypted secret, printed new bytes on every run of one seed.
 * Inside a host they draw from the host's `openssl` stream:
 *
 * - ECDSA on P-256, P-384, P-521 and secp256k1 and RSA-PSS (an `rsa` key with
 *   `padding: RSA_PKCS1_PSS_PADDING`): `crypto.sign` (also with a callback), `Sign#sign`
 *   (`createSign`), and `crypto.subtle.sign` (ECDSA, RSA-PSS);
 * - RSA encryption: `crypto.publicEncrypt` (OAEP, its default, and RSA_PKCS1_PADDING) and
 *   `crypto.subtle.encrypt` (RSA-OAEP).
 *
 * As in keys.ts, Node's function runs first with the program's arguments (validation,
 * errors, encodings, callback and promise timing are Node's), then its random result is replaced:
 * an ECDSA signature computed with a drawn nonce k (R = k·G from `ECDH#setPrivateKey`,
 * s = k⁻¹(z + r·d) mod n), an RSA-PSS or encryption block encoded as RFC 8017 says with drawn
 * salt, seed or padding, then put through the raw RSA operation (`privateEncrypt` or
 * `publicEncrypt` with RSA_NO_PADDING). Node's `verify` and `privateDecrypt` accept every result
 * (test/hosts/crypto-keys.test.mjs).
 *
 * Left to OpenSSL: DSA signatures, keys of type `rsa-pss` (their parameters constrain the
 * padding), other curves, `subtle.wrapKey` with RSA-OAEP, and a non-extractable CryptoKey a host
 * neither generated nor imported (Node 24 gives no way to its material without a warning).
 */
import { CRYPTO_BUILTINS, nodeCrypto } from './node-crypto.js';
import { lazyModule } from '../../runtime/lazy-module.js';
import { captureReal, real, signProto, subtleProto } from './signatures-real.js';
import type { Fn } from './material.js';
import { mirrorFunction, type PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

// ---- install -------------------------------------------------------------------------------------

/**
 * The code that signs and encrypts from the seed (signatures-impl.ts, 17 KB) loads at the first
 * call of a patched function: the patches are in place from the start, so no call can miss
 * them, and an empty program does not compile that code (docs/benchmarks.md, figure 12).
 */
const impl = lazyModule(() => import('./signatures-impl.js'));
type Forwarded = 'simSign' | 'simCreateSign' | 'simPublicEncrypt' | 'simSignUpdate' | 'simSignSign' | 'simSubtleSign' | 'simSubtleEncrypt';
function forward(name: Forwarded): Fn {
  return function (this: unknown) {
    return Reflect.apply(impl()[name] as Fn, this, arguments);
  };
}
/** `crypto.Sign` itself, with or without `new`, made at its first call. */
function forwardSign(RealSign: Fn): Fn {
  let made: Fn | undefined;
  const Sign = function (this: unknown) {
    made ??= impl().signConstructor(RealSign);
    return new.target === undefined ? Reflect.apply(made, this, arguments) : Reflect.construct(made, arguments, new.target);
  } as unknown as Fn;
  Object.defineProperty(Sign, 'prototype', { value: RealSign.prototype, writable: false });
  return Sign;
}

export const cryptoSignaturesShim: Shim = {
  name: 'crypto-signatures',
  builtins: CRYPTO_BUILTINS,
  install(patches: PatchSet) {
    captureReal();
    const mod = nodeCrypto() as unknown as Record<string, Fn>;
    patches.replace(mod, 'sign', mirrorFunction(forward('simSign'), real.sign));
    patches.replace(mod, 'createSign', mirrorFunction(forward('simCreateSign'), real.createSign));
    patches.replace(mod, 'Sign', mirrorFunction(forwardSign(real.Sign), real.Sign));
    patches.replace(mod, 'publicEncrypt', mirrorFunction(forward('simPublicEncrypt'), real.publicEncrypt));
    patches.replace(signProto(), 'update', mirrorFunction(forward('simSignUpdate'), real.signUpdate));
    patches.replace(signProto(), 'sign', mirrorFunction(forward('simSignSign'), real.signSign));
    patches.replace(subtleProto(), 'sign', mirrorFunction(forward('simSubtleSign'), real.subtleSign));
    patches.replace(subtleProto(), 'encrypt', mirrorFunction(forward('simSubtleEncrypt'), real.subtleEncrypt));
  },
};
