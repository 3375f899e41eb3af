import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import util from 'node:util';
import { Sim } from 'dst-runtime';

// Captured when this file loads, before any simulation installs its shims.
const RealDate = Date;
const realNow = Date.now;
const realParse = Date.parse;
const realUTC = Date.UTC;
const madeBeforeInstall = new Date(0);

/** Decades before the real clock, so a virtual reading can never pass for a real one. */
const EPOCH_MS = Date.UTC(2000, 0, 1);
const REGISTER = fileURLToPath(new URL('../../../../dist/register.mjs', import.meta.url));

function isRealNow(ms) {
  return Number.isInteger(ms) && Math.abs(ms - realNow()) < 60_000;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Blocks the thread for `ms` of real time without touching any clock we simulate. */
function blockRealMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs `main` as client "c" (seed 0x1, epoch EPOCH_MS) and returns what it returned. */
async function inClient(main, hostOptions = {}) {
  let value;
  const sim = new Sim({ seed: 1, epochMs: EPOCH_MS });
  sim.client('c', async () => {
    value = await main();
  }, hostOptions);
  await sim.run();
  return value;
}

/** The descriptors a run must leave exactly as it found them. */
function dateGlobals() {
  return {
    global: Object.getOwnPropertyDescriptor(globalThis, 'Date'),
    constructor: Object.getOwnPropertyDescriptor(RealDate.prototype, 'constructor'),
    now: Object.getOwnPropertyDescriptor(RealDate, 'now'),
    staticKeys: Reflect.ownKeys(RealDate),
    prototypeKeys: Reflect.ownKeys(RealDate.prototype),
  };
}

describe('shims/clock/date (seed 0x1)', () => {
  describe('virtual time inside a host', () => {
    it('Date.now() and new Date() read the host clock: epochMs at boot, integer ms', async () => {
      const seen = await inClient(() => ({ now: Date.now(), date: new Date().getTime(), type: typeof Date.now() }));
      assert.deepEqual(seen, { now: EPOCH_MS, date: EPOCH_MS, type: 'number' });
    });

    it('Date() without new returns the string of virtual now and ignores its arguments', async () => {
      const seen = await inClient(() => ({
        plain: Date(),
        withArgs: Date(2010, 4, 2, 12, 42, 53, 498),
        withTimestamp: Date(1),
        viaCall: Date.call(null),
      }));
      const expected = new RealDate(EPOCH_MS).toString();
      assert.deepEqual(seen, { plain: expected, withArgs: expected, withTimestamp: expected, viaCall: expected });
    });

    it('stands still during synchronous code, even while 20 ms of real time pass', async () => {
      const seen = await inClient(() => {
        const before = Date.now();
        blockRealMs(20);
        const readings = [];
        for (let i = 0; i < 1000; i++) readings.push(new Date().getTime(), Date.now());
        return { before, readings: new Set(readings), string: Date() };
      });
      assert.equal(seen.before, EPOCH_MS);
      assert.deepEqual([...seen.readings], [EPOCH_MS]);
      assert.equal(seen.string, new RealDate(EPOCH_MS).toString());
    });

    it('does not move across microtasks, nextTicks and immediates', async () => {
      const seen = await inClient(async () => {
        const readings = [Date.now()];
        await Promise.resolve();
        readings.push(Date.now());
        await new Promise((resolve) => process.nextTick(resolve));
        readings.push(Date.now());
        await new Promise((resolve) => queueMicrotask(resolve));
        readings.push(Date.now());
        await new Promise((resolve) => setImmediate(resolve));
        readings.push(new Date().getTime());
        return readings;
      });
      assert.deepEqual(seen, [EPOCH_MS, EPOCH_MS, EPOCH_MS, EPOCH_MS, EPOCH_MS]);
    });

    it('advances exactly as far as virtual time: setTimeout, chained timers, intervals', async () => {
      const seen = await inClient(async () => {
        const start = Date.now();
        await sleep(1500);
        const afterSleep = Date.now() - start;
        const dateAfterSleep = new Date().toISOString();
        for (let i = 0; i < 4; i++) await sleep(250);
        const afterChain = Date.now() - start;
        const ticks = await new Promise((resolve) => {
          const t0 = Date.now();
          const out = [];
          const id = setInterval(() => {
            out.push(Date.now() - t0);
            if (out.length === 3) {
              clearInterval(id);
              resolve(out);
            }
          }, 100);
        });
        await sleep(3_600_000);
        return { afterSleep, dateAfterSleep, afterChain, ticks, afterHour: Date.now() - start };
      });
      assert.deepEqual(seen, {
        afterSleep: 1500,
        dateAfterSleep: new RealDate(EPOCH_MS + 1500).toISOString(),
        afterChain: 2500,
        ticks: [100, 200, 300],
        afterHour: 2800 + 3_600_000,
      });
    });

    it('applies each host its own skew (skewMs), at boot and after time passes', async () => {
      const seen = {};
      const sim = new Sim({ seed: 1, epochMs: EPOCH_MS });
      for (const [name, skewMs] of [['ahead', 5000], ['behind', -2000], ['exact', 0]]) {
        sim.client(name, async () => {
          const atBoot = Date.now();
          await sleep(1000);
          seen[name] = [atBoot, new Date().getTime(), Date()];
        }, { skewMs });
      }
      await sim.run();
      assert.deepEqual(seen, {
        ahead: [EPOCH_MS + 5000, EPOCH_MS + 6000, new RealDate(EPOCH_MS + 6000).toString()],
        behind: [EPOCH_MS - 2000, EPOCH_MS - 1000, new RealDate(EPOCH_MS - 1000).toString()],
        exact: [EPOCH_MS, EPOCH_MS + 1000, new RealDate(EPOCH_MS + 1000).toString()],
      });
    });

    it('uses the default epoch 2025-01-01T00:00:00.000Z when epochMs is not given', async () => {
      let seen;
      const sim = new Sim({ seed: 1 });
      sim.client('c', () => {
        seen = new Date().toISOString();
      });
      await sim.run();
      assert.equal(seen, '2025-01-01T00:00:00.000Z');
    });
  });

  describe('the simulated Date looks like the native one', () => {
    it('new Date(args...) is the native constructor: timestamps, strings, 2 to 7 fields, a bound Date', async () => {
      const forms = [
        [0],
        [1_443_139_200_000],
        ['2015-09-25'],
        ['2015-09-25T10:20:30.456Z'],
        ['Sat Apr 12 2014 12:22:00 GMT+1000'],
        [2010, 4],
        [2010, 4, 2],
        [2010, 4, 2, 12],
        [2010, 4, 2, 12, 42],
        [2010, 4, 2, 12, 42, 53],
        [2010, 4, 2, 12, 42, 53, 498],
        [undefined],
        ['not a date'],
      ];
      const seen = await inClient(() => ({
        times: forms.map((args) => new Date(...args).getTime()),
        copy: new Date(new Date(7)).getTime(),
        boundNoArgs: new (Date.bind(null))().getTime(),
        boundWithArgs: new (Date.bind(null, 2010, 4))().getTime(),
      }));
      assert.deepEqual(seen, {
        times: forms.map((args) => new RealDate(...args).getTime()),
        copy: 7,
        boundNoArgs: EPOCH_MS,
        boundWithArgs: new RealDate(2010, 4).getTime(),
      });
    });

    it('keeps name, length, parse, UTC, prototype and their identities', async () => {
      const seen = await inClient(() => ({
        installed: globalThis.Date !== RealDate,
        name: Date.name,
        length: Date.length,
        typeofDate: typeof Date,
        parse: Date.parse === realParse,
        utc: Date.UTC === realUTC,
        prototype: Date.prototype === RealDate.prototype,
        toUTCString: Date.prototype.toUTCString === RealDate.prototype.toUTCString,
        parsed: Date.parse('2015-09-25T00:00:00Z'),
        utcValue: Date.UTC(2025, 0, 1),
        prototypeOf: Object.getPrototypeOf(Date) === Function.prototype,
        ownKeys: Reflect.ownKeys(Date),
      }));
      assert.deepEqual(seen, {
        installed: true,
        name: 'Date',
        length: 7,
        typeofDate: 'function',
        parse: true,
        utc: true,
        prototype: true,
        toUTCString: true,
        parsed: 1_443_139_200_000,
        utcValue: 1_735_689_600_000,
        prototypeOf: true,
        ownKeys: Reflect.ownKeys(RealDate),
      });
    });

    it('Date.now has a stable identity, the native name and length, and is not a constructor', async () => {
      const seen = await inClient(() => {
        const now = Date.now;
        let constructError;
        try {
          new now();
        } catch (error) {
          constructError = error;
        }
        return {
          same: Date.now === now && Date.now === Date.now,
          descriptorSame: Object.getOwnPropertyDescriptor(Date, 'now').value === now,
          detached: now(),
          name: now.name,
          length: now.length,
          hasPrototype: 'prototype' in now,
          constructError,
          integer: Number.isInteger(Date.now()),
        };
      });
      const { constructError, ...rest } = seen;
      assert.deepEqual(rest, { same: true, descriptorSame: true, detached: EPOCH_MS, name: 'now', length: 0, hasPrototype: false, integer: true });
      assert.ok(constructError instanceof TypeError, `new Date.now() must throw a TypeError, got ${constructError}`);
    });

    it('creates real Date objects: [object Date], instanceof, constructor, inspect, JSON, structuredClone', async () => {
      const seen = await inClient(() => {
        const d = new Date();
        return {
          tag: Object.prototype.toString.call(d),
          instanceOfDate: d instanceof Date,
          instanceOfReal: d instanceof RealDate,
          proto: Object.getPrototypeOf(d) === RealDate.prototype,
          constructorIsDate: d.constructor === Date,
          prototypeConstructorIsDate: Date.prototype.constructor === Date,
          constructorEnumerable: Object.keys(d).length,
          isDate: util.types.isDate(d),
          inspect: util.inspect(d),
          json: JSON.stringify({ d }),
          cloned: structuredClone(d).getTime(),
          cloneIsDate: structuredClone(d) instanceof Date,
        };
      });
      assert.deepEqual(seen, {
        tag: '[object Date]',
        instanceOfDate: true,
        instanceOfReal: true,
        proto: true,
        constructorIsDate: true,
        prototypeConstructorIsDate: true,
        constructorEnumerable: 0,
        isDate: true,
        inspect: new RealDate(EPOCH_MS).toISOString(),
        json: JSON.stringify({ d: new RealDate(EPOCH_MS) }),
        cloned: EPOCH_MS,
        cloneIsDate: true,
      });
    });

    it('dates created before install keep working and are instances of the simulated Date', async () => {
      const seen = await inClient(() => ({
        instanceOf: madeBeforeInstall instanceof Date,
        constructorIsDate: madeBeforeInstall.constructor === Date,
        time: madeBeforeInstall.getTime(),
        iso: madeBeforeInstall.toISOString(),
        nativeInstanceOfReal: new RealDate(5) instanceof Date,
      }));
      assert.deepEqual(seen, { instanceOf: true, constructorIsDate: true, time: 0, iso: '1970-01-01T00:00:00.000Z', nativeInstanceOfReal: true });
    });

    it('prints like the native Date: String(Date), Date.toString(), inspect, [native code]', async () => {
      const seen = await inClient(() => ({
        string: String(Date),
        toString: Date.toString(),
        template: `${Date}`,
        inspect: util.inspect(Date),
        functionToString: Function.prototype.toString.call(Date),
        dateNowToString: String(Date.now),
      }));
      assert.equal(seen.string, String(RealDate));
      assert.equal(seen.string, 'function Date() { [native code] }');
      assert.equal(seen.toString, String(RealDate));
      assert.equal(seen.template, String(RealDate));
      assert.equal(seen.inspect, util.inspect(RealDate));
      // V8 prints every Proxy as "function () { [native code] }": native-looking, without the name.
      assert.match(seen.functionToString, /^function \w*\(\) \{ \[native code\] \}$/);
      assert.equal(typeof seen.dateNowToString, 'string');
    });

    it('a class extending the simulated Date gets virtual time from new MyDate(), native behaviour with arguments', async () => {
      const seen = await inClient(() => {
        class MyDate extends Date {
          twice() {
            return this.getTime() * 2;
          }
        }
        const d = new MyDate();
        return {
          time: d.getTime(),
          twice: d.twice(),
          withArgs: new MyDate(0).getTime(),
          instanceOfMy: d instanceof MyDate,
          instanceOfDate: d instanceof Date,
          tag: Object.prototype.toString.call(d),
          staticNow: MyDate.now(),
          staticParse: MyDate.parse === realParse,
          classSource: MyDate.toString().startsWith('class MyDate'),
        };
      });
      assert.deepEqual(seen, {
        time: EPOCH_MS,
        twice: EPOCH_MS * 2,
        withArgs: 0,
        instanceOfMy: true,
        instanceOfDate: true,
        tag: '[object Date]',
        staticNow: EPOCH_MS,
        staticParse: true,
        classSource: true,
      });
    });

    it('mirrors custom static properties of the native Date, and host writes to Date.now do not leak', async () => {
      RealDate.dstCustomStatic = 'custom';
      try {
        const seen = await inClient(() => {
          const custom = Date.dstCustomStatic;
          Date.now = () => 42; // a program stubbing its own clock
          return { custom, stubbed: Date.now() };
        });
        assert.deepEqual(seen, { custom: 'custom', stubbed: 42 });
        assert.equal(Date.now, realNow);
        assert.ok(isRealNow(Date.now()));
      } finally {
        delete RealDate.dstCustomStatic;
      }
    });
  });

  describe('outside every host (library mode)', () => {
    it('the test runner gets the real Date while a run is in progress', async () => {
      let clientDone = false;
      const clientSeen = [];
      const sim = new Sim({ seed: 1, epochMs: EPOCH_MS });
      sim.client('c', async () => {
        clientSeen.push(Date.now());
        // Thousands of events: the driver yields to the real event loop between batches.
        for (let i = 0; i < 5000; i++) await new Promise((resolve) => setImmediate(resolve));
        await sleep(10);
        clientSeen.push(Date.now());
        clientDone = true;
      });
      const running = sim.run();
      // The shims are installed now, and this code is outside every host.
      const installed = globalThis.Date !== RealDate;
      const sync = { now: Date.now(), date: new Date().getTime(), string: Date(), args: new Date(0).getTime() };
      const midRun = await new Promise((resolve) =>
        setImmediate(() => resolve({ done: clientDone, now: Date.now(), date: new Date().getTime() })),
      );
      await running;

      assert.equal(installed, true);
      assert.ok(isRealNow(sync.now), `Date.now() outside hosts gave ${sync.now}`);
      assert.ok(isRealNow(sync.date), `new Date() outside hosts gave ${sync.date}`);
      assert.ok(isRealNow(realParse(sync.string)), `Date() outside hosts gave ${sync.string}`);
      assert.equal(sync.args, 0);
      assert.equal(midRun.done, false, 'the real immediate must run while the client is still going');
      assert.ok(isRealNow(midRun.now), `Date.now() outside hosts mid-run gave ${midRun.now}`);
      assert.ok(isRealNow(midRun.date), `new Date() outside hosts mid-run gave ${midRun.date}`);
      assert.deepEqual(clientSeen, [EPOCH_MS, EPOCH_MS + 10]);
    });

    it('the real clock moves outside hosts during a run (it is not frozen there)', async () => {
      let outside;
      const sim = new Sim({ seed: 1, epochMs: EPOCH_MS });
      sim.client('c', () => {});
      const running = sim.run();
      const before = Date.now();
      blockRealMs(15);
      outside = Date.now() - before;
      await running;
      assert.ok(outside >= 14, `real Date.now() outside hosts moved only ${outside} ms in 15 ms`);
    });

    it('restores globalThis.Date, Date.prototype.constructor and Date.now exactly after a run', async () => {
      const before = dateGlobals();
      let during;
      const sim = new Sim({ seed: 1, epochMs: EPOCH_MS });
      sim.client('c', () => {
        during = dateGlobals();
      });
      await sim.run();
      const after = dateGlobals();

      assert.notEqual(during.global.value, before.global.value, 'Date must be replaced during the run');
      assert.equal(during.constructor.value, during.global.value);
      assert.notEqual(during.now.value, before.now.value);
      assert.deepEqual(after, before);
      assert.equal(globalThis.Date, RealDate);
      assert.equal(new Date().constructor, RealDate);
      assert.equal(Date.now, realNow);
      assert.ok(isRealNow(Date.now()));
      assert.ok(isRealNow(new Date().getTime()));
    });

    it('restores exactly after a run whose client fails', async () => {
      const before = dateGlobals();
      const sim = new Sim({ seed: 1, epochMs: EPOCH_MS });
      sim.client('c', async () => {
        await sleep(5);
        throw new Error(`failed at ${new Date().toISOString()}`);
      });
      await assert.rejects(sim.run(), (error) => {
        assert.match(String(error.message), new RegExp(new RealDate(EPOCH_MS + 5).toISOString().replace(/\./g, '\\.')));
        return true;
      });
      assert.deepEqual(dateGlobals(), before);
    });

    it('a class extending the simulated Date follows whoever calls it, across runs and after them', async () => {
      let MyDate;
      const first = new Sim({ seed: 1, epochMs: EPOCH_MS });
      first.client('c', () => {
        MyDate = class extends Date {};
      });
      await first.run();

      const epoch2 = EPOCH_MS + 86_400_000;
      let inSecondRun;
      let outsideDuringSecondRun;
      const second = new Sim({ seed: 2, epochMs: epoch2 });
      second.client('c', async () => {
        await sleep(30);
        inSecondRun = [new MyDate().getTime(), MyDate.now()];
      });
      const running = second.run();
      outsideDuringSecondRun = new MyDate().getTime();
      await running;

      assert.deepEqual(inSecondRun, [epoch2 + 30, epoch2 + 30]);
      assert.ok(isRealNow(outsideDuringSecondRun));
      assert.ok(isRealNow(new MyDate().getTime()), 'after the runs a subclass reads the real clock');
      assert.ok(isRealNow(MyDate.now()));
      assert.ok(new MyDate() instanceof RealDate);
    });
  });

  describe('register mode', () => {
    let dir;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-date-'));
    });
    after(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    function runRegistered(file, source, extraEnv = {}) {
      const program = path.join(dir, file);
      fs.writeFileSync(program, source);
      return spawnSync(process.execPath, ['--import', REGISTER, program], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, DST_SEED: '1', DST_QUIET: '1', TZ: 'UTC', ...extraEnv },
        timeout: 30_000,
      });
    }

    it('the entry module sees 2025-01-01T00:00:00.000Z, then exactly 1.5 s later after a 1500 ms timer', () => {
      const result = runRegistered('prog.mjs', [
        'const start = Date.now();',
        'console.log(new Date().toISOString());',
        'console.log(start);',
        'console.log(Date());',
        'await new Promise((resolve) => setTimeout(resolve, 1500));',
        'console.log(new Date().toISOString());',
        'console.log(Date.now() - start);',
        'console.log(new Date().constructor === Date, Date.name, Date.length, new Date(0).toISOString());',
        '',
      ].join('\n'));
      assert.equal(result.stderr, '');
      assert.equal(result.status, 0);
      assert.equal(result.stdout, [
        '2025-01-01T00:00:00.000Z',
        '1735689600000',
        'Wed Jan 01 2025 00:00:00 GMT+0000 (Coordinated Universal Time)',
        '2025-01-01T00:00:01.500Z',
        '1500',
        'true Date 7 1970-01-01T00:00:00.000Z',
        '',
      ].join('\n'));
    });

    it('gives the same Date readings under another seed (Date does not depend on the seed)', () => {
      const source = 'await new Promise((r) => setTimeout(r, 250));\nconsole.log(Date.now(), new Date().toISOString());\n';
      const one = runRegistered('seed.mjs', source, { DST_SEED: '1' });
      const other = runRegistered('seed.mjs', source, { DST_SEED: '0x9f3c1a22' });
      assert.equal(one.status, 0, one.stderr);
      assert.equal(other.status, 0, other.stderr);
      assert.equal(one.stdout, '1735689600250 2025-01-01T00:00:00.250Z\n');
      assert.equal(other.stdout, one.stdout);
    });
  });
});
