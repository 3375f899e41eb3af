/**
 * Randomness OpenSSL draws for itself, from the seed instead: key generation and ECDSA
 * signatures. Plainly these read OpenSSL's own generator, which no JavaScript can seed, so a host
 * that printed a fresh key or an ES256 signature (a JWT, say) printed something new on every run
 * of the same seed. Inside a host they now draw from the host's `openssl` stream:
 *
 * - `generateKeyPair(Sync)` of `ed25519`, `ed448`, `x25519`, `x448`, `ec` on P-256, P-384,
 *   P-521 and secp256k1 (named parameters), and `rsa`; `generateKey(Sync)` of `hmac` and `aes`;
 * - `crypto.subtle.generateKey` of the same kinds (Ed25519, X25519, Ed448, X448, ECDSA, ECDH,
 *   RSASSA-PKCS1-v1_5, RSA-PSS, RSA-OAEP, HMAC, AES-*);
 * - `ECDH#generateKeys`;
 * - ECDSA signatures on those four curves: `crypto.sign`, `Sign#sign` (`createSign`) and
 *   `crypto.subtle.sign`.
 *
 * Every call still goes to Node's own function first, with the program's arguments, so
 * validation, errors (codes, messages, sync throw or async rejection), encodings, the result's
 * shape and the timing of callbacks and promises are Node's. Then the random part of the result
 * is replaced by one made from the seed with the same material OpenSSL would use: keys are built
 * from drawn private scalars (PKCS#8, JWK) and imported through Node, RSA primes are drawn and
 * tested with `checkPrimeSync`, an ECDSA signature uses a drawn nonce k, R = k·G from
 * `ECDH#setPrivateKey`, and `s = k⁻¹(z + r·d) mod n`. Node's own `verify` accepts every
 * signature and key made here (test/hosts/crypto-keys.test.mjs checks that).
 *
 * The one exception to "Node's function first": RSA generation by node:crypto runs Node's with
 * a 512-bit modulus (after checking the program's modulusLength the way Node would), so a
 * 4096-bit key is not generated twice.
 *
 * Left to OpenSSL (documented in the guide): DSA, DH and RSA-PSS key types, other curves,
 * explicit EC parameters, `generatePrime`, `DiffieHellman#generateKeys`, RSA-PSS signatures and
 * RSA encryption padding, and the salt and IV of an encrypted PEM export.
 */
import cryptoModule, { type KeyObject } from 'node:crypto';
import { types } from 'node:util';
import type { Host } from '../runtime/hosts/host.js';
import type { RandomStream } from '../runtime/random/stream.js';
import { currentHost } from './context.js';
import { withJobsHeld } from './crypto-jobs.js';
import { mirrorFunction, type PatchSet } from './registry.js';
import type { Shim } from './shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Fn = (this: unknown, ...args: any[]) => any;

// ---- the stream ------------------------------------------------------------------------------

const streams = new WeakMap<Host, RandomStream>();

function drawBytes(host: Host, length: number): Buffer {
  let stream = streams.get(host);
  if (stream === undefined) {
    stream = host.stream('openssl');
    streams.set(host, stream);
  }
  const bytes = Buffer.alloc(length);
  stream.fill(bytes);
  return bytes;
}

// ---- big integers ------------------------------------------------------------------------------

