/**
 * The implementation of shims/crypto/keys.ts: loaded at the first call of a patched key
 * generator (runtime/lazy-module.ts), not at start-up. What it does is described there.
 */
import cryptoModule, { type KeyObject } from 'node:crypto';
import { currentHost, type Host } from '../context.js';
import {
  base64url,
  bitLength,
  type CryptoKeyLike,
  CURVES,
  type Curve,
  basePointTimes,
  drawBytes,
  drawScalar,
  type Fn,
  gcd,
  isPlainOptions,
  modInverse,
  nodeCrypto,
  rememberKeyMaterial,
  toBigInt,
} from './material.js';
import { real } from './keys-real.js';

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

/**
 * The odd primes below 2000, for sieving candidates before OpenSSL's primality test. Sieved at
 * the first RSA key, not at load: the sieve took 2-6 ms of every start (docs/benchmarks.md,
 * figure 12).
 */
let smallPrimes: number[] | undefined;
function oddPrimesBelow2000(): number[] {
  if (smallPrimes !== undefined) return smallPrimes;
  const primes: number[] = [];
  for (let p = 3; p < 2000; p += 2) if (primes.every((q) => p % q !== 0)) primes.push(p);
  smallPrimes = primes;
  return primes;
}

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
    const SMALL_PRIMES = oddPrimesBelow2000();
    const residues = SMALL_PRIMES.map((p) => Number(start % BigInt(p)));
    for (let delta = 0; delta < 1 << 20; delta += 2) {
      let composite = false;
      // Candidates have at least 256 bits: far above the sieve's primes, so a multiple is composite.
      for (let i = 0; i < SMALL_PRIMES.length; i++) {
        const p = SMALL_PRIMES[i]!;
        if ((residues[i]! + delta) % p === 0) {
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

/** The smallest modulus OpenSSL generates, used to let Node validate an RSA request cheaply. */
const RSA_VALIDATION_BITS = 512;
/** Larger requests are left to OpenSSL: drawing their primes here would take minutes. */
const RSA_MAX_BITS = 16_384;

/**
 * The plan for a program's request, or undefined when OpenSSL keeps it (so do requests whose
 * options throw when read: Node's own call then throws its way).
 */
function planPair(type: unknown, options: unknown): PairPlan | undefined {
  try {
    return planPairOf(type, options);
  } catch {
    return undefined;
  }
}

function planPairOf(type: unknown, options: unknown): PairPlan | undefined {
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
      // The program's options (inherited ones too) but for the modulus.
      nodeOptions: Object.create(options, { modulusLength: { value: RSA_VALIDATION_BITS, enumerable: true } }),
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

// ---- node:crypto key generation ---------------------------------------------------------------

export function simGenerateKeyPairSync(this: unknown, type: unknown, options: unknown): unknown {
  const host = currentHost();
  const plan = host === undefined ? undefined : planPair(type, options);
  if (plan === undefined) return Reflect.apply(real.generateKeyPairSync, this, arguments);
  Reflect.apply(real.generateKeyPairSync, this, [type, plan.nodeOptions]);
  const [publicKey, privateKey] = encodePair(plan.make(host!), options);
  return { publicKey, privateKey };
}

export function simGenerateKeyPair(this: unknown, type: unknown, options: unknown, callback: unknown): unknown {
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

export function simGenerateKeySync(this: unknown, type: unknown, options: unknown): unknown {
  const host = currentHost();
  const key = Reflect.apply(real.generateKeySync, this, arguments);
  return host === undefined || !isSecretType(type) ? key : secretLike(host, key);
}

export function simGenerateKey(this: unknown, type: unknown, options: unknown, callback: unknown): unknown {
  const host = currentHost();
  if (host === undefined || typeof callback !== 'function' || !isSecretType(type)) {
    return Reflect.apply(real.generateKey, this, arguments);
  }
  const deliver = function (this: unknown, error: unknown, key: unknown) {
    // Node's own arguments: an error comes alone (`callback(err)`), not with an undefined key.
    if (error) return Reflect.apply(callback as Fn, this, arguments);
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
export function simEcdhGenerateKeys(this: unknown, encoding?: unknown, format?: unknown): unknown {
  const result = Reflect.apply(real.ecdhGenerateKeys, this, arguments);
  const host = currentHost();
  if (host === undefined) return result;
  const fieldBytes = ((Reflect.apply(nodeCrypto.ecdhGetPublicKey, this, []) as Buffer).length - 1) / 2;
  for (let attempt = 0; ; attempt++) {
    const bytes = drawBytes(host, fieldBytes);
    bytes[0]! &= 0xff >> Math.min(8, attempt);
    try {
      Reflect.apply(nodeCrypto.ecdhSetPrivateKey, this, [bytes]);
      break;
    } catch (error) {
      if (attempt >= 64) throw error;
    }
  }
  return Reflect.apply(nodeCrypto.ecdhGetPublicKey, this, [encoding, format]);
}

// ---- Diffie-Hellman -------------------------------------------------------------------------------

/**
 * The private key lengths OpenSSL draws for the MODP groups it knows by their prime (RFC 3526's
 * exponent sizes), also for a `createDiffieHellman` of the same prime. Other primes get keys two
 * bits shorter than the prime.
 */
const MODP_PRIVATE_BITS: ReadonlyArray<[string, number]> = [
  ['modp5', 200],
  ['modp14', 225],
  ['modp15', 275],
  ['modp16', 325],
  ['modp17', 375],
  ['modp18', 400],
];
let modpPrivateBits: Map<string, number> | undefined;

function dhPrivateBits(prime: Buffer): number {
  modpPrivateBits ??= new Map(
    MODP_PRIVATE_BITS.map(([group, bits]) => [(real.getDiffieHellman(group) as { getPrime(e: string): string }).getPrime('hex'), bits]),
  );
  return modpPrivateBits.get(prime.toString('hex')) ?? bitLength(toBigInt(prime)) - 2;
}

/** The native handle of a DiffieHellman or DiffieHellmanGroup (a group has no setPrivateKey of its own). */
function dhHandle(dh: object): { setPrivateKey(key: Buffer): void } | undefined {
  const slot = Object.getOwnPropertySymbols(dh).find((symbol) => symbol.description === 'kHandle');
  const handle = slot === undefined ? undefined : (dh as Record<symbol, unknown>)[slot];
  return typeof (handle as { setPrivateKey?: unknown } | undefined)?.setPrivateKey === 'function'
    ? (handle as { setPrivateKey(key: Buffer): void })
    : undefined;
}

/**
 * DiffieHellman#generateKeys: Node's (validation, errors such as a modulus too small, encodings),
 * then, when the object had no private key before (Node keeps one it has), a drawn private key
 * in its place and Node's again, which keeps it and computes the public key.
 */
export function dhGenerateKeysFrom(original: Fn): Fn {
  return function generateKeys(this: unknown, encoding?: unknown): unknown {
    const host = currentHost();
    if (host === undefined) return Reflect.apply(original, this, arguments);
    let hadPrivateKey = true;
    try {
      Reflect.apply(real.dhGetPrivateKey, this, []);
    } catch {
      hadPrivateKey = false;
    }
    const result = Reflect.apply(original, this, arguments);
    if (hadPrivateKey) return result;
    const handle = dhHandle(this as object);
    const bits = dhPrivateBits(Reflect.apply(real.dhGetPrime, this, []) as Buffer);
    if (handle === undefined || bits < 8) return result;
    const bytes = drawBytes(host, Math.ceil(bits / 8));
    bytes[0]! &= 0xff >> (bytes.length * 8 - bits);
    bytes[0]! |= 0x80 >> (bytes.length * 8 - bits);
    handle.setPrivateKey(bytes);
    return Reflect.apply(original, this, arguments);
  };
}

// ---- Web Crypto ----------------------------------------------------------------------------------

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
  // In theirs' order too (JSON.stringify and util.inspect show it).
  for (const key of Object.keys(mine)) delete mine[key];
  for (const key of Object.keys(theirs)) mine[key] = theirs[key];
}

/** Bytes of a secret key WebCrypto generated: its algorithm's length, or ChaCha20-Poly1305's 256 bits. */
function secretBytes(algorithm: Record<string, unknown>): number | undefined {
  if (typeof algorithm.length === 'number') return Math.ceil(algorithm.length / 8);
  return String(algorithm.name).toUpperCase() === 'CHACHA20-POLY1305' ? 32 : undefined;
}

export function simSubtleGenerateKey(this: unknown, algorithm: unknown, extractable: unknown, usages: unknown): unknown {
  const result = Reflect.apply(real.subtleGenerateKey, this, arguments) as Promise<unknown>;
  const host = currentHost();
  if (host === undefined) return result;
  const subtle = this;
  const importKey = (...args: unknown[]) => Reflect.apply(real.subtleImportKey, subtle, args) as Promise<unknown>;
  // Any replacement that fails (an algorithm importKey cannot take back) leaves Node's key.
  return result.then((generated) => seededKey(host, generated, importKey).catch(() => generated));
}

async function seededKey(host: Host, generated: unknown, importKey: (...args: unknown[]) => Promise<unknown>): Promise<unknown> {
  if (isPlainOptions(generated) && 'privateKey' in generated) {
    const privateKey = generated.privateKey as CryptoKeyLike;
    const publicKey = generated.publicKey as CryptoKeyLike;
    const make = planWebPair(privateKey.algorithm);
    if (make === undefined) return generated;
    const pair = make(host);
    const alg = importAlgorithm(privateKey.algorithm);
    const pkcs8 = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
    const spki = pair.publicKey.export({ format: 'der', type: 'spki' });
    const ourPublic = (await importKey('spki', spki, alg, publicKey.extractable, publicKey.usages)) as object;
    const ourPrivate = (await importKey('pkcs8', pkcs8, alg, privateKey.extractable, privateKey.usages)) as object;
    rememberKeyMaterial(ourPrivate, pair.privateKey);
    rememberKeyMaterial(ourPublic, pair.publicKey);
    adoptAlgorithm(ourPublic, publicKey);
    adoptAlgorithm(ourPrivate, privateKey);
    // The pair object as Node makes it (a null prototype on Node 20 and 22).
    const ours = Object.create(Object.getPrototypeOf(generated)) as Record<string, unknown>;
    ours.publicKey = ourPublic;
    ours.privateKey = ourPrivate;
    return ours;
  }
  const key = generated as CryptoKeyLike;
  const length = key.type === 'secret' ? secretBytes(key.algorithm) : undefined;
  if (length === undefined) return generated;
  const bytes = drawBytes(host, length);
  const alg = importAlgorithm(key.algorithm);
  // Node 24 takes some secret keys (AES-OCB, KMAC, ChaCha20-Poly1305) only as 'raw-secret'.
  const ours = (await importKey('raw', bytes, alg, key.extractable, key.usages).catch(() =>
    importKey('raw-secret', bytes, alg, key.extractable, key.usages),
  )) as object;
  adoptAlgorithm(ours, key);
  return ours;
}
