/**
 * Deterministic randomness for node:crypto (randomBytes, randomFill, randomFillSync, randomInt,
 * randomUUID, randomUUIDv7 where it exists, the deprecated prng/pseudoRandomBytes/rng aliases)
 * and for the Web Crypto object (globalThis.crypto === require('crypto').webcrypto:
 * getRandomValues and randomUUID).
 *
 * Inside a host every byte comes from the host's `crypto` stream; outside every host the
 * functions found when dst-runtime loaded are called, untouched. Argument validation, error
 * classes, codes and messages follow Node's lib/internal/crypto/random.js (20, 22, 24) and
 * lib/internal/crypto/webcrypto.js, in the same order, so the first error a bad call meets is
 * the one Node would throw.
 *
 * Asynchronous forms run on Node's threadpool in real Node; here each one is a simulated 'io'
 * event at the current virtual time, run in the async context of its call (a
 * RANDOMBYTESREQUEST resource, like Node's RandomBytesJob), so completions are ordered by the
 * seed instead of by threads. Bytes are written when the event runs, not at the call, as on
 * the threadpool.
 */
import { AsyncResource } from 'node:async_hooks';
import { kMaxLength } from 'node:buffer';
import { CRYPTO_BUILTINS, nodeCrypto } from './node-crypto.js';
import { deprecate, types } from 'node:util';
import type { RandomStream } from '../../runtime/random/stream.js';
import type { World, WorldHost } from '../../runtime/world.js';
import { currentHost, NODE_MAJOR, type Host } from '../context.js';
import {
  codedTypeError,
  domException,
  invalidArgType,
  invalidThis,
  outOfRange,
  validateBoolean,
  validateFunction,
  validateNumber,
  validateObject,
} from '../node-errors.js';
import { mirrorSignature, PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';
import { originals } from '../../runtime/originals.js';
import { activeDomain, type DomainLike, runEnteredIn } from '../../runtime/driver/outside-domain.js';

/** Node's process object, taken at load: a program may replace the global one. */
const nodeProcess: NodeJS.Process = originals.process;

type AnyFunction = (this: unknown, ...args: any[]) => any;
type Buf = ArrayBuffer | SharedArrayBuffer | ArrayBufferView;

/** The functions in place when the shim was first installed: calls from outside hosts go here. */
interface RealCrypto {
  randomBytes: AnyFunction;
  randomFill: AnyFunction;
  randomFillSync: AnyFunction;
  randomInt: AnyFunction;
  randomUUID: AnyFunction;
  randomUUIDv7: AnyFunction | undefined;
  /** The one Crypto instance: globalThis.crypto and require('crypto').webcrypto. */
  webcrypto: object;
  getRandomValues: AnyFunction;
  webRandomUUID: AnyFunction;
}

let real: RealCrypto | undefined;

function captureReal(): RealCrypto {
  if (real !== undefined) return real;
  const crypto = nodeCrypto();
  const mod = crypto as unknown as Record<string, AnyFunction | undefined>;
  // Reading `webcrypto` loads Node's lazy internal webcrypto module; the instance is unique.
  const webcrypto = crypto.webcrypto as unknown as Record<string, AnyFunction>;
  real = {
    randomBytes: mod.randomBytes!,
    randomFill: mod.randomFill!,
    randomFillSync: mod.randomFillSync!,
    randomInt: mod.randomInt!,
    randomUUID: mod.randomUUID!,
    randomUUIDv7: typeof mod.randomUUIDv7 === 'function' ? mod.randomUUIDv7 : undefined,
    webcrypto,
    getRandomValues: webcrypto.getRandomValues,
    webRandomUUID: webcrypto.randomUUID,
  };
  return real;
}

// ---- validation shared by the node:crypto functions (internal/crypto/random.js) ------------

/** Node's kMaxPossibleLength: the largest byte count one call may fill. */
const MAX_POSSIBLE_LENGTH = Math.min(kMaxLength, 2 ** 31 - 1);
/** Node's RAND_MAX for randomInt: the largest integer read from 6 bytes. */
const RAND_MAX = 0xffff_ffff_ffff;
/** Node's randomInt cache: 1024 draws of 6 bytes. */
const INT_CACHE_BYTES = 6 * 1024;
const GET_RANDOM_VALUES_BYTES_MAX = 65_536;
const EMPTY_OPTIONS: Record<string, unknown> = Object.freeze(Object.create(null));

function assertOffset(offset: unknown, elementSize: number, length: number, hideFrom: Function): number {
  validateNumber(offset, 'offset', hideFrom);
  const offsetBytes = offset * elementSize;
  const maxLength = Math.min(length, MAX_POSSIBLE_LENGTH);
  if (Number.isNaN(offsetBytes) || offsetBytes > maxLength || offsetBytes < 0) {
    throw outOfRange('offset', `>= 0 && <= ${maxLength}`, offsetBytes, hideFrom);
  }
  return offsetBytes >>> 0;
}

function assertSize(size: unknown, elementSize: number, offset: number, length: number, hideFrom: Function): number {
  validateNumber(size, 'size', hideFrom);
  const sizeBytes = size * elementSize;
  if (Number.isNaN(sizeBytes) || sizeBytes > MAX_POSSIBLE_LENGTH || sizeBytes < 0) {
    throw outOfRange('size', `>= 0 && <= ${MAX_POSSIBLE_LENGTH}`, sizeBytes, hideFrom);
  }
  if (sizeBytes + offset > length) {
    throw outOfRange('size + offset', `<= ${length}`, sizeBytes + offset, hideFrom);
  }
  return sizeBytes >>> 0;
}

function assertBuf(buf: unknown, hideFrom: Function): asserts buf is Buf {
  if (!types.isAnyArrayBuffer(buf) && !ArrayBuffer.isView(buf)) {
    throw invalidArgType('buf', 'an instance of ArrayBuffer or ArrayBufferView', buf, hideFrom);
  }
}

/** The bytes [offsetBytes, offsetBytes + sizeBytes) of whatever memory `buf` covers. */
function bytesOf(buf: Buf, offsetBytes: number, sizeBytes: number): Uint8Array {
  if (ArrayBuffer.isView(buf)) return new Uint8Array(buf.buffer, buf.byteOffset + offsetBytes, sizeBytes);
  return new Uint8Array(buf, offsetBytes, sizeBytes);
}

// ---- asynchronous jobs ----------------------------------------------------------------------

/**
 * Stands in for Node's RandomBytesJob: the `this` of an async callback (Node calls it with the
 * job as receiver) and the unit of one simulated 'io' event.
 */
class RandomBytesJob {
  ondone: (error?: unknown) => void;
  /** The node:domain of the call, entered around the callback as Node's domain hooks do. */
  readonly domain: DomainLike | undefined;
  readonly #host: Host;
  readonly #bytes: Uint8Array;
  readonly #scope: AsyncResource;

  constructor(host: Host, bytes: Uint8Array, ondone: (this: RandomBytesJob, error?: unknown) => void) {
    this.#host = host;
    this.#bytes = bytes;
    // Created in the caller's async context (which holds its host), like Node's AsyncWrap.
    this.#scope = new AsyncResource('RANDOMBYTESREQUEST', { requireManualDestroy: true });
    this.ondone = ondone;
    this.domain = activeDomain();
  }

  schedule(): void {
    // The thread pool's answer is taken by a poll phase, never between two immediates.
    (this.#host.world as World).scheduleAfterEvent(this.#host as WorldHost, runJob, this, true, this.#scope);
  }

  complete(): void {
    try {
      // The threadpool writes the bytes when the job runs, not when it is queued.
      this.#host.crypto.fill(this.#bytes);
      this.ondone(undefined);
    } finally {
      this.#scope.emitDestroy();
    }
  }
}

function runJob(this: RandomBytesJob): void {
  const domain = this.domain;
  if (domain === undefined) this.complete();
  else runEnteredIn(domain, () => this.complete());
}

/** Node's onJobDone: the callback runs with the job as `this`. */
function onJobDone(this: RandomBytesJob, result: unknown, callback: Function, error: unknown): void {
  if (error) {
    callback.call(this, error);
    return;
  }
  callback.call(this, null, result);
}

function startJob(host: Host, bytes: Uint8Array, result: unknown, callback: Function): void {
  const job: RandomBytesJob = new RandomBytesJob(host, bytes, function (this: RandomBytesJob, error?: unknown) {
    onJobDone.call(this, result, callback, error);
  });
  job.schedule();
}

// ---- randomBytes / randomFillSync / randomFill ----------------------------------------------

function simRandomBytes(this: unknown, size: unknown, callback?: unknown): unknown {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(captureReal().randomBytes, this, arguments);
  const sizeBytes = assertSize(size, 1, 0, Infinity, simRandomBytes);
  if (callback !== undefined) validateFunction(callback, 'callback', simRandomBytes);
  // Node allocates exactly `size` bytes of its own (never from the pool): byteOffset 0.
  const buf = Buffer.allocUnsafeSlow(sizeBytes);
  if (callback === undefined) {
    host.crypto.fill(buf);
    return buf;
  }
  if (sizeBytes === 0) {
    // Node's randomFill calls back synchronously when there is nothing to fill.
    callback(null, buf);
    return undefined;
  }
  startJob(host, buf, buf, callback);
  return undefined;
}

function simRandomFillSync(this: unknown, buf: unknown, offset: unknown = 0, size?: unknown): unknown {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(captureReal().randomFillSync, this, arguments);
  assertBuf(buf, simRandomFillSync);
  const elementSize = (buf as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT || 1;
  const offsetBytes = assertOffset(offset, elementSize, buf.byteLength, simRandomFillSync);
  const sizeBytes =
    size === undefined
      ? buf.byteLength - offsetBytes
      : assertSize(size, elementSize, offsetBytes, buf.byteLength, simRandomFillSync);
  if (sizeBytes === 0) return buf;
  host.crypto.fill(bytesOf(buf, offsetBytes, sizeBytes));
  return buf;
}

function simRandomFill(this: unknown, buf: unknown, offset?: unknown, size?: unknown, callback?: unknown): void {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(captureReal().randomFill, this, arguments);
  assertBuf(buf, simRandomFill);
  const elementSize = (buf as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT || 1;
  const length = (buf as { length?: number }).length;
  if (typeof offset === 'function') {
    callback = offset;
    offset = 0;
    // A length in elements here; assertSize turns it into bytes.
    size = length;
  } else if (typeof size === 'function') {
    callback = size;
    // Node 20 and 22 use buf.length alone, which is undefined for an ArrayBuffer or a
    // DataView: the size becomes NaN and is rejected. Node 24 falls back to byteLength.
    // The arithmetic is done on the raw offset, as in Node (it may throw for a symbol).
    size = ((NODE_MAJOR >= 24 ? (length ?? buf.byteLength) : length) as number) - (offset as number);
  } else {
    validateFunction(callback, 'callback', simRandomFill);
  }
  const offsetBytes = assertOffset(offset, elementSize, buf.byteLength, simRandomFill);
  const sizeBytes =
    size === undefined
      ? buf.byteLength - offsetBytes
      : assertSize(size, elementSize, offsetBytes, buf.byteLength, simRandomFill);
  if (sizeBytes === 0) {
    (callback as Function)(null, buf);
    return;
  }
  startJob(host, bytesOf(buf, offsetBytes, sizeBytes), buf, callback as Function);
}

// ---- randomInt -----------------------------------------------------------------------------

interface IntTask {
  min: number;
  max: number;
  callback: Function;
}

/**
 * Node's randomInt reads 6-byte integers from a 6 KiB cache of random bytes. A synchronous call
 * refills an empty cache at once; an asynchronous call is answered on process.nextTick while
 * the cache lasts and otherwise waits for an asynchronous refill (a threadpool job; here an
 * 'io' event). The cache belongs to the host's crypto stream, so each host incarnation starts
 * with an empty cache, like a fresh process.
 */
interface IntCache {
  bytes: Buffer;
  offset: number;
  refilling: boolean;
  pending: IntTask[];
}

const intCaches = new WeakMap<RandomStream, IntCache>();

function intCacheOf(stream: RandomStream): IntCache {
  let cache = intCaches.get(stream);
  if (cache === undefined) {
    const bytes = Buffer.allocUnsafeSlow(INT_CACHE_BYTES);
    cache = { bytes, offset: bytes.length, refilling: false, pending: [] };
    intCaches.set(stream, cache);
  }
  return cache;
}

/** A validated randomInt call on `host`: returns the integer, or undefined when called back. */
function drawInt(host: Host, min: number, max: number, callback: Function | undefined): number | undefined {
  const stream = host.crypto;
  const cache = intCacheOf(stream);
  const range = max - min;
  // x % range is unbiased only for x drawn below a multiple of range.
  const randLimit = RAND_MAX - (RAND_MAX % range);
  const isSync = callback === undefined;
  while (isSync || cache.offset < cache.bytes.length) {
    if (cache.offset === cache.bytes.length) {
      stream.fill(cache.bytes);
      cache.offset = 0;
    }
    const x = cache.bytes.readUIntBE(cache.offset, 6);
    cache.offset += 6;
    if (x < randLimit) {
      const n = (x % range) + min;
      if (isSync) return n;
      // Node passes `undefined` (not null) as the error here.
      nodeProcess.nextTick(callback, undefined, n);
      return undefined;
    }
  }
  cache.pending.push({ min, max, callback: callback! });
  refillIntCache(host, stream, cache);
  return undefined;
}

function refillIntCache(host: Host, stream: RandomStream, cache: IntCache): void {
  if (cache.refilling) return;
  cache.refilling = true;
  startJob(host, cache.bytes, cache.bytes, () => {
    cache.refilling = false;
    cache.offset = 0;
    // Every waiting call tries again, in the order it was made.
    for (const task of cache.pending.splice(0)) {
      // After a restart the host has a new stream; tasks of the old incarnation are dropped.
      if (host.crypto !== stream) return;
      drawInt(host, task.min, task.max, task.callback);
    }
  });
}

function simRandomInt(this: unknown, min: unknown, max?: unknown, callback?: unknown): unknown {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(captureReal().randomInt, this, arguments);
  // randomInt(max), randomInt(max, callback)
  const minNotSpecified = typeof max === 'undefined' || typeof max === 'function';
  if (minNotSpecified) {
    callback = max;
    max = min;
    min = 0;
  }
  const isSync = typeof callback === 'undefined';
  if (!isSync) validateFunction(callback, 'callback', simRandomInt);
  if (!Number.isSafeInteger(min)) throw invalidArgType('min', 'a safe integer', min, simRandomInt);
  if (!Number.isSafeInteger(max)) throw invalidArgType('max', 'a safe integer', max, simRandomInt);
  const minInt = min as number;
  const maxInt = max as number;
  if (maxInt <= minInt) {
    throw outOfRange('max', `greater than the value of "min" (${minInt})`, maxInt, simRandomInt);
  }
  const range = maxInt - minInt;
  if (!(range <= RAND_MAX)) {
    throw outOfRange(`max${minNotSpecified ? '' : ' - min'}`, `<= ${RAND_MAX}`, range, simRandomInt);
  }
  return drawInt(host, minInt, maxInt, isSync ? undefined : (callback as Function));
}

// ---- UUIDs ---------------------------------------------------------------------------------

const HEX_BYTES: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** xxxxxxxx-xxxx-Vxxx-Nxxx-xxxxxxxxxxxx with Node's version and variant bits. */
function serializeUuid(b: Uint8Array, version: number): string {
  const h = HEX_BYTES;
  return (
    h[b[0]!]! + h[b[1]!]! + h[b[2]!]! + h[b[3]!]! + '-' +
    h[b[4]!]! + h[b[5]!]! + '-' +
    h[(b[6]! & 0x0f) | version]! + h[b[7]!]! + '-' +
    h[(b[8]! & 0x3f) | 0x80]! + h[b[9]!]! + '-' +
    h[b[10]!]! + h[b[11]!]! + h[b[12]!]! + h[b[13]!]! + h[b[14]!]! + h[b[15]!]!
  );
}

/** A version 4 UUID from the host's `crypto` stream (crypto.randomUUID, URL.createObjectURL). */
export function uuidV4(host: Host): string {
  const bytes = new Uint8Array(16);
  host.crypto.fill(bytes);
  return serializeUuid(bytes, 0x40);
}

/** RFC 9562 version 7: 48 bits of the host's Date.now(), then random bits. */
function uuidV7(host: Host): string {
  const bytes = new Uint8Array(16);
  host.crypto.fill(bytes.subarray(6));
  // Node reads the primordial (real) Date.now(); the simulation reads the host's wall clock.
  const nowMs = Math.floor(host.dateNowMs());
  const msb = nowMs / 2 ** 32;
  // Stores into a Uint8Array truncate modulo 256, exactly like Node's writeTimestamp.
  bytes[0] = msb >>> 8;
  bytes[1] = msb;
  bytes[2] = nowMs >>> 24;
  bytes[3] = nowMs >>> 16;
  bytes[4] = nowMs >>> 8;
  bytes[5] = nowMs;
  return serializeUuid(bytes, 0x70);
}

function validateUuidOptions(options: unknown, hideFrom: Function): void {
  if (options !== undefined) validateObject(options, 'options', hideFrom);
  const { disableEntropyCache = false } = (options || EMPTY_OPTIONS) as { disableEntropyCache?: unknown };
  // There is no entropy cache to disable: every UUID draws its own bytes from the stream.
  validateBoolean(disableEntropyCache, 'options.disableEntropyCache', hideFrom);
}

function simRandomUUID(this: unknown, options?: unknown): string {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(captureReal().randomUUID, this, arguments);
  validateUuidOptions(options, simRandomUUID);
  return uuidV4(host);
}

function simRandomUUIDv7(this: unknown, options?: unknown): string {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(captureReal().randomUUIDv7!, this, arguments);
  validateUuidOptions(options, simRandomUUIDv7);
  return uuidV7(host);
}

// ---- Web Crypto ----------------------------------------------------------------------------

const typedArrayTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)!
  .get as (this: unknown) => string | undefined;

/** Float16Array is refused from Node 22 on (Node 20 predates it). */
const FLOAT_TAGS = new Set(NODE_MAJOR >= 22 ? ['Float16Array', 'Float32Array', 'Float64Array'] : ['Float32Array', 'Float64Array']);

function simGetRandomValues(this: unknown, array: unknown): unknown {
  const host = currentHost();
  const web = captureReal();
  if (host === undefined) return Reflect.apply(web.getRandomValues, this, arguments);
  if (this !== web.webcrypto) throw invalidThis('Crypto', simGetRandomValues);
  if (arguments.length < 1) {
    throw codedTypeError(
      `Failed to execute 'getRandomValues' on 'Crypto': 1 argument required, but only ${arguments.length} present.`,
      'ERR_MISSING_ARGS',
      simGetRandomValues,
    );
  }
  const tag = typedArrayTag.call(array);
  if (tag === undefined || FLOAT_TAGS.has(tag)) {
    // A DOMException rather than ERR_INVALID_ARG_TYPE, as the Web Crypto API specifies.
    throw domException('The data argument must be an integer-type TypedArray', 'TypeMismatchError', simGetRandomValues);
  }
  const view = array as ArrayBufferView;
  if (view.byteLength > GET_RANDOM_VALUES_BYTES_MAX) {
    throw domException('The requested length exceeds 65,536 bytes', 'QuotaExceededError', simGetRandomValues);
  }
  if (view.byteLength > 0) host.crypto.fill(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
  return array;
}

function simWebRandomUUID(this: unknown): string {
  const host = currentHost();
  const web = captureReal();
  if (host === undefined) return Reflect.apply(web.webRandomUUID, this, arguments);
  if (this !== web.webcrypto) throw invalidThis('Crypto', simWebRandomUUID);
  return uuidV4(host);
}

// ---- install -------------------------------------------------------------------------------

/** The object on `obj`'s prototype chain that owns `key` (Crypto methods live on the prototype). */
function ownerOf(obj: object, key: PropertyKey): object {
  for (let o: object | null = obj; o !== null; o = Object.getPrototypeOf(o)) {
    if (Object.prototype.hasOwnProperty.call(o, key)) return o;
  }
  throw new Error(`Failed to install the crypto shim: Crypto has no ${String(key)} method`);
}

const ALIASES = ['prng', 'pseudoRandomBytes', 'rng'] as const;

export const cryptoShim: Shim = {
  name: 'crypto',
  builtins: CRYPTO_BUILTINS,
  install(patches: PatchSet) {
    const r = captureReal();
    mirrorSignature(simRandomBytes, r.randomBytes);
    mirrorSignature(simRandomFill, r.randomFill);
    mirrorSignature(simRandomFillSync, r.randomFillSync);
    mirrorSignature(simRandomInt, r.randomInt);
    mirrorSignature(simRandomUUID, r.randomUUID);
    mirrorSignature(simGetRandomValues, r.getRandomValues);
    mirrorSignature(simWebRandomUUID, r.webRandomUUID);

    const mod = nodeCrypto() as unknown as Record<string, unknown>;
    patches.replace(mod, 'randomBytes', simRandomBytes);
    patches.replace(mod, 'randomFill', simRandomFill);
    patches.replace(mod, 'randomFillSync', simRandomFillSync);
    patches.replace(mod, 'randomInt', simRandomInt);
    patches.replace(mod, 'randomUUID', simRandomUUID);
    if (r.randomUUIDv7 !== undefined) {
      mirrorSignature(simRandomUUIDv7, r.randomUUIDv7);
      patches.replace(mod, 'randomUUIDv7', simRandomUUIDv7);
    }

    // The deprecated randomBytes aliases are lazy getters that turn into data properties on
    // first read, wrapped in util.deprecate under --pending-deprecation. Read the getter on a
    // scratch object so the module's own property keeps its state until restore.
    for (const key of ALIASES) {
      const descriptor = Object.getOwnPropertyDescriptor(mod, key);
      if (descriptor === undefined) continue;
      const value = 'value' in descriptor ? descriptor.value : descriptor.get?.call(Object.create(null));
      const replacement =
        value === r.randomBytes ? simRandomBytes : deprecate(simRandomBytes, `crypto.${key} is deprecated.`, 'DEP0115');
      patches.replace(mod, key, replacement);
    }

    // require('crypto').getRandomValues is a non-configurable accessor whose function calls
    // webcrypto.crypto.getRandomValues(array) on every call, and the web object's methods live
    // on Crypto.prototype: patching the prototype reaches globalThis.crypto, webcrypto and
    // node:crypto's getRandomValues alike (and their ESM named imports).
    patches.replace(ownerOf(r.webcrypto, 'getRandomValues'), 'getRandomValues', simGetRandomValues);
    patches.replace(ownerOf(r.webcrypto, 'randomUUID'), 'randomUUID', simWebRandomUUID);
  },
};

/**
 * An explorer's worker: the simulated random functions stay on node:crypto and the web Crypto
 * prototype for good, put there before anything of the process is taken. Taking it reads every
 * global (process-state.ts), which loads Node's lazy undici, and undici's FormData takes
 * node:crypto's randomInt as it loads (Node 24): it kept Node's own, so in a worker a form's
 * boundary came from the real generator and drew nothing from the seed's stream, where its
 * replay drew it from the seed. Outside a host they are Node's own functions; a seed's shims
 * put the same ones in place and back.
 */
export function keepCryptoShim(): void {
  cryptoShim.install(new PatchSet());
}