function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`);
}

/** Big-endian bytes of `n`, left-padded to `length` when given (minimal otherwise). */
function toBytes(n: bigint, length?: number): Buffer {
  let hex = n.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  const minimal = Buffer.from(hex, 'hex');
  if (length === undefined || minimal.length >= length) return minimal;
  return Buffer.concat([Buffer.alloc(length - minimal.length), minimal]);
}

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [mod(a, m), m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  if (oldR !== 1n) throw new Error('Failed to invert: not coprime');
  return mod(oldS, m);
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

function base64url(n: bigint, length?: number): string {
  return toBytes(n, length).toString('base64url');
}

/** A uniform integer in [1, n - 1] from the stream (rejection sampling on n's bit length). */
function drawScalar(host: Host, n: bigint): bigint {
  const bits = bitLength(n);
  const length = Math.ceil(bits / 8);
  const topMask = 0xff >> (length * 8 - bits);
  for (;;) {
    const bytes = drawBytes(host, length);
    bytes[0]! &= topMask;
    const k = toBigInt(bytes);
    if (k !== 0n && k < n) return k;
  }
}

// ---- curves ------------------------------------------------------------------------------------

interface Curve {
  /** The JWK / WebCrypto name. */
  jwk: string;
  /** OpenSSL's name, as `asymmetricKeyDetails.namedCurve` and `createECDH` know it. */
  openssl: string;
  /** Bytes of a field element (a coordinate). */
  fieldBytes: number;
  /** The order of the base point. */
  n: bigint;
}

const CURVE_LIST: Curve[] = [
  {
    jwk: 'P-256',
    openssl: 'prime256v1',
    fieldBytes: 32,
    n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  },
  {
    jwk: 'P-384',
    openssl: 'secp384r1',
    fieldBytes: 48,
    n: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
  },
  {
    jwk: 'P-521',
    openssl: 'secp521r1',
    fieldBytes: 66,
    n: 0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
  },
  {
    jwk: 'secp256k1',
    openssl: 'secp256k1',
    fieldBytes: 32,
    n: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n,
  },
];

/** Every name Node accepts for these curves (namedCurve of generateKeyPair, createECDH, JWK). */
const CURVES = new Map<string, Curve>();
for (const curve of CURVE_LIST) {
  CURVES.set(curve.jwk, curve);
  CURVES.set(curve.openssl, curve);
}

/** k·G on `curve`, uncompressed (04 || x || y), computed by OpenSSL. */
function basePointTimes(curve: Curve, k: bigint): Buffer {
  const ecdh = real.createECDH(curve.openssl) as { setPrivateKey: Fn; getPublicKey: Fn };
  Reflect.apply(real.ecdhSetPrivateKey, ecdh, [toBytes(k, Math.ceil(bitLength(curve.n) / 8))]);
  return Reflect.apply(real.ecdhGetPublicKey, ecdh, []) as Buffer;
}

// ---- keys --------------------------------------------------------------------------------------

interface Pair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

function pairOf(privateKey: KeyObject): Pair {
  return { publicKey: cryptoModule.createPublicKey(privateKey), privateKey };
}

/** PKCS#8 prefixes of the curve25519/448 keys: the private key's raw bytes follow. */
const OKP_PKCS8: Record<string, { prefix: string; length: number }> = {
  ed25519: { prefix: '302e020100300506032b657004220420', length: 32 },
  x25519: { prefix: '302e020100300506032b656e04220420', length: 32 },
  ed448: { prefix: '3047020100300506032b6571043b0439', length: 57 },
  x448: { prefix: '3046020100300506032b656f043a0438', length: 56 },
};

function okpPair(host: Host, type: string): Pair {
  const { prefix, length } = OKP_PKCS8[type]!;
  const der = Buffer.concat([Buffer.from(prefix, 'hex'), drawBytes(host, length)]);
  return pairOf(cryptoModule.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
}

function ecPair(host: Host, curve: Curve): Pair {
  const d = drawScalar(host, curve.n);
  const point = basePointTimes(curve, d);
  const x = point.subarray(1, 1 + curve.fieldBytes);
  const y = point.subarray(1 + curve.fieldBytes);
  const key = { kty: 'EC', crv: curve.jwk, x: x.toString('base64url'), y: y.toString('base64url'), d: base64url(d, curve.fieldBytes) };
  return pairOf(cryptoModule.createPrivateKey({ key, format: 'jwk' }));
}

/** The odd primes below 2000, for sieving candidates before OpenSSL's primality test. */
const SMALL_PRIMES: number[] = [];
for (let p = 3; p < 2000; p += 2) if (SMALL_PRIMES.every((q) => p % q !== 0)) SMALL_PRIMES.push(p);

/**
 * A prime of exactly `bits` bits with its two top bits set (so a product of two has exactly the
 * sum of their lengths) and `p - 1` coprime to `e`: a drawn odd start, then the next candidate
 * that survives the small primes and `checkPrimeSync`.
 */
function drawPrime(host: Host, bits: number, e: bigint): bigint {
  for (;;) {
    const bytes = drawBytes(host, Math.ceil(bits / 8));
    let start = toBigInt(bytes) >> BigInt(bytes.length * 8 - bits);
    start |= (3n << BigInt(bits - 2)) | 1n;
    const residues = SMALL_PRIMES.map((p) => Number(start % BigInt(p)));
    for (let delta = 0; delta < 1 << 20; delta += 2) {
      let composite = false;
      for (let i = 0; i < SMALL_PRIMES.length; i++) {
        const p = SMALL_PRIMES[i]!;
        if ((residues[i]! + delta) % p === 0 && start + BigInt(delta) !== BigInt(p)) {
          composite = true;
          break;
        }
      }
      if (composite) continue;
      const candidate = start + BigInt(delta);
      if (bitLength(candidate) !== bits) break;
      if (gcd(candidate - 1n, e) !== 1n) continue;
      if (cryptoModule.checkPrimeSync(candidate)) return candidate;
    }
  }
}

function rsaPair(host: Host, modulusLength: number, publicExponent: number): Pair {
  const e = BigInt(publicExponent);
  const pBits = (modulusLength + 1) >> 1;
  const p = drawPrime(host, pBits, e);
  let q: bigint;
  do q = drawPrime(host, modulusLength - pBits, e);
  while (q === p);
  const n = p * q;
  const lambda = ((p - 1n) * (q - 1n)) / gcd(p - 1n, q - 1n);
  const d = modInverse(e, lambda);
  const key = {
    kty: 'RSA',
    n: base64url(n),
    e: base64url(e),
    d: base64url(d),
    p: base64url(p),
    q: base64url(q),
    dp: base64url(d % (p - 1n)),
    dq: base64url(d % (q - 1n)),
    qi: base64url(modInverse(q, p)),
  };
  return pairOf(cryptoModule.createPrivateKey({ key, format: 'jwk' }));
}

/** What a program's key-pair request makes here, or undefined when OpenSSL keeps it. */
interface PairPlan {
  /** The options Node's own function is called with (the program's, except RSA's modulus). */
  nodeOptions: unknown;
  make(host: Host): Pair;
}

function isPlainOptions(options: unknown): options is Record<string, unknown> {
  return typeof options === 'object' && options !== null && !Array.isArray(options);
}

/** The smallest modulus OpenSSL generates, used to let Node validate an RSA request cheaply. */
const RSA_VALIDATION_BITS = 512;
/** Larger requests are left to OpenSSL: drawing their primes here would take minutes. */
const RSA_MAX_BITS = 16_384;

function planPair(type: unknown, options: unknown): PairPlan | undefined {
  if (typeof type !== 'string') return undefined;
  if (type in OKP_PKCS8) return { nodeOptions: options, make: (host) => okpPair(host, type) };
  if (!isPlainOptions(options)) return undefined;
  if (type === 'ec') {
    const curve = typeof options.namedCurve === 'string' ? CURVES.get(options.namedCurve) : undefined;
    if (curve === undefined || (options.paramEncoding !== undefined && options.paramEncoding !== 'named')) return undefined;
    return { nodeOptions: options, make: (host) => ecPair(host, curve) };
  }
  if (type === 'rsa') {
    const { modulusLength, publicExponent = 0x10001 } = options;
    if (!Number.isInteger(modulusLength) || (modulusLength as number) < RSA_VALIDATION_BITS || (modulusLength as number) > RSA_MAX_BITS) {
      return undefined;
    }
    if (!Number.isInteger(publicExponent) || (publicExponent as number) < 3 || (publicExponent as number) > 0xffff_ffff) return undefined;
    if ((publicExponent as number) % 2 === 0) return undefined;
    return {
      nodeOptions: { ...options, modulusLength: RSA_VALIDATION_BITS },
      make: (host) => rsaPair(host, modulusLength as number, publicExponent as number),
    };
  }
  return undefined;
}

/** The pair in the encodings the program asked for (Node has validated them already). */
function encodePair(pair: Pair, options: unknown): [unknown, unknown] {
  const opts = isPlainOptions(options) ? options : {};
  const encode = (key: KeyObject, encoding: unknown) => (isPlainOptions(encoding) ? key.export(encoding as any) : key);
  return [encode(pair.publicKey, opts.publicKeyEncoding), encode(pair.privateKey, opts.privateKeyEncoding)];
}

// ---- the real functions ------------------------------------------------------------------------

interface Real {
  generateKeyPair: Fn;
  generateKeyPairSync: Fn;
  generateKey: Fn;
  generateKeySync: Fn;
  sign: Fn;
  createSign: Fn;
  signUpdate: Fn;
  signSign: Fn;
  createECDH: Fn;
  ecdhGenerateKeys: Fn;
  ecdhSetPrivateKey: Fn;
  ecdhGetPublicKey: Fn;
  subtleGenerateKey: Fn;
  subtleSign: Fn;
  subtleImportKey: Fn;
}

let real: Real;

/** Node's functions (those that start jobs held as crypto-jobs.ts holds them). */
function captureReal(): Real {
  const mod = cryptoModule as unknown as Record<string, Fn>;
  const signProto = (cryptoModule.Sign as unknown as { prototype: Record<string, Fn> }).prototype;
  const ecdhProto = (cryptoModule.ECDH as unknown as { prototype: Record<string, Fn> }).prototype;
  const subtleProto = Object.getPrototypeOf(cryptoModule.webcrypto.subtle) as Record<string, Fn>;
  return {
    generateKeyPair: withJobsHeld(mod.generateKeyPair!),
    generateKeyPairSync: mod.generateKeyPairSync!,
    generateKey: withJobsHeld(mod.generateKey!),
    generateKeySync: mod.generateKeySync!,
    sign: withJobsHeld(mod.sign!),
    createSign: mod.createSign!,
    signUpdate: signProto.update!,
    signSign: signProto.sign!,
    createECDH: mod.createECDH!,
    ecdhGenerateKeys: ecdhProto.generateKeys!,
    ecdhSetPrivateKey: ecdhProto.setPrivateKey!,
    ecdhGetPublicKey: ecdhProto.getPublicKey!,
    subtleGenerateKey: withJobsHeld(subtleProto.generateKey!),
    subtleSign: withJobsHeld(subtleProto.sign!),
    subtleImportKey: withJobsHeld(subtleProto.importKey!),
  };
}

// ---- node:crypto key generation ---------------------------------------------------------------

function simGenerateKeyPairSync(this: unknown, type: unknown, options: unknown): unknown {
  const host = currentHost();
  const plan = host === undefined ? undefined : planPair(type, options);
  if (plan === undefined) return Reflect.apply(real.generateKeyPairSync, this, arguments);
  Reflect.apply(real.generateKeyPairSync, this, [type, plan.nodeOptions]);
  const [publicKey, privateKey] = encodePair(plan.make(host!), options);
  return { publicKey, privateKey };
}

function simGenerateKeyPair(this: unknown, type: unknown, options: unknown, callback: unknown): unknown {
  const host = currentHost();
  const optionsGiven = typeof options !== 'function';
  const done = optionsGiven ? callback : options;
  const plan = host === undefined || typeof done !== 'function' ? undefined : planPair(type, optionsGiven ? options : undefined);
  if (plan === undefined) return Reflect.apply(real.generateKeyPair, this, arguments);
  const deliver = function (this: unknown, error: unknown, ...results: unknown[]) {
    if (error) return Reflect.apply(done as Fn, this, [error, ...results]);
    let encoded: [unknown, unknown];
    try {
      encoded = encodePair(plan.make(host!), optionsGiven ? options : undefined);
    } catch (failure) {
      return Reflect.apply(done as Fn, this, [failure]);
    }
    return Reflect.apply(done as Fn, this, [null, ...encoded]);
  };
  const args = optionsGiven ? [type, plan.nodeOptions, deliver] : [type, deliver];
  return Reflect.apply(real.generateKeyPair, this, args);
}

function secretLike(host: Host, key: unknown): unknown {
  const size = (key as KeyObject).symmetricKeySize!;
  return cryptoModule.createSecretKey(drawBytes(host, size));
}

function isSecretType(type: unknown): boolean {
  return type === 'hmac' || type === 'aes';
}

function simGenerateKeySync(this: unknown, type: unknown, options: unknown): unknown {
  const host = currentHost();
  const key = Reflect.apply(real.generateKeySync, this, arguments);
  return host === undefined || !isSecretType(type) ? key : secretLike(host, key);
}

function simGenerateKey(this: unknown, type: unknown, options: unknown, callback: unknown): unknown {
  const host = currentHost();
  if (host === undefined || typeof callback !== 'function' || !isSecretType(type)) {
    return Reflect.apply(real.generateKey, this, arguments);
  }
  const deliver = function (this: unknown, error: unknown, key: unknown) {
    if (error) return Reflect.apply(callback as Fn, this, [error, key]);
    return Reflect.apply(callback as Fn, this, [null, secretLike(host, key)]);
  };
  return Reflect.apply(real.generateKey, this, [type, options, deliver]);
}

// ---- ECDH ----------------------------------------------------------------------------------------

/**
 * ECDH#generateKeys: Node's (validation, encodings), then a private key drawn from the stream in
 * its place. The curve is not known here, only its field's size (from the public key, whose
 * length is fixed: the private key's varies, P-521's is 65 or 66 bytes). A draw that is not a
 * valid private key is drawn again with its top byte narrowed by one bit (P-521's is 0 or 1).
 */
function simEcdhGenerateKeys(this: unknown, encoding?: unknown, format?: unknown): unknown {
  const result = Reflect.apply(real.ecdhGenerateKeys, this, arguments);
  const host = currentHost();
  if (host === undefined) return result;
  const fieldBytes = ((Reflect.apply(real.ecdhGetPublicKey, this, []) as Buffer).length - 1) / 2;
  for (let attempt = 0; ; attempt++) {
    const bytes = drawBytes(host, fieldBytes);
    bytes[0]! &= 0xff >> Math.min(8, attempt);
    try {
      Reflect.apply(real.ecdhSetPrivateKey, this, [bytes]);
      break;
    } catch (error) {
      if (attempt >= 64) throw error;
    }
  }
  return Reflect.apply(real.ecdhGetPublicKey, this, [encoding, format]);
}

// ---- ECDSA ---------------------------------------------------------------------------------------

/** Private KeyObjects of the CryptoKeys hosts generated or imported (Node 24 has no other way in). */
const cryptoKeyMaterial = new WeakMap<object, KeyObject>();

function isCryptoKey(value: unknown): value is CryptoKeyLike {
  return (types as unknown as { isCryptoKey(v: unknown): boolean }).isCryptoKey(value);
}

/**
 * The KeyObject of a CryptoKey: one a host made, or an extractable one (KeyObject.from of a
 * non-extractable key warns with DEP0204 on Node 24, a warning the program did not cause).
 */
function keyObjectOfCryptoKey(key: CryptoKeyLike): KeyObject | undefined {
  const known = cryptoKeyMaterial.get(key);
  if (known !== undefined || !key.extractable) return known;
  return (cryptoModule.KeyObject as unknown as { from(key: unknown): KeyObject }).from(key);
}

/** The private KeyObject a sign call used, when it can be told from the argument. */
function privateKeyOf(key: unknown): KeyObject | undefined {
  const asKeyObject = (value: unknown): KeyObject | undefined => {
    if (value instanceof cryptoModule.KeyObject) return value;
    return isCryptoKey(value) ? keyObjectOfCryptoKey(value) : undefined;
  };
  const direct = asKeyObject(key) ?? (isPlainOptions(key) ? asKeyObject(key.key) : undefined);
  if (direct !== undefined) return direct.type === 'private' ? direct : undefined;
  if (isCryptoKey(key) || (isPlainOptions(key) && isCryptoKey(key.key))) return undefined;
  try {
    return cryptoModule.createPrivateKey(key as any);
  } catch {
    return undefined;
  }
}

interface EcdsaKey {
  curve: Curve;
  d: bigint;
}

function ecdsaKeyOf(key: KeyObject | undefined): EcdsaKey | undefined {
  if (key === undefined || key.asymmetricKeyType !== 'ec') return undefined;
  const curve = CURVES.get(key.asymmetricKeyDetails?.namedCurve ?? '');
  if (curve === undefined) return undefined;
  const jwk = key.export({ format: 'jwk' });
  return { curve, d: toBigInt(Buffer.from(jwk.d!, 'base64url')) };
}

function derInteger(n: bigint): Buffer {
  let bytes = toBytes(n);
  if (bytes.length === 0 || bytes[0]! & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
}

function derLength(length: number): Buffer {
  return length < 0x80 ? Buffer.from([length]) : Buffer.from([0x81, length]);
}

/** An ECDSA signature of `digest` with a nonce drawn from the stream, DER or IEEE P1363. */
function ecdsaSignature(host: Host, key: EcdsaKey, digest: Buffer, p1363: boolean): Buffer {
  const { curve, d } = key;
  const nBits = bitLength(curve.n);
  let z = toBigInt(digest);
  if (digest.length * 8 > nBits) z >>= BigInt(digest.length * 8 - nBits);
  for (;;) {
    const k = drawScalar(host, curve.n);
    const point = basePointTimes(curve, k);
    const r = mod(toBigInt(point.subarray(1, 1 + curve.fieldBytes)), curve.n);
    if (r === 0n) continue;
    const s = mod(modInverse(k, curve.n) * (z + r * d), curve.n);
    if (s === 0n) continue;
    if (p1363) {
      const width = Math.ceil(nBits / 8);
      return Buffer.concat([toBytes(r, width), toBytes(s, width)]);
    }
    const body = Buffer.concat([derInteger(r), derInteger(s)]);
    return Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
  }
}

/** The digest ECDSA signs for `crypto.sign(algorithm, data, ...)` (SHA-256 when algorithm is null). */
function digestOf(algorithm: unknown, data: unknown): Buffer | undefined {
  try {
    const name = algorithm === null || algorithm === undefined ? 'sha256' : String(algorithm);
    return cryptoModule.createHash(name).update(data as NodeJS.ArrayBufferView).digest();
  } catch {
    return undefined;
  }
}

function wantsP1363(key: unknown): boolean {
  return isPlainOptions(key) && key.dsaEncoding === 'ieee-p1363';
}

function simSign(this: unknown, algorithm: unknown, data: unknown, key: unknown, callback: unknown): unknown {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(real.sign, this, arguments);
  if (typeof callback !== 'function') {
    const signature = Reflect.apply(real.sign, this, arguments);
    const ecdsa = ecdsaKeyOf(privateKeyOf(key));
    const digest = ecdsa === undefined ? undefined : digestOf(algorithm, data);
    return digest === undefined ? signature : ecdsaSignature(host, ecdsa!, digest, wantsP1363(key));
  }
  const deliver = function (this: unknown, error: unknown, signature: unknown) {
    if (error || digest === undefined) return Reflect.apply(callback as Fn, this, [error, signature]);
    return Reflect.apply(callback as Fn, this, [null, ecdsaSignature(host, ecdsa!, digest, wantsP1363(key))]);
  };
  const result = Reflect.apply(real.sign, this, [algorithm, data, key, deliver]);
  // Node has validated the call: the digest is of the data as it is now, as the job reads it.
  const ecdsa = ecdsaKeyOf(privateKeyOf(key));
  const digest = ecdsa === undefined ? undefined : digestOf(algorithm, data);
  return result;
}

/**
 * A second hash of what each Sign a host made was given, for signing it again (none when
 * node:crypto has no hash of the Sign's name, e.g. 'ecdsa-with-SHA256': OpenSSL keeps those).
 */
const signHashes = new WeakMap<object, ReturnType<typeof cryptoModule.createHash>>();

function simCreateSign(this: unknown, algorithm: unknown, options: unknown): unknown {
  const sign = Reflect.apply(real.createSign, this, arguments) as object;
  if (currentHost() === undefined) return sign;
  try {
    signHashes.set(sign, cryptoModule.createHash(algorithm as string));
  } catch {
    // Not a name createHash knows.
  }
  return sign;
}

function simSignUpdate(this: object, data: unknown, encoding: unknown): unknown {
  const result = Reflect.apply(real.signUpdate, this, arguments);
  const hash = signHashes.get(this);
  if (hash !== undefined) {
    // Native code decodes a string in an encoding it does not know as UTF-8.
    const known = typeof encoding === 'string' && Buffer.isEncoding(encoding) ? encoding : 'utf8';
    if (typeof data === 'string') hash.update(data, known as BufferEncoding);
    else hash.update(data as NodeJS.ArrayBufferView);
  }
  return result;
}

function simSignSign(this: object, privateKey: unknown, outputEncoding: unknown): unknown {
  const signature = Reflect.apply(real.signSign, this, arguments);
  const hash = signHashes.get(this);
  const host = currentHost();
  if (hash === undefined || host === undefined) return signature;
  signHashes.delete(this);
  const ecdsa = ecdsaKeyOf(privateKeyOf(privateKey));
  if (ecdsa === undefined) return signature;
  const digest = hash.digest();
  const ours = ecdsaSignature(host, ecdsa!, digest, wantsP1363(privateKey));
  return typeof signature === 'string' ? ours.toString(outputEncoding as BufferEncoding) : ours;
}

// ---- Web Crypto ----------------------------------------------------------------------------------

function algorithmName(algorithm: unknown): string | undefined {
  const name = typeof algorithm === 'string' ? algorithm : isPlainOptions(algorithm) ? algorithm.name : undefined;
  return typeof name === 'string' ? name.toUpperCase() : undefined;
}

/** WebCrypto's hash names (SHA-256) as node:crypto's (sha256). */
function nodeHashName(hash: unknown): string | undefined {
  const name = algorithmName(hash);
  return name === undefined ? undefined : name.replace('-', '').toLowerCase();
}

function copyBufferSource(data: unknown): Buffer | undefined {
  if (types.isAnyArrayBuffer(data)) return Buffer.from(new Uint8Array(data).slice());
  if (ArrayBuffer.isView(data)) return Buffer.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice());
  return undefined;
}

function simSubtleSign(this: unknown, algorithm: unknown, key: unknown, data: unknown): unknown {
  const result = Reflect.apply(real.subtleSign, this, arguments) as Promise<ArrayBuffer>;
  const host = currentHost();
  if (host === undefined || algorithmName(algorithm) !== 'ECDSA' || !isPlainOptions(algorithm)) return result;
  // The data as it is at the call, as WebCrypto copies it.
  const bytes = copyBufferSource(data);
  const hash = nodeHashName(algorithm.hash);
  return result.then((signature) => {
    const ecdsa = ecdsaKeyOf(privateKeyOf(key));
    const digest = ecdsa === undefined || bytes === undefined ? undefined : digestOf(hash, bytes);
    if (digest === undefined) return signature;
    const ours = ecdsaSignature(host, ecdsa!, digest, true);
    return ours.buffer.slice(ours.byteOffset, ours.byteOffset + ours.byteLength);
  });
}

interface CryptoKeyLike {
  algorithm: Record<string, unknown>;
  extractable: boolean;
  usages: string[];
  type: string;
}

/** WebCrypto algorithm names of asymmetric keys: what node:crypto makes for each. */
function planWebPair(algorithm: Record<string, unknown>): ((host: Host) => Pair) | undefined {
  const name = String(algorithm.name);
  switch (name) {
    case 'Ed25519':
    case 'X25519':
    case 'Ed448':
    case 'X448':
      return (host) => okpPair(host, name.toLowerCase());
    case 'ECDSA':
    case 'ECDH': {
      const curve = CURVES.get(String(algorithm.namedCurve));
      return curve === undefined || curve.jwk === 'secp256k1' ? undefined : (host) => ecPair(host, curve);
    }
    case 'RSASSA-PKCS1-v1_5':
    case 'RSA-PSS':
    case 'RSA-OAEP': {
      const modulusLength = algorithm.modulusLength as number;
      const exponent = toBigInt(algorithm.publicExponent as Uint8Array);
      if (modulusLength < RSA_VALIDATION_BITS || modulusLength > RSA_MAX_BITS || exponent > 0xffff_ffffn || exponent % 2n === 0n) return undefined;
      return (host) => rsaPair(host, modulusLength, Number(exponent));
    }
    default:
      return undefined;
  }
}

/** The algorithm of a generated key, as importKey takes it (RSA's modulus and exponent dropped). */
function importAlgorithm(algorithm: Record<string, unknown>): Record<string, unknown> {
  const { modulusLength: _m, publicExponent: _e, ...rest } = algorithm;
  return rest;
}

/**
 * Gives `ours` the algorithm's members of `generated`. Node 20 and 22 keep a generated key's
 * algorithm as the program gave it (a Buffer publicExponent stays a Buffer), in an own symbol
 * property (neither writable nor configurable, but the object in it is an ordinary one); an
 * imported key's is rebuilt from the key. Node 24 keeps it in native slots and clones it into a
 * Uint8Array either way.
 */
function adoptAlgorithm(ours: object, generated: object): void {
  const slot = Object.getOwnPropertySymbols(generated).find((symbol) => symbol.description === 'kAlgorithm');
  if (slot === undefined) return;
  const mine = (ours as Record<symbol, unknown>)[slot];
  const theirs = (generated as Record<symbol, unknown>)[slot];
  if (!isPlainOptions(mine) || !isPlainOptions(theirs) || Object.isFrozen(mine)) return;
  for (const key of Object.keys(theirs)) mine[key] = theirs[key];
}

function simSubtleGenerateKey(this: unknown, algorithm: unknown, extractable: unknown, usages: unknown): unknown {
  const result = Reflect.apply(real.subtleGenerateKey, this, arguments) as Promise<unknown>;
  const host = currentHost();
  if (host === undefined) return result;
  const subtle = this;
  const importKey = (...args: unknown[]) => Reflect.apply(real.subtleImportKey, subtle, args) as Promise<unknown>;
  return result.then(async (generated) => {
    if (isPlainOptions(generated) && 'privateKey' in generated) {
      const privateKey = generated.privateKey as CryptoKeyLike;
      const publicKey = generated.publicKey as CryptoKeyLike;
      const make = planWebPair(privateKey.algorithm);
      if (make === undefined) return generated;
      const pair = make(host);
      const alg = importAlgorithm(privateKey.algorithm);
      const pkcs8 = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
      const spki = pair.publicKey.export({ format: 'der', type: 'spki' });
      const ours = {
        publicKey: await importKey('spki', spki, alg, publicKey.extractable, publicKey.usages),
        privateKey: (await importKey('pkcs8', pkcs8, alg, privateKey.extractable, privateKey.usages)) as object,
      };
      cryptoKeyMaterial.set(ours.privateKey, pair.privateKey);
      adoptAlgorithm(ours.publicKey as object, publicKey);
      adoptAlgorithm(ours.privateKey, privateKey);
      return ours;
    }
    const key = generated as CryptoKeyLike;
    const bits = key.algorithm.length;
    if (key.type !== 'secret' || typeof bits !== 'number' || bits % 8 !== 0) return generated;
    const ours = (await importKey('raw', drawBytes(host, bits / 8), importAlgorithm(key.algorithm), key.extractable, key.usages)) as object;
    adoptAlgorithm(ours, key);
    return ours;
  });
}

/** importKey: Node's, then a private ECDSA key's material kept for signing with it (pkcs8, jwk). */
function simSubtleImportKey(this: unknown, format: unknown, keyData: unknown): unknown {
  const result = Reflect.apply(real.subtleImportKey, this, arguments) as Promise<unknown>;
  if (currentHost() === undefined || (format !== 'pkcs8' && format !== 'jwk')) return result;
  let material: KeyObject | undefined;
  try {
    material =
      format === 'jwk'
        ? cryptoModule.createPrivateKey({ key: keyData as any, format: 'jwk' })
        : cryptoModule.createPrivateKey({ key: copyBufferSource(keyData)!, format: 'der', type: 'pkcs8' });
  } catch {
    return result; // a public JWK, or data Node rejects: its own promise says so
  }
  if (material.asymmetricKeyType !== 'ec') return result;
  return result.then((key) => {
    if (isCryptoKey(key) && key.type === 'private') cryptoKeyMaterial.set(key, material!);
    return key;
  });
}

// ---- install -------------------------------------------------------------------------------------

export const cryptoKeysShim: Shim = {
  name: 'crypto-keys',
  install(patches: PatchSet) {
    real = captureReal();
    const mod = cryptoModule as unknown as Record<string, Fn>;
    patches.replace(mod, 'generateKeyPairSync', mirrorFunction(simGenerateKeyPairSync, real.generateKeyPairSync));
    patches.replace(mod, 'generateKeyPair', mirrorFunction(simGenerateKeyPair, real.generateKeyPair));
    patches.replace(mod, 'generateKeySync', mirrorFunction(simGenerateKeySync, real.generateKeySync));
    patches.replace(mod, 'generateKey', mirrorFunction(simGenerateKey, real.generateKey));
    patches.replace(mod, 'sign', mirrorFunction(simSign, real.sign));
    patches.replace(mod, 'createSign', mirrorFunction(simCreateSign, real.createSign));
    const signProto = (cryptoModule.Sign as unknown as { prototype: Record<string, Fn> }).prototype;
    patches.replace(signProto, 'update', mirrorFunction(simSignUpdate as Fn, real.signUpdate));
    patches.replace(signProto, 'sign', mirrorFunction(simSignSign as Fn, real.signSign));
    const ecdhProto = (cryptoModule.ECDH as unknown as { prototype: Record<string, Fn> }).prototype;
    patches.replace(ecdhProto, 'generateKeys', mirrorFunction(simEcdhGenerateKeys, real.ecdhGenerateKeys));
    const subtleProto = Object.getPrototypeOf(cryptoModule.webcrypto.subtle) as Record<string, Fn>;
    patches.replace(subtleProto, 'generateKey', mirrorFunction(simSubtleGenerateKey, real.subtleGenerateKey));
    patches.replace(subtleProto, 'sign', mirrorFunction(simSubtleSign, real.subtleSign));
    patches.replace(subtleProto, 'importKey', mirrorFunction(simSubtleImportKey, real.subtleImportKey));
  },
};
