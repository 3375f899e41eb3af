import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import crypto, {
  getRandomValues,
  randomBytes,
  randomFill,
  randomFillSync,
  randomInt,
  randomUUID,
  webcrypto,
} from 'node:crypto';
import { createRequire } from 'node:module';
import { inspect, promisify } from 'node:util';
import { Sim } from 'dst-runtime';

const require = createRequire(import.meta.url);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const noop = () => {};

// Captured before any simulation: the real functions.
const CryptoProto = Object.getPrototypeOf(globalThis.crypto);
const REAL = {
  randomBytes: crypto.randomBytes,
  randomFill: crypto.randomFill,
  randomFillSync: crypto.randomFillSync,
  randomInt: crypto.randomInt,
  randomUUID: crypto.randomUUID,
  randomUUIDv7: crypto.randomUUIDv7,
  webGetRandomValues: CryptoProto.getRandomValues,
  webRandomUUID: CryptoProto.randomUUID,
};

/** Runs `main` in each named client of a fresh simulation; returns what each returned. */
async function simulate(seed, main, names = ['c']) {
  const out = {};
  const sim = new Sim({ seed });
  for (const name of names) {
    sim.client(name, async () => {
      out[name] = await main(name);
    });
  }
  const result = await sim.run();
  return { out, result };
}

/** Every way a host can draw randomness, in a fixed order. */
async function drawAll() {
  const r = {};
  r.bytes = crypto.randomBytes(16).toString('hex');
  r.namedBytes = randomBytes(16).toString('hex');
  r.fillSync = Array.from(crypto.randomFillSync(new Uint32Array(4)));
  r.fillSyncView = Buffer.from(randomFillSync(new DataView(new ArrayBuffer(8))).buffer).toString('hex');
  r.ints = [crypto.randomInt(10), randomInt(-5, 5), crypto.randomInt(2 ** 48 - 1), randomInt(-(2 ** 40), 2 ** 40)];
  r.uuid = crypto.randomUUID();
  r.namedUuid = randomUUID({ disableEntropyCache: true });
  r.webUuid = globalThis.crypto.randomUUID();
  r.webValues = Array.from(globalThis.crypto.getRandomValues(new Uint16Array(4)));
  r.nodeValues = Array.from(crypto.getRandomValues(new Int32Array(2)));
  r.pseudo = crypto.pseudoRandomBytes(4).toString('hex');
  r.asyncBytes = (await promisify(crypto.randomBytes)(8)).toString('hex');
  r.asyncFill = Array.from(await promisify(randomFill)(new Uint8Array(6), 1, 4));
  r.asyncInt = await new Promise((resolve) => randomInt(1000, (err, n) => resolve([err, n])));
  r.asyncInt2 = await new Promise((resolve) => crypto.randomInt(5, 50, (err, n) => resolve([err, n])));
  if (typeof crypto.randomUUIDv7 === 'function') r.v7 = crypto.randomUUIDv7();
  return r;
}

const BUILTIN_PROTOTYPES = new Set(
  [Error, TypeError, RangeError, SyntaxError, ReferenceError, DOMException].map((C) => C.prototype),
);

/** The first standard error prototype on the chain (Node's own NodeError class sits above it). */
function builtinProto(error) {
  for (let p = Object.getPrototypeOf(error); p !== null; p = Object.getPrototypeOf(p)) {
    if (BUILTIN_PROTOTYPES.has(p)) return p;
  }
  return null;
}

function describeError(error) {
  return {
    builtin: builtinProto(error),
    constructor: error.constructor,
    name: error.name,
    code: error.code,
    message: error.message,
    text: String(error),
    header: String(error.stack).split('\n')[0],
    keys: Object.keys(error),
    // What console.log shows, without the stack frames.
    inspected: inspect(error).split('\n').filter((line) => !/^\s+at /.test(line)).join('\n'),
  };
}

/** What a call does: returns normally, or throws this error. */
function outcome(thunk) {
  try {
    thunk();
    return { threw: false };
  } catch (error) {
    return { threw: true, ...describeError(error) };
  }
}

