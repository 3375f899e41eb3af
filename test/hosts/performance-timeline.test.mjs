/**
 * The performance timeline inside a host (shims/clock/performance.ts, shims/process/machine.ts):
 * marks, measures, timerify's entries, performance.nodeTiming and a histogram's recordDelta() read the host's clock,
 * not Node's internal one (real time); a PerformanceObserver gets the entries Node's internals
 * make (http, net) before the host's next timer, as in plain Node, and never a 'gc' entry.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import dns from 'node:dns';
import http from 'node:http';
import http2 from 'node:http2';
import path from 'node:path';
import { createHistogram, performance, PerformanceMark, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Sim, STARTUP_MS } from 'dst-runtime';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const HERE = path.dirname(fileURLToPath(import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');

/** What a host reads of its timeline: marks 100 ms apart and every form of measure. */
async function timeline(seed) {
  const read = {};
  const sim = new Sim({ seed });
  sim.host('n1', async () => {
    // Node's main thread starts its loop after the program's first tick: -1 until then.
    read.loopStartInFirstTick = performance.nodeTiming.loopStart;
    await sleep(7);
    read.nowAtA = performance.now();
    const a = performance.mark('a', { detail: { step: 1 } });
    read.a = [a.startTime, a.duration, a.detail.step];
    await sleep(100);
    read.b = performance.mark('b').startTime;
    read.given = performance.mark('given', { startTime: 3 }).startTime;
    const span = (entry) => [entry.startTime, entry.duration];
    read.aToB = span(performance.measure('a-b', 'a', 'b'));
    read.fromOrigin = span(performance.measure('from-origin'));
    read.fromA = span(performance.measure('from-a', 'a'));
    read.startOnly = span(performance.measure('start-only', { start: 'a' }));
    read.startAndDuration = span(performance.measure('start-duration', { start: 'a', duration: 5 }));
    read.durationOnly = span(performance.measure('duration-only', { duration: 5 }));
    read.toLoopStart = span(performance.measure('to-loop', 'nodeStart', 'loopStart'));
    read.nodeTiming = performance.nodeTiming.toJSON();
    read.now = performance.now();
    read.entries = performance.getEntriesByType('measure').map((entry) => `${entry.name} ${entry.startTime} ${entry.duration}`);
    performance.clearMarks();
    performance.clearMeasures();
    const histogram = createHistogram();
    histogram.recordDelta();
    await sleep(10);
    histogram.recordDelta();
    read.delta = { count: histogram.count, min: histogram.min };
  });
  const { fingerprint } = await sim.run();
  return { read, fingerprint };
}

