/**
 * The implementation of shims/crypto/signatures.ts: loaded at the first call of a patched
 * signing or encryption function (runtime/lazy-module.ts), not at start-up. What it does is
 * described there.
 */
import cryptoModule, { type KeyObject } from 'node:crypto';
import { currentHost, type Host } from '../context.js';
import {
  algorithmName,
  arrayBufferOf,
  attempt,
  bitLength,
  copyBufferSource,
  type Curve,
  CURVES,
  basePointTimes,
  digestOf,
  drawBytes,
  drawScalar,
  type Fn,
  hashOf,
  isPlainOptions,
  mgf1,
  mod,
  modInverse,
  modulusBytes,
  nodeHashName,
  privateKeyOf,
  publicKeyOf,
  rsaPrivateRaw,
  rsaPublicRaw,
  toBigInt,
  toBytes,
  viewOf,
  xor,
} from './material.js';
import { real } from './signatures-real.js';

const { RSA_PKCS1_PSS_PADDING, RSA_PSS_SALTLEN_DIGEST, RSA_PSS_SALTLEN_MAX_SIGN, RSA_PKCS1_OAEP_PADDING, RSA_PKCS1_PADDING } =
  cryptoModule.constants;
/** OpenSSL's RSA_PSS_SALTLEN_MAX and RSA_PSS_SALTLEN_AUTO_DIGEST_MAX, which Node passes through but does not name. */
const RSA_PSS_SALTLEN_MAX = -3;
const RSA_PSS_SALTLEN_AUTO_DIGEST_MAX = -4;

// ---- ECDSA ---------------------------------------------------------------------------------------

interface EcdsaKey {
  curve: Curve;
  d: bigint;
}