const u8 = (n = 4) => new Uint8Array(n);
const ERROR_CASES = [
  // randomBytes: size, then callback
  ['randomBytes("1")', () => crypto.randomBytes('1')],
  ['randomBytes(-1)', () => crypto.randomBytes(-1)],
  ['randomBytes(NaN)', () => crypto.randomBytes(NaN)],
  ['randomBytes(2**31)', () => crypto.randomBytes(2 ** 31)],
  ['randomBytes(2**32 + 1)', () => crypto.randomBytes(2 ** 32 + 1)],
  ['randomBytes()', () => crypto.randomBytes()],
  ['randomBytes(1n)', () => crypto.randomBytes(1n)],
  ['randomBytes(Symbol())', () => crypto.randomBytes(Symbol('s'))],
  ['randomBytes(4, "cb")', () => crypto.randomBytes(4, 'cb')],
  ['randomBytes(4, null)', () => crypto.randomBytes(4, null)],
  ['randomBytes(-1, "cb")', () => crypto.randomBytes(-1, 'cb')],
  ['pseudoRandomBytes(-1)', () => crypto.pseudoRandomBytes(-1)],
  // randomFillSync: buf, offset, size
  ['randomFillSync("x")', () => crypto.randomFillSync('x')],
  ['randomFillSync([1, 2])', () => crypto.randomFillSync([1, 2])],
  ['randomFillSync(null)', () => crypto.randomFillSync(null)],
  ['randomFillSync(u8, -1)', () => crypto.randomFillSync(u8(), -1)],
  ['randomFillSync(u8, 5)', () => crypto.randomFillSync(u8(), 5)],
  ['randomFillSync(u8, "a")', () => crypto.randomFillSync(u8(), 'a')],
  ['randomFillSync(u8, NaN)', () => crypto.randomFillSync(u8(), NaN)],
  ['randomFillSync(u8, null)', () => crypto.randomFillSync(u8(), null)],
  ['randomFillSync(u8, 2**33)', () => crypto.randomFillSync(u8(), 2 ** 33)],
  ['randomFillSync(u8, 0, 5)', () => crypto.randomFillSync(u8(), 0, 5)],
  ['randomFillSync(u8, 2, 3)', () => crypto.randomFillSync(u8(), 2, 3)],
  ['randomFillSync(u8, 0, -1)', () => crypto.randomFillSync(u8(), 0, -1)],
  ['randomFillSync(u8, 0, NaN)', () => crypto.randomFillSync(u8(), 0, NaN)],
  ['randomFillSync(u8, 0, "2")', () => crypto.randomFillSync(u8(), 0, '2')],
  ['randomFillSync(u8, 0, 2**31)', () => crypto.randomFillSync(u8(), 0, 2 ** 31)],
  ['randomFillSync(u32, 1, 4)', () => crypto.randomFillSync(new Uint32Array(4), 1, 4)],
  ['randomFillSync(u32, 5)', () => crypto.randomFillSync(new Uint32Array(4), 5)],
  ['randomFillSync(f64, 1, 2)', () => crypto.randomFillSync(new Float64Array(2), 1, 2)],
  ['randomFillSync(DataView, 0, 5)', () => crypto.randomFillSync(new DataView(new ArrayBuffer(4)), 0, 5)],
  ['randomFillSync(ArrayBuffer, 5)', () => crypto.randomFillSync(new ArrayBuffer(4), 5)],
  ['randomFillSync(u8, 1.5, 3)', () => crypto.randomFillSync(u8(), 1.5, 3)],
  // randomFill: buf, callback resolution, offset, size
  ['randomFill(u8)', () => crypto.randomFill(u8())],
  ['randomFill(u8, 0)', () => crypto.randomFill(u8(), 0)],
  ['randomFill(u8, 0, 2)', () => crypto.randomFill(u8(), 0, 2)],
  ['randomFill(u8, 0, 2, "cb")', () => crypto.randomFill(u8(), 0, 2, 'cb')],
  ['randomFill("x", cb)', () => crypto.randomFill('x', noop)],
  ['randomFill(u8, 5, cb)', () => crypto.randomFill(u8(), 5, noop)],
  ['randomFill(u8, "a", cb)', () => crypto.randomFill(u8(), 'a', noop)],
  ['randomFill(u8, -1, 2, cb)', () => crypto.randomFill(u8(), -1, 2, noop)],
  ['randomFill(u8, 0, 5, cb)', () => crypto.randomFill(u8(), 0, 5, noop)],
  ['randomFill(u8, 3, 2, cb)', () => crypto.randomFill(u8(), 3, 2, noop)],
  ['randomFill(u16, 1, 4, cb)', () => crypto.randomFill(new Uint16Array(4), 1, 4, noop)],
  ['randomFill(u8, Symbol(), cb)', () => crypto.randomFill(u8(), Symbol('s'), noop)],
  ['randomFill(u8, 1n, cb)', () => crypto.randomFill(u8(), 1n, noop)],
  // Node 20/22 derive the size from buf.length, undefined for these: NaN. Node 24 works.
  ['randomFill(ArrayBuffer, 0, cb)', () => crypto.randomFill(new ArrayBuffer(8), 0, noop)],
  ['randomFill(DataView, 2, cb)', () => crypto.randomFill(new DataView(new ArrayBuffer(8)), 2, noop)],
  // randomInt: callback, min, max, range
  ['randomInt(1.5)', () => crypto.randomInt(1.5)],
  ['randomInt("1")', () => crypto.randomInt('1')],
  ['randomInt(0)', () => crypto.randomInt(0)],
  ['randomInt(-1)', () => crypto.randomInt(-1)],
  ['randomInt(5, 5)', () => crypto.randomInt(5, 5)],
  ['randomInt(5, 1)', () => crypto.randomInt(5, 1)],
  ['randomInt(2**48)', () => crypto.randomInt(2 ** 48)],
  ['randomInt(0, 2**48)', () => crypto.randomInt(0, 2 ** 48)],
  ['randomInt(-(2**47), 2**47)', () => crypto.randomInt(-(2 ** 47), 2 ** 47)],
  ['randomInt(MAX_SAFE + 1)', () => crypto.randomInt(Number.MAX_SAFE_INTEGER + 1)],
  ['randomInt(1.5, 3)', () => crypto.randomInt(1.5, 3)],
  ['randomInt(NaN)', () => crypto.randomInt(NaN)],
  ['randomInt(Infinity)', () => crypto.randomInt(Infinity)],
  ['randomInt(1n)', () => crypto.randomInt(1n)],
  ['randomInt(1, "cb")', () => crypto.randomInt(1, 'cb')],
  ['randomInt(1, 2, "cb")', () => crypto.randomInt(1, 2, 'cb')],
  ['randomInt(1, 2, null)', () => crypto.randomInt(1, 2, null)],
  ['randomInt(1.5, cb)', () => crypto.randomInt(1.5, noop)],
  ['randomInt(3, 1, cb)', () => crypto.randomInt(3, 1, noop)],
  ['randomInt(1.5, 3, "cb")', () => crypto.randomInt(1.5, 3, 'cb')],
  ['randomInt()', () => crypto.randomInt()],
  // randomUUID: options
  ['randomUUID(null)', () => crypto.randomUUID(null)],
  ['randomUUID(1)', () => crypto.randomUUID(1)],
  ['randomUUID("x")', () => crypto.randomUUID('x')],
  ['randomUUID([])', () => crypto.randomUUID([])],
  ['randomUUID(fn)', () => crypto.randomUUID(noop)],
  ['randomUUID({ disableEntropyCache: 1 })', () => crypto.randomUUID({ disableEntropyCache: 1 })],
  ['randomUUID({ disableEntropyCache: "yes" })', () => crypto.randomUUID({ disableEntropyCache: 'yes' })],
  // getRandomValues through node:crypto and the web object
  ['crypto.getRandomValues(Float32Array)', () => crypto.getRandomValues(new Float32Array(1))],
  ['crypto.getRandomValues(Float64Array)', () => crypto.getRandomValues(new Float64Array(1))],
  ['crypto.getRandomValues([1, 2])', () => crypto.getRandomValues([1, 2])],
  ['crypto.getRandomValues(DataView)', () => crypto.getRandomValues(new DataView(new ArrayBuffer(4)))],
  ['crypto.getRandomValues(ArrayBuffer)', () => crypto.getRandomValues(new ArrayBuffer(4))],
  ['crypto.getRandomValues(Buffer 65537)', () => crypto.getRandomValues(Buffer.alloc(65537))],
  ['crypto.getRandomValues()', () => crypto.getRandomValues()],
  ['globalThis.crypto.getRandomValues(Uint8Array 65537)', () => globalThis.crypto.getRandomValues(u8(65537))],
  ['globalThis.crypto.getRandomValues(Uint32Array 16385)', () => globalThis.crypto.getRandomValues(new Uint32Array(16385))],
  ['globalThis.crypto.getRandomValues(Float32Array 20000)', () => globalThis.crypto.getRandomValues(new Float32Array(20000))],
  ['globalThis.crypto.getRandomValues()', () => globalThis.crypto.getRandomValues()],
  ['globalThis.crypto.getRandomValues(undefined)', () => globalThis.crypto.getRandomValues(undefined)],
  ['globalThis.crypto.getRandomValues("x")', () => globalThis.crypto.getRandomValues('x')],
  ['getRandomValues.call({}, u8)', () => globalThis.crypto.getRandomValues.call({}, u8())],
  ['detached getRandomValues(u8)', () => {
    const { getRandomValues: detached } = globalThis.crypto;
    detached(u8());
  }],
  ['webcrypto.getRandomValues(Float64Array)', () => webcrypto.getRandomValues(new Float64Array(2))],
  ['named getRandomValues(Float32Array)', () => getRandomValues(new Float32Array(2))],
  ['randomUUID.call({}) (web)', () => globalThis.crypto.randomUUID.call({})],
  ['detached randomUUID() (web)', () => {
    const { randomUUID: detached } = globalThis.crypto;
    detached();
  }],
  // Calls that succeed: the simulated ones must not throw either.
  ['randomBytes(0)', () => crypto.randomBytes(0)],
  ['randomBytes(1.5)', () => crypto.randomBytes(1.5)],
  ['randomFillSync(u8, 4)', () => crypto.randomFillSync(u8(), 4)],
  ['randomFillSync(u8, 0, 4)', () => crypto.randomFillSync(u8(), 0, 4)],
  ['randomFill(u8, cb)', () => crypto.randomFill(u8(), noop)],
  ['randomInt(-(2**47), 2**47 - 1)', () => crypto.randomInt(-(2 ** 47), 2 ** 47 - 1)],
  ['randomUUID({})', () => crypto.randomUUID({})],
  ['getRandomValues(Uint8Array 65536)', () => globalThis.crypto.getRandomValues(u8(65536))],
  ['getRandomValues(BigInt64Array)', () => globalThis.crypto.getRandomValues(new BigInt64Array(2))],
  ['getRandomValues(Uint8ClampedArray)', () => globalThis.crypto.getRandomValues(new Uint8ClampedArray(2))],
];
if (typeof globalThis.Float16Array === 'function') {
  ERROR_CASES.push(['getRandomValues(Float16Array)', () => globalThis.crypto.getRandomValues(new globalThis.Float16Array(2))]);
}
if (typeof crypto.randomUUIDv7 === 'function') {
  ERROR_CASES.push(
    ['randomUUIDv7(null)', () => crypto.randomUUIDv7(null)],
    ['randomUUIDv7(1)', () => crypto.randomUUIDv7(1)],
    ['randomUUIDv7({ disableEntropyCache: 0 })', () => crypto.randomUUIDv7({ disableEntropyCache: 0 })],
    ['randomUUIDv7({})', () => crypto.randomUUIDv7({})],
  );
}