describe('the performance timeline inside a host', function () {
  this.timeout(60_000);

  it('marks, measures and nodeTiming are on the host\'s clock, the same on every run (seed 0x3b)', async () => {
    const first = await timeline(0x3b);
    const second = await timeline(0x3b);
    assert.deepEqual(second, first);
    const { read } = first;
    // Node's clock gives the milliseconds since the real process started: hundreds, varying.
    // The host's counts from its process's start, STARTUP_MS before the program's first line.
    const a = STARTUP_MS + 7;
    const b = STARTUP_MS + 107;
    assert.equal(read.nowAtA, a);
    assert.deepEqual(read.a, [a, 0, 1]);
    assert.equal(read.b, b);
    assert.equal(read.given, 3, 'a startTime given is kept');
    assert.deepEqual(read.aToB, [a, 100]);
    assert.deepEqual(read.fromOrigin, [0, b]);
    assert.deepEqual(read.fromA, [a, 100]);
    assert.deepEqual(read.startOnly, [a, 100]);
    assert.deepEqual(read.startAndDuration, [a, 5]);
    assert.deepEqual(read.durationOnly, [0, b], 'Node ignores a duration without start or end');
    // Start-up milestones in Node's order, before the program; the loop starts after its first tick.
    assert.deepEqual(read.toLoopStart, [0.5, STARTUP_MS - 0.5]);
    assert.equal(read.loopStartInFirstTick, -1);
    assert.equal(read.now, b);
    assert.deepEqual(
      { ...read.nodeTiming, idleTime: undefined },
      { name: 'node', entryType: 'node', startTime: 0, duration: b, nodeStart: 0.5, v8Start: 5, environment: 17, bootstrapComplete: 24, loopStart: STARTUP_MS, loopExit: -1, idleTime: undefined },
    );
    // The loop's idle time counts from its start (107 ms before).
    assert.ok(read.nodeTiming.idleTime > 100 && read.nodeTiming.idleTime < 107, `idle most of 107 ms, got ${read.nodeTiming.idleTime}`);
    assert.equal(read.entries.length, 7);
    // 10 ms apart on the host's clock, within the histogram's precision.
    assert.equal(read.delta.count, 1);
    assert.ok(Math.abs(read.delta.min - 10e6) < 10e6 / 500, `recordDelta ${read.delta.min} ns`);
  });

  it('outside every host, marks and nodeTiming are Node\'s own, during and after a run', async () => {
    const nodeStart = performance.nodeTiming.nodeStart;
    assert.ok(nodeStart > 0, 'real Node takes time to start');
    const sim = new Sim({ seed: 0x3b });
    let outsideDuring;
    sim.host('n1', () => sleep(5));
    const run = sim.run();
    outsideDuring = performance.mark('outside').startTime;
    await run;
    assert.ok(outsideDuring > 0 && Math.abs(outsideDuring - performance.now()) < 60_000, `a real mark, got ${outsideDuring}`);
    assert.equal(performance.nodeTiming.nodeStart, nodeStart);
    assert.ok(performance.nodeTiming.duration > 0);
    performance.clearMarks('outside');
  });

  it('an observer gets Node\'s http and net entries before the host\'s next timer, as in plain Node (seed 0x3c)', async () => {
    async function program() {
      const seen = [];
      const observer = new PerformanceObserver((list) => seen.push(...list.getEntries().map((entry) => `${entry.entryType}:${entry.name}`)));
      observer.observe({ entryTypes: ['http', 'net'] });
      const server = http.createServer((req, res) => res.end('ok'));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      await new Promise((resolve, reject) => {
        http.get(`http://127.0.0.1:${server.address().port}/`, (res) => res.resume().on('end', resolve)).on('error', reject);
      });
      await sleep(0);
      const atTimer = [...seen].sort();
      observer.disconnect();
      await new Promise((resolve) => server.close(resolve));
      return atTimer;
    }
    const plain = await program();
    assert.deepEqual(plain, ['http:HttpClient', 'http:HttpRequest', 'net:connect']);
    for (let i = 0; i < 2; i++) {
      let simulated;
      const sim = new Sim({ seed: 0x3c });
      sim.host('n1', async () => {
        simulated = await program();
      });
      await sim.run();
      assert.deepEqual(simulated, plain);
    }
  });

  it('Node\'s own http, net, dns and http2 entries are on the host\'s clock, the same on every run (seed 0x3c)', async () => {
    const runOnce = async () => {
      const seen = [];
      const sim = new Sim({ seed: 0x3c });
      sim.host('server', () => {
        http.createServer((req, res) => setTimeout(() => res.end('ok'), 20)).listen(80);
        http2.createServer((req, res) => setTimeout(() => res.end('ok'), 15)).listen(81);
      });
      sim.client('c', async () => {
        const observer = new PerformanceObserver((list) => seen.push(...list.getEntries().map((e) => ({ type: e.entryType, name: e.name, start: e.startTime, duration: e.duration }))));
        observer.observe({ entryTypes: ['http', 'net', 'dns', 'http2'] });
        await sleep(10);
        await dns.promises.lookup('server');
        await new Promise((resolve, reject) => http.get('http://server/', (res) => res.resume().on('end', resolve)).on('error', reject));
        await sleep(5);
        const session = http2.connect('http://server:81');
        await new Promise((resolve) => {
          const req = session.request({ ':path': '/' });
          req.resume();
          req.on('end', resolve);
          req.end();
        });
        session.close();
        await sleep(50);
        observer.disconnect();
      });
      const { elapsedNs } = await sim.run();
      return { seen, elapsedMs: elapsedNs / 1e6 };
    };
    const first = await runOnce();
    const named = (type, name) => first.seen.filter((e) => e.type === type && e.name === name);
    // Before, each carried Node's internal (real) clock: startTime the process's uptime.
    for (const entry of first.seen) {
      assert.ok(entry.start >= STARTUP_MS + 10 && entry.start + entry.duration <= STARTUP_MS + first.elapsedMs, `${JSON.stringify(entry)} within the run's ${first.elapsedMs} virtual ms`);
    }
    assert.deepEqual(named('dns', 'lookup').slice(0, 2).map((e) => [e.start, e.duration]), [[STARTUP_MS + 10, 0], [STARTUP_MS + 10, 0]]);
    // The server answers 20 ms after the request arrives (http) and 15 ms (an http2 stream).
    assert.deepEqual(named('http', 'HttpRequest').map((e) => e.duration), [20]);
    const [client] = named('http', 'HttpClient');
    assert.equal(client.start, STARTUP_MS + 10);
    assert.ok(client.duration > 20, `HttpClient took ${client.duration} ms`);
    assert.ok(named('http2', 'Http2Stream').some((e) => e.duration === 15), JSON.stringify(named('http2', 'Http2Stream')));
    assert.equal(named('http2', 'Http2Session').length, 2);
    assert.ok(named('net', 'connect').length >= 2);
    assert.deepEqual(await runOnce(), first);
  });

  it('a timerified function\'s entries are on the host\'s clock: sync 0 ms, async its virtual time (seed 0x3e)', async () => {
    const runOnce = async () => {
      const seen = [];
      const sim = new Sim({ seed: 0x3e });
      sim.host('n1', async () => {
        const observer = new PerformanceObserver((list) => seen.push(...list.getEntries().map((entry) => [entry.name, entry.startTime, entry.duration])));
        observer.observe({ entryTypes: ['function'] });
        await sleep(5);
        const add = performance.timerify(function add(a, b) {
          return a + b;
        });
        assert.equal(add(2, 3), 5);
        const wait = performance.timerify(async function wait(ms) {
          await sleep(ms);
          return ms;
        });
        assert.equal(await wait(30), 30);
        class Point {
          constructor(x) {
            this.x = x;
          }
        }
        assert.equal(new (performance.timerify(Point))(4).x, 4);
        await sleep(1);
        observer.disconnect();
      });
      await sim.run();
      return seen;
    };
    const first = await runOnce();
    assert.deepEqual(first, [
      ['add', STARTUP_MS + 5, 0],
      ['wait', STARTUP_MS + 5, 30],
      ['Point', STARTUP_MS + 35, 0],
    ]);
    assert.deepEqual(await runOnce(), first);
  });

  it('new PerformanceMark() called directly is on the host\'s clock, and still Node\'s class (seed 0x40)', async () => {
    const seen = [];
    const sim = new Sim({ seed: 0x40 });
    sim.host('n1', async () => {
      await sleep(12);
      const mark = new PerformanceMark('direct', { detail: 'd' });
      seen.push([mark.startTime, mark.detail, mark instanceof PerformanceMark, performance.mark('via mark') instanceof globalThis.PerformanceMark]);
      class Sub extends PerformanceMark {}
      const sub = new Sub('sub');
      seen.push([sub.startTime, sub instanceof Sub, sub instanceof PerformanceMark]);
      seen.push(new globalThis.PerformanceMark('given', { startTime: 3 }).startTime);
      assert.throws(() => PerformanceMark('no new'), { name: 'TypeError', message: /cannot be invoked without 'new'/ });
    });
    await sim.run();
    // Before: the real process's uptime, a different figure every run.
    assert.deepEqual(seen, [[STARTUP_MS + 12, 'd', true, true], [STARTUP_MS + 12, true, true], 3]);
    assert.ok(new PerformanceMark('outside').startTime > STARTUP_MS + 12, 'outside every host the mark is Node\'s own');
  });

  it('a timerify histogram records a host\'s calls in virtual nanoseconds, the runner\'s in real ones (seed 0x3f)', async () => {
    const runOnce = async () => {
      const histogram = createHistogram();
      const sim = new Sim({ seed: 0x3f });
      let slowest;
      sim.host('n1', async () => {
        const add = performance.timerify((a, b) => a + b, { histogram });
        assert.equal(add(2, 3), 5);
        const wait = performance.timerify(async (ms) => sleep(ms), { histogram });
        await wait(30);
        await wait(7);
        slowest = histogram.max;
      });
      await sim.run();
      return { count: histogram.count, min: histogram.min, max: histogram.max, slowest };
    };
    const first = await runOnce();
    // Before, Node's real durations: a few microseconds for add, 30 ms and more for the waits.
    // (A histogram reports a value as the top of its bucket: 30 ms reads back as this.)
    const reference = createHistogram();
    reference.record(30_000_000);
    assert.deepEqual(first, { count: 3, min: 1, max: reference.max, slowest: reference.max });
    assert.deepEqual(await runOnce(), first);
    const outside = createHistogram();
    performance.timerify(() => {}, { histogram: outside })();
    assert.equal(outside.count, 1, 'a call outside every host is recorded by Node');
  });

  it('a simulated process is never told of a garbage collection (register mode, --expose-gc)', async () => {
    const program = `
      import { PerformanceObserver } from 'node:perf_hooks';
      const types = [];
      const observer = new PerformanceObserver((list) => types.push(...list.getEntries().map((entry) => entry.entryType)));
      observer.observe({ entryTypes: ['gc', 'mark'] });
      for (let i = 0; i < 3; i++) {
        globalThis.gc();
        performance.mark('after gc ' + i);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      observer.disconnect();
      console.log(types.join(' '));
    `;
    const run = (args, env) => promisify(execFile)(process.execPath, [...args, '--expose-gc', '--input-type=module', '-e', program], { env: { ...process.env, ...env } });
    const plain = await run([], {});
    assert.match(plain.stdout, /\bgc\b/, 'plain Node reports its collections');
    const simulated = await run(['--import', REGISTER], { DST_SEED: '0x3d', DST_QUIET: '1' });
    assert.equal(simulated.stdout, 'mark mark mark\n');
  });
});
