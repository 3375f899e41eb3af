/**
 * What keys.ts and signatures.ts share: the host's `openssl` stream, big-integer
 * arithmetic, the four curves with known orders, the raw RSA operations, MGF1, and how a call's
 * key argument (a KeyObject, a PEM, an options object, a CryptoKey) is turned into a KeyObject
 * without a warning of the simulation's own.
 */
import cryptoModule, { type KeyObject } from 'node:crypto';
import { types } from 'node:util';
import type { RandomStream } from '../../runtime/random/stream.js';
import { NODE_MAJOR, type Host } from '../context.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Fn = (this: unknown, ...args: any[]) => any;

/** Node's functions this module (and keys.ts) uses, taken when it loads (before any shim is installed). */
const ecdhProto = (cryptoModule.ECDH as unknown as { prototype: Record<string, Fn> }).prototype;
export const nodeCrypto = {
  createECDH: cryptoModule.createECDH,
  ecdhSetPrivateKey: ecdhProto.setPrivateKey!,
  ecdhGetPublicKey: ecdhProto.getPublicKey!,
  publicEncrypt: cryptoModule.publicEncrypt,
  privateEncrypt: cryptoModule.privateEncrypt,
};

// ---- the stream ------------------------------------------------------------------------------

const streams = new WeakMap<Host, RandomStream>();