function outcomes() {
  return Object.fromEntries(ERROR_CASES.map(([label, thunk]) => [label, outcome(thunk)]));
}

/** Own property descriptors of every object the shim may touch. */
function snapshot() {
  const targets = {
    'node:crypto': crypto,
    'Crypto.prototype': CryptoProto,
    'globalThis.crypto (instance)': globalThis.crypto,
  };
  const result = {};
  for (const [label, target] of Object.entries(targets)) {
    for (const key of Reflect.ownKeys(target)) {
      result[`${label}.${String(key)}`] = Object.getOwnPropertyDescriptor(target, key);
    }
  }
  result['globalThis.crypto'] = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
  return result;
}

function assertSameDescriptors(before, after) {
  assert.deepEqual(Object.keys(after), Object.keys(before));
  for (const key of Object.keys(before)) {
    const a = before[key];
    const b = after[key];
    for (const field of ['value', 'get', 'set', 'writable', 'enumerable', 'configurable']) {
      assert.ok(Object.is(a[field], b[field]), `${key}: ${field} differs after the run`);
    }
  }
}

describe('shims/crypto/random', () => {
  describe('determinism', () => {
    it('draws the same bytes, ints, UUIDs and callbacks for the same seed (seed 7, twice)', async () => {
      const first = await simulate(7, drawAll);
      const second = await simulate(7, drawAll);
      assert.deepEqual(second.out, first.out);
      assert.equal(second.result.fingerprint, first.result.fingerprint);
      // And the values look like what they are.
      const r = first.out.c;
      assert.match(r.bytes, /^[0-9a-f]{32}$/);
      assert.match(r.uuid, UUID_V4);
      assert.match(r.webUuid, UUID_V4);
      assert.equal(r.asyncInt[0], undefined);
      assert.ok(r.asyncInt2[1] >= 5 && r.asyncInt2[1] < 50);
      assert.deepEqual(r.asyncFill.slice(0, 1), [0]);
      assert.deepEqual(r.asyncFill.slice(5), [0]);
    });

    it('draws different values for different seeds (seeds 7 and 8)', async () => {
      const a = (await simulate(7, drawAll)).out.c;
      const b = (await simulate(8, drawAll)).out.c;
      for (const key of ['bytes', 'namedBytes', 'fillSync', 'fillSyncView', 'uuid', 'namedUuid', 'webUuid', 'webValues', 'asyncBytes']) {
        assert.notDeepEqual(a[key], b[key], key);
      }
    });

    it('gives each host its own stream, unaffected by what other hosts draw (seed 9)', async () => {
      const draw = () => crypto.randomBytes(16).toString('hex');
      const alone = await simulate(9, draw, ['a']);
      const busy = await simulate(9, (name) => {
        if (name === 'b') crypto.randomBytes(4096); // b boots first and draws a lot
        return draw();
      }, ['b', 'a']);
      assert.equal(busy.out.a, alone.out.a);
      assert.notEqual(busy.out.b, busy.out.a);
    });

    it('serves node:crypto, its ESM named imports, require() and globalThis.crypto from one stream (seed 11)', async () => {
      const cjs = require('crypto');
      const paths = {
        'crypto.randomBytes': () => crypto.randomBytes(16),
        'named randomBytes': () => randomBytes(16),
        'require randomBytes': () => cjs.randomBytes(16),
        'pseudoRandomBytes': () => crypto.pseudoRandomBytes(16),
        'randomFillSync': () => crypto.randomFillSync(Buffer.alloc(16)),
        'named randomFillSync': () => randomFillSync(new Uint8Array(16)),
        'globalThis.crypto.getRandomValues': () => globalThis.crypto.getRandomValues(new Uint8Array(16)),
        'crypto.getRandomValues': () => crypto.getRandomValues(new Uint8Array(16)),
        'named getRandomValues': () => getRandomValues(new Uint8Array(16)),
        'webcrypto.getRandomValues': () => webcrypto.getRandomValues(new Uint8Array(16)),
        'require webcrypto.getRandomValues': () => cjs.webcrypto.getRandomValues(new Uint8Array(16)),
        'randomBytes callback': () => new Promise((resolve) => crypto.randomBytes(16, (err, buf) => resolve(buf))),
        'randomFill callback': () => new Promise((resolve) => randomFill(new Uint8Array(16), (err, buf) => resolve(buf))),
      };
      const seen = {};
      for (const [label, draw] of Object.entries(paths)) {
        const { out } = await simulate(11, async () => Buffer.from(await draw()).toString('hex'));
        seen[label] = out.c;
      }
      const expected = seen['crypto.randomBytes'];
      for (const [label, hex] of Object.entries(seen)) assert.equal(hex, expected, label);

      const uuids = {};
      for (const [label, make] of Object.entries({
        'crypto.randomUUID': () => crypto.randomUUID(),
        'named randomUUID': () => randomUUID(),
        'globalThis.crypto.randomUUID': () => globalThis.crypto.randomUUID(),
        'webcrypto.randomUUID': () => webcrypto.randomUUID(),
      })) {
        uuids[label] = (await simulate(11, make)).out.c;
      }
      for (const [label, uuid] of Object.entries(uuids)) assert.equal(uuid, uuids['crypto.randomUUID'], label);
    });

    it('swaps the functions that code inside a host sees, including ESM named bindings (seed 1)', async () => {
      const { out } = await simulate(1, () => ({
        named: randomBytes !== REAL.randomBytes && randomInt !== REAL.randomInt && randomFill !== REAL.randomFill,
        module: crypto.randomBytes !== REAL.randomBytes && crypto.randomUUID !== REAL.randomUUID,
        web: globalThis.crypto.getRandomValues !== REAL.webGetRandomValues && webcrypto.randomUUID !== REAL.webRandomUUID,
        pseudoIsRandomBytes: crypto.pseudoRandomBytes === crypto.randomBytes,
        names: [
          crypto.randomBytes, crypto.randomFill, crypto.randomFillSync, crypto.randomInt, crypto.randomUUID,
          globalThis.crypto.getRandomValues, globalThis.crypto.randomUUID,
        ].map((fn) => [fn.name, fn.length]),
      }));
      assert.deepEqual(out.c, {
        named: true,
        module: true,
        web: true,
        pseudoIsRandomBytes: crypto.pseudoRandomBytes === crypto.randomBytes,
        names: [
          REAL.randomBytes, REAL.randomFill, REAL.randomFillSync, REAL.randomInt, REAL.randomUUID,
          REAL.webGetRandomValues, REAL.webRandomUUID,
        ].map((fn) => [fn.name, fn.length]),
      });
    });
  });

  describe('UUIDs', () => {
    it('makes version 4 UUIDs with RFC 4122 variant bits, all distinct (seed 3)', async () => {
      const { out } = await simulate(3, () => {
        const uuids = [];
        for (let i = 0; i < 500; i++) uuids.push(i % 2 ? crypto.randomUUID() : globalThis.crypto.randomUUID());
        return uuids;
      });
      for (const uuid of out.c) assert.match(uuid, UUID_V4);
      assert.equal(new Set(out.c).size, 500);
      // Every hex digit outside the fixed ones shows up: the bits are not stuck.
      const variants = new Set(out.c.map((u) => u[19]));
      assert.deepEqual([...variants].sort(), ['8', '9', 'a', 'b']);
    });

    it('has randomUUIDv7 exactly where Node has it, stamped with the host wall clock (seed 5)', async () => {
      const epochMs = 1_700_000_000_123;
      const sim = new Sim({ seed: 5, epochMs });
      let seen;
      sim.client('c', async () => {
        await new Promise((resolve) => setTimeout(resolve, 1234));
        seen = typeof crypto.randomUUIDv7 === 'function' ? [crypto.randomUUIDv7(), crypto.randomUUIDv7()] : 'absent';
      }, { skewMs: 500 });
      await sim.run();
      if (typeof REAL.randomUUIDv7 !== 'function') {
        assert.equal(seen, 'absent');
        return;
      }
      for (const uuid of seen) {
        assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        assert.equal(parseInt(uuid.replace(/-/g, '').slice(0, 12), 16), epochMs + 500 + 1234);
      }
      assert.notEqual(seen[0], seen[1]);
    });
  });

  describe('randomInt', () => {
    it('stays within bounds for every argument shape (seed 13)', async () => {
      const { out } = await simulate(13, async () => {
        const r = { small: [], neg: [], huge: [], edge: [], one: [], cb: [] };
        for (let i = 0; i < 2000; i++) {
          r.small.push(crypto.randomInt(3));
          r.neg.push(crypto.randomInt(-3, 3));
          r.huge.push(crypto.randomInt(2 ** 48 - 1));
          r.edge.push(crypto.randomInt(Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER + 2 ** 48 - 1));
          r.one.push(crypto.randomInt(41, 42));
        }
        for (let i = 0; i < 50; i++) {
          r.cb.push(await new Promise((resolve) => crypto.randomInt(-10, -5, (err, n) => resolve(n))));
        }
        return r;
      });
      const { small, neg, huge, edge, one, cb } = out.c;
      assert.deepEqual([...new Set(small)].sort(), [0, 1, 2]);
      assert.deepEqual([...new Set(neg)].sort((x, y) => x - y), [-3, -2, -1, 0, 1, 2]);
      assert.ok(huge.every((n) => Number.isSafeInteger(n) && n >= 0 && n < 2 ** 48 - 1));
      assert.ok(huge.some((n) => n > 2 ** 47), 'the 48-bit range is used, not just 32 bits');
      assert.ok(edge.every((n) => n >= Number.MIN_SAFE_INTEGER && n < Number.MIN_SAFE_INTEGER + 2 ** 48 - 1));
      assert.deepEqual([...new Set(one)], [41]);
      assert.ok(cb.every((n) => n >= -10 && n < -5));
      assert.equal(new Set(cb).size, 5);
    });

    it('is roughly uniform (20,000 draws of randomInt(10), seed 17)', async () => {
      const { out } = await simulate(17, () => {
        const counts = new Array(10).fill(0);
        for (let i = 0; i < 20_000; i++) counts[crypto.randomInt(10)]++;
        return counts;
      });
      // Expected 2000 each, standard deviation about 42: 1800..2200 is a wide margin.
      for (const count of out.c) assert.ok(count > 1800 && count < 2200, `bucket count ${count}`);
    });

    it('calls back like Node: a cold cache refills in a later event, a warm one answers on nextTick (seed 19)', async () => {
      const { out } = await simulate(19, async () => {
        const log = [];
        await new Promise((resolve) => {
          // A fresh host has an empty cache, like a fresh process.
          crypto.randomInt(10, () => log.push('cold'));
          Promise.resolve().then(() => log.push('micro 1'));
          setTimeout(resolve, 1);
        });
        await new Promise((resolve) => {
          setTimeout(() => {
            crypto.randomInt(10, () => log.push('warm'));
            Promise.resolve().then(() => log.push('micro 2'));
            setTimeout(resolve, 1);
          }, 1);
        });
        return log;
      });
      assert.deepEqual(out.c, ['micro 1', 'cold', 'warm', 'micro 2']);
    });

    it('a synchronous call warms the cache for callbacks, as in Node (seed 19)', async () => {
      const { out } = await simulate(19, () => new Promise((resolve) => {
        const log = [];
        crypto.randomInt(10);
        crypto.randomInt(10, () => log.push('cb'));
        Promise.resolve().then(() => log.push('micro'));
        setTimeout(() => resolve(log), 1);
      }));
      assert.deepEqual(out.c, ['cb', 'micro']);
    });

    it('answers 3000 callback calls in call order across cache refills (seed 23)', async () => {
      const { out } = await simulate(23, () => new Promise((resolve) => {
        const order = [];
        const n = 3000;
        for (let i = 0; i < n; i++) {
          crypto.randomInt(1000, (err, value) => {
            assert.equal(err, undefined);
            assert.ok(value >= 0 && value < 1000);
            order.push(i);
            if (order.length === n) resolve(order);
          });
        }
      }));
      assert.deepEqual(out.c, Array.from({ length: 3000 }, (_, i) => i));
    });

    it('passes the same error argument to its callback as real Node', async () => {
      const realArgs = await new Promise((resolve) => REAL.randomInt(10, (...args) => resolve(args)));
      const { out } = await simulate(2, () => new Promise((resolve) => crypto.randomInt(10, (...args) => resolve(args))));
      assert.equal(out.c.length, realArgs.length);
      assert.equal(out.c[0], realArgs[0]);
      assert.equal(typeof out.c[1], 'number');
    });
  });

  describe('asynchronous callbacks', () => {
    it('arrive as simulated events after the caller\'s ticks and microtasks, in call order (seed 29)', async () => {
      const body = (asyncCalls) => () => new Promise((resolve) => {
        const log = [];
        if (asyncCalls) {
          crypto.randomBytes(4, (err, buf) => log.push(['bytes 1', err, buf.length]));
          randomFill(new Uint8Array(4), (err, buf) => log.push(['fill', err, buf.length]));
          crypto.randomBytes(4, (err, buf) => log.push(['bytes 2', err, buf.length]));
        }
        process.nextTick(() => log.push('tick'));
        Promise.resolve().then(() => log.push('micro'));
        log.push('sync');
        setTimeout(() => resolve(log), 1);
      });
      const withCalls = await simulate(29, body(true));
      const without = await simulate(29, body(false));
      assert.deepEqual(withCalls.out.c, ['sync', 'tick', 'micro', ['bytes 1', null, 4], ['fill', null, 4], ['bytes 2', null, 4]]);
      assert.deepEqual(without.out.c, ['sync', 'tick', 'micro']);
      // One event per asynchronous call.
      assert.equal(withCalls.result.events - without.result.events, 3);
    });

    it('writes the bytes when the event runs, not when the call is made (seed 31)', async () => {
      const { out } = await simulate(31, () => new Promise((resolve) => {
        const buf = new Uint32Array(4);
        crypto.randomFill(buf, 1, 2, (err, same) => {
          resolve({ err, same: same === buf, atCallback: Array.from(buf) });
        });
        assert.deepEqual(Array.from(buf), [0, 0, 0, 0]);
      }));
      assert.equal(out.c.err, null);
      assert.equal(out.c.same, true);
      assert.equal(out.c.atCallback[0], 0);
      assert.equal(out.c.atCallback[3], 0);
      assert.ok(out.c.atCallback[1] !== 0 || out.c.atCallback[2] !== 0);
    });

    it('run in the caller\'s async context with a RandomBytesJob as `this`, like real Node', async () => {
      const als = new AsyncLocalStorage();
      const probe = (fn) => new Promise((resolve) => {
        als.run('ctx', () => fn(function () {
          resolve({ store: als.getStore(), job: this?.constructor?.name, ondone: typeof this?.ondone });
        }));
      });
      const real = await probe((cb) => REAL.randomBytes(4, cb));
      const realFill = await probe((cb) => REAL.randomFill(new Uint8Array(2), cb));
      const { out } = await simulate(37, async () => ({
        bytes: await probe((cb) => crypto.randomBytes(4, cb)),
        fill: await probe((cb) => crypto.randomFill(new Uint8Array(2), cb)),
      }));
      assert.deepEqual(real, { store: 'ctx', job: 'RandomBytesJob', ondone: 'function' });
      assert.deepEqual(out.c.bytes, real);
      assert.deepEqual(out.c.fill, realFill);
    });

    it('call back synchronously when there is nothing to fill, like real Node', async () => {
      const probe = (call) => {
        let sync = false;
        let args;
        call((...a) => {
          sync = true;
          args = a;
        });
        const result = { sync };
        if (sync) result.args = [args[0], args[1].length];
        return result;
      };
      const real = [probe((cb) => REAL.randomBytes(0, cb)), probe((cb) => REAL.randomFill(new Uint8Array(4), 4, cb))];
      const { out } = await simulate(41, () => [
        probe((cb) => crypto.randomBytes(0, cb)),
        probe((cb) => crypto.randomFill(new Uint8Array(4), 4, cb)),
      ]);
      assert.deepEqual(real, [{ sync: true, args: [null, 0] }, { sync: true, args: [null, 4] }]);
      assert.deepEqual(out.c, real);
    });
  });

  describe('buffers', () => {
    it('fills only [offset, offset + size) of Buffers, TypedArrays, DataViews and ArrayBuffers (seed 43)', async () => {
      const { out } = await simulate(43, () => {
        const buf = Buffer.alloc(8);
        crypto.randomFillSync(buf, 2, 3);
        const u32 = new Uint32Array(4);
        crypto.randomFillSync(u32, 1, 2);
        const ab = new ArrayBuffer(8);
        crypto.randomFillSync(ab, 4);
        const backing = new ArrayBuffer(12);
        const view = new DataView(backing, 4, 4);
        const returned = crypto.randomFillSync(view);
        const sub = new Uint8Array(backing, 8, 4);
        const values = globalThis.crypto.getRandomValues(sub);
        return {
          buf: [...buf],
          u32: [...u32],
          ab: [...new Uint8Array(ab)],
          backing: [...new Uint8Array(backing)],
          same: returned === view && values === sub,
          bytes: crypto.randomBytes(5),
        };
      });
      const r = out.c;
      assert.deepEqual([r.buf[0], r.buf[1], r.buf[5], r.buf[6], r.buf[7]], [0, 0, 0, 0, 0]);
      assert.ok(r.buf.slice(2, 5).some((b) => b !== 0));
      assert.deepEqual([r.u32[0], r.u32[3]], [0, 0]);
      assert.ok(r.u32[1] !== 0 && r.u32[2] !== 0);
      assert.deepEqual(r.ab.slice(0, 4), [0, 0, 0, 0]);
      assert.ok(r.ab.slice(4).some((b) => b !== 0));
      assert.deepEqual(r.backing.slice(0, 4), [0, 0, 0, 0]);
      assert.ok(r.backing.slice(4, 8).some((b) => b !== 0));
      assert.ok(r.backing.slice(8).some((b) => b !== 0));
      assert.equal(r.same, true);
      // randomBytes returns a Buffer of its own (never a slice of the pool), as Node does.
      assert.ok(Buffer.isBuffer(r.bytes));
      assert.equal(r.bytes.byteOffset, 0);
      assert.equal(r.bytes.buffer.byteLength, 5);
    });
  });

  describe('fidelity of errors', () => {
    it('throws the same class, name, code, message and stack header as the real functions', async () => {
      const real = outcomes();
      // Sanity: most cases really are errors in real Node.
      assert.ok(Object.values(real).filter((o) => o.threw).length > 80);
      let simulated;
      const sim = new Sim({ seed: 47 });
      sim.client('c', () => {
        simulated = outcomes();
      });
      await sim.run();
      for (const [label] of ERROR_CASES) {
        assert.deepEqual(simulated[label], real[label], label);
      }
    });

    it('matches real errors of detached and wrong-receiver web methods via node:crypto too', async () => {
      // node:crypto's getRandomValues forwards to the web object's method on every call.
      const realResult = outcome(() => crypto.getRandomValues(new Float32Array(1)));
      let simulated;
      const sim = new Sim({ seed: 48 });
      sim.client('c', () => {
        simulated = outcome(() => crypto.getRandomValues(new Float32Array(1)));
      });
      await sim.run();
      assert.equal(realResult.name, 'TypeMismatchError');
      assert.deepEqual(simulated, realResult);
    });
  });

  describe('outside hosts', () => {
    it('calls the real functions from the test runner during a run, leaving host streams alone (seed 53)', async () => {
      const hostDraw = () => [crypto.randomBytes(8).toString('hex'), globalThis.crypto.randomUUID(), crypto.randomInt(1e9)];
      const quiet = await simulate(53, hostDraw);

      let hostSeen;
      const sim = new Sim({ seed: 53 });
      sim.client('c', () => {
        hostSeen = hostDraw();
      });
      const running = sim.run();
      // Shims are installed now, and this code is outside every host.
      assert.notEqual(crypto.randomBytes, REAL.randomBytes);
      const outside = [crypto.randomBytes(16).toString('hex'), crypto.randomBytes(16).toString('hex')];
      const outsideUuid = globalThis.crypto.randomUUID();
      const outsideErrors = outcomes();
      const outsideAsync = new Promise((resolve) => crypto.randomBytes(8, (err, buf) => resolve(buf)));
      const result = await running;

      assert.notEqual(outside[0], outside[1]);
      assert.match(outsideUuid, UUID_V4);
      assert.deepEqual(hostSeen, quiet.out.c);
      // A real threadpool callback, not a simulated event.
      assert.equal(result.events, quiet.result.events);
      assert.equal((await outsideAsync).length, 8);
      const real = outcomes();
      for (const [label] of ERROR_CASES) assert.deepEqual(outsideErrors[label], real[label], label);
    });
  });

  describe('install and uninstall', () => {
    it('restores node:crypto, Crypto.prototype and globalThis.crypto exactly after a run (seed 59)', async () => {
      const before = snapshot();
      let during;
      const sim = new Sim({ seed: 59 });
      sim.client('c', () => {
        during = snapshot();
        crypto.pseudoRandomBytes(1);
      });
      await sim.run();
      const after = snapshot();
      assertSameDescriptors(before, after);
      // The check can fail: during the run the descriptors were different.
      assert.notEqual(during['node:crypto.randomBytes'].value, before['node:crypto.randomBytes'].value);
      assert.notEqual(during['Crypto.prototype.getRandomValues'].value, before['Crypto.prototype.getRandomValues'].value);
      // ESM named bindings are re-synced to the real functions.
      assert.equal(randomBytes, REAL.randomBytes);
      assert.equal(randomInt, REAL.randomInt);
      assert.equal(randomUUID, REAL.randomUUID);
      assert.equal(globalThis.crypto.getRandomValues, REAL.webGetRandomValues);
    });
  });
});