function ecdsaKeyOf(key: KeyObject): EcdsaKey | undefined {
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

// ---- RSA-PSS (RFC 8017 9.1.1) ----------------------------------------------------------------------

/**
 * An RSA-PSS signature of `digest` (made with `hash`, MGF1 with the same hash, as OpenSSL does
 * for an `rsa` key) with a drawn salt of `saltLength` bytes, or of OpenSSL's special values: -1
 * the digest's length, -2 (the default when signing) and -3 the most the key allows, -4 the
 * digest's length or less if the key allows less (OpenSSL 3.1 on: Node 22, 24).
 */
function pssSignature(host: Host, key: KeyObject, hash: string, digest: Buffer, saltLength: unknown): Buffer | undefined {
  const modBits = key.asymmetricKeyDetails!.modulusLength!;
  const emBits = modBits - 1;
  const emLength = Math.ceil(emBits / 8);
  const hLength = digest.length;
  let sLength: number;
  const most = emLength - hLength - 2;
  if (saltLength === undefined || saltLength === RSA_PSS_SALTLEN_MAX_SIGN || saltLength === RSA_PSS_SALTLEN_MAX) sLength = most;
  else if (saltLength === RSA_PSS_SALTLEN_DIGEST) sLength = hLength;
  else if (saltLength === RSA_PSS_SALTLEN_AUTO_DIGEST_MAX) sLength = Math.min(hLength, most);
  else if (typeof saltLength === 'number' && Number.isInteger(saltLength) && saltLength >= 0) sLength = saltLength;
  else return undefined;
  if (emLength < hLength + sLength + 2) return undefined;
  const salt = drawBytes(host, sLength);
  const h = hashOf(hash, Buffer.alloc(8), digest, salt);
  const db = Buffer.concat([Buffer.alloc(emLength - sLength - hLength - 2), Buffer.from([1]), salt]);
  const maskedDb = xor(db, mgf1(hash, h, emLength - hLength - 1));
  maskedDb[0]! &= 0xff >> (8 * emLength - emBits);
  const em = Buffer.concat([maskedDb, h, Buffer.from([0xbc])]);
  const k = modulusBytes(key);
  return rsaPrivateRaw(key, k > emLength ? Buffer.concat([Buffer.alloc(k - emLength), em]) : em);
}

// ---- RSA encryption (RFC 8017 7.1.1, 7.2.1) -----------------------------------------------------------

function oaepCiphertext(host: Host, key: KeyObject, hash: string, label: Buffer, message: Buffer): Buffer | undefined {
  const k = modulusBytes(key);
  const lHash = hashOf(hash, label);
  const hLength = lHash.length;
  const psLength = k - message.length - 2 * hLength - 2;
  if (psLength < 0) return undefined;
  const db = Buffer.concat([lHash, Buffer.alloc(psLength), Buffer.from([1]), message]);
  const seed = drawBytes(host, hLength);
  const maskedDb = xor(db, mgf1(hash, seed, k - hLength - 1));
  const maskedSeed = xor(seed, mgf1(hash, maskedDb, hLength));
  return rsaPublicRaw(key, Buffer.concat([Buffer.from([0]), maskedSeed, maskedDb]));
}

function pkcs1Ciphertext(host: Host, key: KeyObject, message: Buffer): Buffer | undefined {
  const k = modulusBytes(key);
  const psLength = k - message.length - 3;
  if (psLength < 8) return undefined;
  const ps = drawBytes(host, psLength);
  // The padding bytes are nonzero: a zero is drawn again.
  for (let i = 0; i < ps.length; i++) while (ps[i] === 0) ps[i] = drawBytes(host, 1)[0]!;
  return rsaPublicRaw(key, Buffer.concat([Buffer.from([0, 2]), ps, Buffer.from([0]), message]));
}

// ---- node:crypto signing -----------------------------------------------------------------------------

/**
 * What a sign call of a host makes from the seed instead of Node's signature, prepared at the
 * call (the key and the digest of the data as it is now); undefined when Node's stays (an
 * Ed25519 signature is deterministic already, a DSA one is left to OpenSSL). `options` are the
 * signing options as node:crypto takes them beside the key (`dsaEncoding`, `padding`,
 * `saltLength`).
 */
function seededSigner(
  key: KeyObject | undefined,
  options: Record<string, unknown>,
  hash: string,
  digest: () => Buffer | undefined,
): ((host: Host) => Buffer | undefined) | undefined {
  if (key?.asymmetricKeyType === 'ec') {
    const ecdsa = ecdsaKeyOf(key);
    const z = ecdsa === undefined ? undefined : digest();
    if (z === undefined) return undefined;
    return (host) => ecdsaSignature(host, ecdsa!, z, options.dsaEncoding === 'ieee-p1363');
  }
  if (key?.asymmetricKeyType === 'rsa' && options.padding === RSA_PKCS1_PSS_PADDING) {
    const m = digest();
    if (m === undefined) return undefined;
    return (host) => pssSignature(host, key, hash, m, options.saltLength);
  }
  return undefined;
}

/** seededSigner for node:crypto's key argument (a key, or an options object holding one). */
function signerForKeyArgument(keyArgument: unknown, hash: string, digest: () => Buffer | undefined): ((host: Host) => Buffer | undefined) | undefined {
  const options = isPlainOptions(keyArgument) && !(keyArgument instanceof cryptoModule.KeyObject) ? keyArgument : {};
  return attempt(() => seededSigner(privateKeyOf(keyArgument), options, hash, digest));
}

/** crypto.sign's digest name: OpenSSL's default for EC and RSA keys is SHA-256. */
function signHash(algorithm: unknown): string {
  return algorithm === null || algorithm === undefined ? 'sha256' : String(algorithm);
}

export function simSign(this: unknown, algorithm: unknown, data: unknown, key: unknown, callback: unknown): unknown {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(real.sign, this, arguments);
  // Called after Node's call: it has validated algorithm (a string, null or undefined), data and key.
  const signer = () => {
    const hash = signHash(algorithm);
    return signerForKeyArgument(key, hash, () => digestOf(hash, data));
  };
  if (typeof callback !== 'function') {
    const signature = Reflect.apply(real.sign, this, arguments);
    return attempt(() => signer()?.(host)) ?? signature;
  }
  let sign: ((host: Host) => Buffer | undefined) | undefined;
  const deliver = function (this: unknown, error: unknown, signature: unknown) {
    const ours = error ? undefined : attempt(() => sign?.(host));
    // Node's own arguments when not replaced: an error comes alone (`callback(err)`), not with an undefined.
    return Reflect.apply(callback as Fn, this, ours === undefined ? arguments : [null, ours]);
  };
  const result = Reflect.apply(real.sign, this, [algorithm, data, key, deliver]);
  // The digest is of the data as it is now, as the job reads it.
  sign = signer();
  return result;
}

/**
 * A second hash of what each Sign a host made was given, for signing it again (none when
 * node:crypto has no hash of the Sign's name, e.g. 'ecdsa-with-SHA256': OpenSSL keeps those).
 */
const signHashes = new WeakMap<object, { name: string; hash: ReturnType<typeof cryptoModule.createHash> }>();

/** Starts the second hash of a Sign a host made (Node has validated `algorithm`: a string). */
function shadowSign(sign: object, algorithm: string): void {
  // A SHAKE hash without outputLength warns (DEP0198): not the simulation's to cause.
  if (currentHost() === undefined || /^shake/i.test(algorithm)) return;
  try {
    signHashes.set(sign, { name: algorithm, hash: cryptoModule.createHash(algorithm) });
  } catch {
    // Not a name createHash knows.
  }
}

export function simCreateSign(this: unknown, algorithm: unknown, options: unknown): unknown {
  const sign = Reflect.apply(real.createSign, this, arguments) as object;
  shadowSign(sign, algorithm as string);
  return sign;
}

/** `crypto.Sign` itself, with or without `new` (createSign does not go through the export). */
export function signConstructor(RealSign: Fn): Fn {
  const Sign = function (this: unknown, algorithm: unknown, options: unknown) {
    const sign = new.target === undefined ? Reflect.apply(RealSign, this, arguments) : Reflect.construct(RealSign, arguments, new.target);
    shadowSign(sign as object, algorithm as string);
    return sign;
  } as unknown as Fn;
  Object.defineProperty(Sign, 'prototype', { value: RealSign.prototype, writable: false });
  return Sign;
}

export function simSignUpdate(this: object, data: unknown, encoding: unknown): unknown {
  const result = Reflect.apply(real.signUpdate, this, arguments);
  const hash = signHashes.get(this)?.hash;
  if (hash !== undefined) {
    // Native code decodes a string in an encoding it does not know as UTF-8.
    const known = typeof encoding === 'string' && Buffer.isEncoding(encoding) ? encoding : 'utf8';
    if (typeof data === 'string') hash.update(data, known as BufferEncoding);
    else hash.update(data as NodeJS.ArrayBufferView);
  }
  return result;
}

export function simSignSign(this: object, privateKey: unknown, outputEncoding: unknown): unknown {
  const signature = Reflect.apply(real.signSign, this, arguments);
  const shadow = signHashes.get(this);
  const host = currentHost();
  if (shadow === undefined || host === undefined) return signature;
  signHashes.delete(this);
  const ours = attempt(() => signerForKeyArgument(privateKey, shadow.name, () => shadow.hash.digest())?.(host));
  if (ours === undefined) return signature;
  return typeof signature === 'string' ? ours.toString(outputEncoding as BufferEncoding) : ours;
}

// ---- node:crypto encryption ----------------------------------------------------------------------

export function simPublicEncrypt(this: unknown, key: unknown, buffer: unknown): unknown {
  const ciphertext = Reflect.apply(real.publicEncrypt, this, arguments);
  const host = currentHost();
  if (host === undefined) return ciphertext;
  // Node reads these off the key argument whatever it is (a string's are undefined).
  const options = (key ?? {}) as Record<string, unknown>;
  const padding = options.padding || RSA_PKCS1_OAEP_PADDING;
  const publicKey = publicKeyOf(key);
  if (publicKey?.asymmetricKeyType !== 'rsa') return ciphertext;
  const encoding = typeof options.encoding === 'string' && Buffer.isEncoding(options.encoding) ? options.encoding : 'utf8';
  const message = typeof buffer === 'string' ? Buffer.from(buffer, encoding) : viewOf(buffer)!;
  const ours = attempt(() => {
    if (padding === RSA_PKCS1_PADDING) return pkcs1Ciphertext(host, publicKey, message);
    if (padding !== RSA_PKCS1_OAEP_PADDING) return undefined;
    const label =
      options.oaepLabel === undefined ? Buffer.alloc(0) : typeof options.oaepLabel === 'string' ? Buffer.from(options.oaepLabel, encoding) : viewOf(options.oaepLabel)!;
    return oaepCiphertext(host, publicKey, (options.oaepHash as string | undefined) ?? 'sha1', label, message);
  });
  return ours ?? ciphertext;
}

// ---- Web Crypto ----------------------------------------------------------------------------------

interface KeyWithAlgorithm {
  algorithm?: { hash?: unknown };
}

export function simSubtleSign(this: unknown, algorithm: unknown, key: unknown, data: unknown): unknown {
  const result = Reflect.apply(real.subtleSign, this, arguments) as Promise<ArrayBuffer>;
  const host = currentHost();
  const name = algorithmName(algorithm);
  if (host === undefined || (name !== 'ECDSA' && name !== 'RSA-PSS')) return result;
  // The data and parameters as they are at the call, as WebCrypto copies them.
  const bytes = copyBufferSource(data);
  const params = isPlainOptions(algorithm) ? { ...algorithm } : {};
  return result.then((signature) => {
    const ours = attempt(() => {
      // ECDSA names its hash in the call, RSA-PSS in the key's algorithm.
      const hash = nodeHashName(name === 'ECDSA' ? params.hash : (key as KeyWithAlgorithm).algorithm?.hash);
      if (hash === undefined || bytes === undefined) return undefined;
      const options = name === 'ECDSA' ? { dsaEncoding: 'ieee-p1363' } : { padding: RSA_PKCS1_PSS_PADDING, saltLength: params.saltLength };
      return seededSigner(privateKeyOf(key), options, hash, () => digestOf(hash, bytes))?.(host);
    });
    return ours === undefined ? signature : arrayBufferOf(ours);
  });
}

export function simSubtleEncrypt(this: unknown, algorithm: unknown, key: unknown, data: unknown): unknown {
  const result = Reflect.apply(real.subtleEncrypt, this, arguments) as Promise<ArrayBuffer>;
  const host = currentHost();
  if (host === undefined || algorithmName(algorithm) !== 'RSA-OAEP') return result;
  const message = copyBufferSource(data);
  const label = isPlainOptions(algorithm) && algorithm.label !== undefined ? copyBufferSource(algorithm.label) : Buffer.alloc(0);
  return result.then((ciphertext) => {
    const ours = attempt(() => {
      const publicKey = publicKeyOf(key);
      const hash = nodeHashName((key as KeyWithAlgorithm).algorithm?.hash);
      if (publicKey?.asymmetricKeyType !== 'rsa' || hash === undefined || message === undefined || label === undefined) return undefined;
      return oaepCiphertext(host, publicKey, hash, label, message);
    });
    return ours === undefined ? ciphertext : arrayBufferOf(ours);
  });
}