/** `length` bytes of the host's `openssl` stream. */
export function drawBytes(host: Host, length: number): Buffer {
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

export function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`);
}

/** Big-endian bytes of `n`, left-padded to `length` when given (minimal otherwise). */
export function toBytes(n: bigint, length?: number): Buffer {
  let hex = n.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  const minimal = Buffer.from(hex, 'hex');
  if (length === undefined || minimal.length >= length) return minimal;
  return Buffer.concat([Buffer.alloc(length - minimal.length), minimal]);
}

export function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

export function modInverse(a: bigint, m: bigint): bigint {
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

export function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

export function base64url(n: bigint, length?: number): string {
  return toBytes(n, length).toString('base64url');
}

/** A uniform integer in [1, n - 1] from the stream (rejection sampling on n's bit length). */
export function drawScalar(host: Host, n: bigint): bigint {
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

export interface Curve {
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
export const CURVES = new Map<string, Curve>();
for (const curve of CURVE_LIST) {
  CURVES.set(curve.jwk, curve);
  CURVES.set(curve.openssl, curve);
}

/** k·G on `curve`, uncompressed (04 || x || y), computed by OpenSSL (ECDH#setPrivateKey sets it). */
export function basePointTimes(curve: Curve, k: bigint): Buffer {
  const ecdh = nodeCrypto.createECDH(curve.openssl);
  Reflect.apply(nodeCrypto.ecdhSetPrivateKey, ecdh, [toBytes(k, Math.ceil(bitLength(curve.n) / 8))]);
  return Reflect.apply(nodeCrypto.ecdhGetPublicKey, ecdh, []) as Buffer;
}

// ---- RSA -----------------------------------------------------------------------------------------

const { RSA_NO_PADDING } = cryptoModule.constants;

/** m^d mod n of a k-byte block: the RSA private operation, without padding. */
export function rsaPrivateRaw(key: KeyObject, block: Buffer): Buffer {
  return nodeCrypto.privateEncrypt({ key, padding: RSA_NO_PADDING }, block);
}

/** m^e mod n of a k-byte block: the RSA public operation, without padding. */
export function rsaPublicRaw(key: KeyObject, block: Buffer): Buffer {
  return nodeCrypto.publicEncrypt({ key, padding: RSA_NO_PADDING }, block);
}

/** Bytes of an RSA key's modulus. */
export function modulusBytes(key: KeyObject): number {
  return Math.ceil(key.asymmetricKeyDetails!.modulusLength! / 8);
}

/** RFC 8017's MGF1 with `hash`. */
export function mgf1(hash: string, seed: Buffer, length: number): Buffer {
  const blocks: Buffer[] = [];
  let made = 0;
  for (let counter = 0; made < length; counter++) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    const block = hashOf(hash, seed, c);
    blocks.push(block);
    made += block.length;
  }
  return Buffer.concat(blocks).subarray(0, length);
}

export function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

export function hashOf(hash: string, ...parts: Buffer[]): Buffer {
  const h = cryptoModule.createHash(hash);
  for (const part of parts) h.update(part);
  return h.digest();
}

// ---- keys of a call --------------------------------------------------------------------------------

export function isPlainOptions(options: unknown): options is Record<string, unknown> {
  return typeof options === 'object' && options !== null && !Array.isArray(options);
}

export interface CryptoKeyLike {
  algorithm: Record<string, unknown>;
  extractable: boolean;
  usages: string[];
  type: string;
}

export function isCryptoKey(value: unknown): value is CryptoKeyLike {
  return (types as unknown as { isCryptoKey(v: unknown): boolean }).isCryptoKey(value);
}

/** KeyObjects of the CryptoKeys hosts generated (Node 24 gives no other way to a non-extractable one). */
const cryptoKeyMaterial = new WeakMap<object, KeyObject>();

export function rememberKeyMaterial(cryptoKey: object, keyObject: KeyObject): void {
  cryptoKeyMaterial.set(cryptoKey, keyObject);
}

/** Node 24 warns (DEP0204, once) when KeyObject.from is given a non-extractable CryptoKey; 20 and 22 do not. */
const KEY_OBJECT_FROM_WARNS = NODE_MAJOR >= 24;

/**
 * The KeyObject of a CryptoKey: one a host generated, else `KeyObject.from` unless that would
 * warn (a non-extractable key on Node 24: a warning the program did not cause, and one Node gives
 * only once, so the program's own would be lost). Such a key is left to OpenSSL.
 */
export function keyObjectOfCryptoKey(key: CryptoKeyLike): KeyObject | undefined {
  const known = cryptoKeyMaterial.get(key);
  if (known !== undefined || (KEY_OBJECT_FROM_WARNS && !key.extractable)) return known;
  return (cryptoModule.KeyObject as unknown as { from(key: unknown): KeyObject }).from(key);
}

function keyObjectIn(key: unknown): KeyObject | 'cryptokey' | undefined {
  const of = (value: unknown): KeyObject | 'cryptokey' | undefined => {
    if (value instanceof cryptoModule.KeyObject) return value;
    return isCryptoKey(value) ? (keyObjectOfCryptoKey(value) ?? 'cryptokey') : undefined;
  };
  return of(key) ?? (isPlainOptions(key) ? of(key.key) : undefined);
}

/** The private KeyObject of a call's key argument, when it can be told (Node has accepted it). */
export function privateKeyOf(key: unknown): KeyObject | undefined {
  const direct = keyObjectIn(key);
  if (direct === 'cryptokey') return undefined;
  if (direct !== undefined) return direct.type === 'private' ? direct : undefined;
  try {
    return cryptoModule.createPrivateKey(key as any);
  } catch {
    return undefined;
  }
}

/** The public KeyObject of a call's key argument (a private key's public half), when it can be told. */
export function publicKeyOf(key: unknown): KeyObject | undefined {
  const direct = keyObjectIn(key);
  if (direct === 'cryptokey') return undefined;
  try {
    if (direct !== undefined) return direct.type === 'private' ? cryptoModule.createPublicKey(direct) : direct.type === 'public' ? direct : undefined;
    return cryptoModule.createPublicKey(key as any);
  } catch {
    return undefined;
  }
}

/** The bytes of a BufferSource (an ArrayBuffer or any view), without copying them. */
export function viewOf(data: unknown): Buffer | undefined {
  if (types.isAnyArrayBuffer(data)) return Buffer.from(data);
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}

/** A copy of a BufferSource as it is now (WebCrypto copies its arguments at the call). */
export function copyBufferSource(data: unknown): Buffer | undefined {
  const view = viewOf(data);
  return view === undefined ? undefined : Buffer.from(view);
}

/** An ArrayBuffer holding exactly `bytes`. */
export function arrayBufferOf(bytes: Buffer): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** WebCrypto algorithm names, upper-cased for comparison (as WebCrypto compares them). */
export function algorithmName(algorithm: unknown): string | undefined {
  const name = typeof algorithm === 'string' ? algorithm : isPlainOptions(algorithm) ? algorithm.name : undefined;
  return typeof name === 'string' ? name.toUpperCase() : undefined;
}

/** WebCrypto's hash names as node:crypto's: SHA-256 as sha256, SHA3-256 as sha3-256. */
export function nodeHashName(hash: unknown): string | undefined {
  const name = algorithmName(hash);
  if (name === undefined) return undefined;
  return (name.startsWith('SHA3-') ? name : name.replace(/^SHA-/, 'SHA')).toLowerCase();
}

/**
 * A digest of `data` (a BufferSource, as Node accepts it) with node:crypto's `hash`, or
 * undefined for names createHash does not know and for extendable-output hashes (SHAKE: a
 * createHash of one without outputLength warns, DEP0198, a warning of the simulation's own).
 */
export function digestOf(hash: string, data: unknown): Buffer | undefined {
  if (/^shake/i.test(hash)) return undefined;
  const bytes = typeof data === 'string' ? Buffer.from(data) : viewOf(data);
  if (bytes === undefined) return undefined;
  try {
    return cryptoModule.createHash(hash).update(bytes).digest();
  } catch {
    return undefined; // a name only OpenSSL's signing knows: OpenSSL keeps the result
  }
}

/** `make()`, or undefined if it throws: a replacement that fails leaves Node's result in place. */
export function attempt<T>(make: () => T | undefined): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}
