/**
 * Machine readings inside a host (shims/process/machine.ts, issue 20 item 2) and clock reads that spin
 * (World.clockNowNs, issue 20 item 3): every value a program can read that plainly differs
 * between two runs of one seed is simulated per host.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import v8 from 'node:v8';
import util from 'node:util';
import perfHooks, { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Sim, STARTUP_MS } from 'dst-runtime';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const REGISTER = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Everything a host can read of its machine, at once. */
function readings() {
  const { pid, ppid } = process;
  return {
    cpu: process.cpuUsage(),
    resource: process.resourceUsage(),
    memory: process.memoryUsage(),
    rss: process.memoryUsage.rss(),
    loadavg: os.loadavg(),
    freemem: os.freemem(),
    totalmem: os.totalmem(),
    cpus: os.cpus(),
    parallelism: os.availableParallelism(),
    heap: v8.getHeapStatistics(),
    spaces: v8.getHeapSpaceStatistics(),
    elu: performance.eventLoopUtilization(),
    pid,
    ppid,
  };
}

/** Runs a host that does `events` timer ticks and reads its machine after each; returns what it read. */
async function observe(seed, events = 5) {
  const seen = [];
  const sim = new Sim({ seed });
  sim.host('n1', () => {
    let n = 0;
    const timer = setInterval(() => {
      seen.push(readings());
      if (++n === events) clearInterval(timer);
    }, 10);
  });
  const result = await sim.run();
  return { seen, fingerprint: result.fingerprint };
}

describe('machine readings inside a host (seed 0x3a)', () => {
  it('are the same on every run of one seed, though plainly they differ from call to call', async () => {
    const plainA = process.cpuUsage();
    for (let i = 0; i < 1e5; i++) Math.sqrt(i);
    assert.notDeepEqual(process.cpuUsage(), plainA, 'plain cpuUsage moves (the test runner is outside every host)');
    const first = await observe(0x3a);
    const second = await observe(0x3a);
    assert.deepEqual(second.seen, first.seen);
    assert.equal(second.fingerprint, first.fingerprint);
  });

  it('count the host\'s CPU time from its events, 10 µs each, 90% user and 10% system', async () => {
    const { seen } = await observe(0x3a, 4);
    // Event n of the host is its boot (1), then the ticks (2, 3, ...); a tick reads during its event.
    assert.deepEqual(seen.map((r) => r.cpu), [
      { user: 18, system: 2 },
      { user: 27, system: 3 },
      { user: 36, system: 4 },
      { user: 45, system: 5 },
    ]);
    assert.deepEqual(seen.map((r) => [r.resource.userCPUTime, r.resource.systemCPUTime]), seen.map((r) => [r.cpu.user, r.cpu.system]));
    assert.equal(seen[0].resource.voluntaryContextSwitches, 2);
    // Event-loop utilization: active is the CPU time, idle the rest of the uptime (ms).
    assert.deepEqual(seen[3].elu, { idle: 40 - 0.05, active: 0.05, utilization: 0.05 / 40 });
  });

  it('describe a fixed machine: memory, load, CPUs and heap', async () => {
    const { seen } = await observe(0x3a, 1);
    const [r] = seen;
    assert.deepEqual(r.memory, { rss: 64 * 2 ** 20, heapTotal: 16 * 2 ** 20, heapUsed: 8 * 2 ** 20, external: 2 * 2 ** 20, arrayBuffers: 256 * 1024 });
    assert.equal(r.rss, r.memory.rss);
    assert.deepEqual(r.loadavg, [0, 0, 0]);
    assert.deepEqual([r.freemem, r.totalmem], [6 * 2 ** 30, 8 * 2 ** 30]);
    assert.equal(r.cpus.length, 4);
    assert.equal(r.parallelism, 4);
    assert.deepEqual(r.cpus[1], { model: 'dst-runtime virtual CPU', speed: 2400, times: { user: 0, nice: 0, sys: 0, idle: STARTUP_MS + 10, irq: 0 } });
    // Node's own keys, in Node's order, whatever the version.
    assert.deepEqual(Object.keys(r.heap), Object.keys(v8.getHeapStatistics()));
    assert.equal(r.heap.used_heap_size, 8 * 2 ** 20);
    assert.deepEqual(r.spaces.map((s) => s.space_name), v8.getHeapSpaceStatistics().map((s) => s.space_name));
  });

  it("navigator.hardwareConcurrency is the machine's CPU count inside a host, the real one outside (Node 21+)", async function () {
    if (typeof globalThis.navigator !== 'object') this.skip(); // Node 20 has no navigator
    let inside;
    const sim = new Sim({ seed: 0x3a });
    sim.client('c', () => {
      inside = [navigator.hardwareConcurrency, os.availableParallelism()];
    });
    await sim.run();
    assert.deepEqual(inside, [4, 4]);
    assert.equal(navigator.hardwareConcurrency, os.availableParallelism());
    // Node's brand check, inside a host as outside.
    const get = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(navigator), 'hardwareConcurrency').get;
    assert.equal(get.name, 'get hardwareConcurrency');
    assert.throws(() => get.call({}), TypeError);
  });

  it('navigator.hardwareConcurrency read first in register mode (the shim installs as navigator loads): 4 (Node 21+)', async function () {
    if (typeof globalThis.navigator !== 'object') this.skip();
    const { stdout } = await execFileAsync(process.execPath, ['--import', REGISTER, '-e', 'console.log(navigator.hardwareConcurrency)'], {
      env: { ...process.env, DST_SEED: '0x3a', DST_QUIET: '1' },
    });
    assert.equal(stdout.trim(), '4');
  });

  it('validate their arguments as Node does, inside a host too', async () => {
    const outside = (() => {
      try {
        process.cpuUsage({ user: -1, system: 0 });
      } catch (error) {
        return { code: error.code, message: error.message, name: error.name };
      }
      return undefined;
    })();
    assert.equal(outside?.code, 'ERR_INVALID_ARG_VALUE');
    let inside;
    const sim = new Sim({ seed: 0x3a });
    sim.host('n1', () => {
      try {
        process.cpuUsage({ user: -1, system: 0 });
      } catch (error) {
        inside = { code: error.code, message: error.message, name: error.name };
      }
      // cpuUsage(previous) is the difference, as in Node.
      const before = process.cpuUsage();
      setTimeout(() => {
        inside.delta = process.cpuUsage(before);
      }, 5);
    });
    await sim.run();
    assert.deepEqual({ ...inside, delta: undefined }, { ...outside, delta: undefined });
    assert.deepEqual(inside.delta, { user: 9, system: 1 });
  });

  it('give each host incarnation its own process ids, from the seed', async () => {
    const ids = [];
    const sim = new Sim({ seed: 0x3a });
    for (const name of ['a', 'b']) sim.host(name, () => ids.push([name, process.pid, process.ppid]));
    sim.client('operator', async () => {
      await sleep(5);
      sim.crash('a');
      sim.restart('a');
      await sleep(5);
    });
    await sim.run();
    assert.equal(ids.length, 3);
    assert.notEqual(ids[0][1], process.pid, 'not the real pid');
    assert.notEqual(ids[2][1], ids[0][1], 'a restarted host is a new process');
    for (const [, pid, ppid] of ids) {
      assert.ok(Number.isInteger(pid) && pid >= 100 && pid < 32768, `pid ${pid}`);
      assert.ok(Number.isInteger(ppid) && ppid >= 2 && ppid < 100, `ppid ${ppid}`);
    }
    const again = [];
    const replay = new Sim({ seed: 0x3a });
    for (const name of ['a', 'b']) replay.host(name, () => again.push([name, process.pid, process.ppid]));
    await replay.run();
    assert.deepEqual(again, ids.slice(0, 2));
  });

  it('eventLoopUtilization: zeros before the loop starts whatever it is given, an idle delta of exactly 0 over busy code, the aliases Node has', async () => {
    const seen = {};
    const sim = new Sim({ seed: 0x3a });
    sim.host('n1', () => {
      const elu = performance.eventLoopUtilization;
      seen.top = [elu(), elu({ idle: 5, active: 3 }, { idle: 1, active: 1 })];
      // Newer Node 24 exports both from perf_hooks too, the same functions as performance's.
      seen.aliases = [perfHooks.eventLoopUtilization, perfHooks.timerify].map((f) => f === undefined || f === elu || f === performance.timerify);
      setTimeout(() => {
        const before = elu();
        const t0 = performance.now();
        while (performance.now() < t0 + 20);
        const during = elu(before);
        seen.busy = { idle: during.idle, utilization: during.utilization, activeMs: Math.round(during.active) };
      }, 10);
    });
    await sim.run();
    assert.deepEqual(seen, {
      top: [{ idle: 0, active: 0, utilization: 0 }, { idle: 0, active: 0, utilization: 0 }],
      aliases: [true, true],
      busy: { idle: 0, utilization: 1, activeMs: 20 },
    });
  });

  it('monitorEventLoopDelay gives a host what Node gives: an ELDHistogram, disposable where Node 24 makes it so', async () => {
    const plain = monitorEventLoopDelay();
    let seen;
    const sim = new Sim({ seed: 0x3a });
    sim.host('n1', () => {
      const histogram = monitorEventLoopDelay();
      histogram.enable();
      const dispose = histogram[Symbol.dispose];
      seen = {
        sameClass: Object.getPrototypeOf(histogram) === Object.getPrototypeOf(plain),
        inspected: util.inspect(histogram, { depth: -1 }),
        disposable: typeof dispose,
        disabledByDispose: typeof dispose === 'function' ? (dispose.call(histogram), histogram.disable()) : 'n/a',
      };
    });
    await sim.run();
    assert.deepEqual(seen, {
      sameClass: true,
      inspected: util.inspect(plain, { depth: -1 }),
      disposable: typeof plain[Symbol.dispose],
      disabledByDispose: typeof plain[Symbol.dispose] === 'function' ? false : 'n/a',
    });
  });

  it('monitorEventLoopDelay samples every resolution ms of the host\'s clock, and sees a stall', async () => {
    let stats;
    const sim = new Sim({ seed: 0x3a });
    sim.host('n1', () => {
      const histogram = monitorEventLoopDelay({ resolution: 20 });
      assert.equal(histogram.enable(), true);
      assert.equal(histogram.enable(), false);
      setTimeout(() => {
        // A 50 ms busy wait: the samples due meanwhile come late.
        const t0 = performance.now();
        while (performance.now() < t0 + 50);
      }, 100);
      setTimeout(() => {
        assert.equal(histogram.disable(), true);
        stats = { min: histogram.min, max: histogram.max, count: histogram.count };
      }, 300);
    });
    await sim.run();
    // A RecordableHistogram keeps 3 significant digits: 20 ms is recorded as 19.99 ms.
    assert.ok(Math.abs(stats.min - 20e6) < 20e3, `min ${stats.min}`);
    assert.ok(stats.max >= 50e6, `max ${stats.max}`);
    assert.ok(stats.count >= 10 && stats.count <= 14, `count ${stats.count}`);
  });

  it('outside every host are Node\'s own, and restored after the run', async () => {
    const before = [process.cpuUsage, process.resourceUsage, process.memoryUsage, os.cpus, os.loadavg, v8.getHeapStatistics, monitorEventLoopDelay];
    const pid = process.pid;
    const sim = new Sim({ seed: 0x3a });
    let outsideDuring;
    sim.host('n1', () => setTimeout(() => {}, 10));
    sim.client('c', async () => {
      await sleep(1);
    });
    const run = sim.run();
    outsideDuring = process.pid;
    await run;
    assert.equal(outsideDuring, pid);
    assert.deepEqual([process.cpuUsage, process.resourceUsage, process.memoryUsage, os.cpus, os.loadavg, v8.getHeapStatistics, monitorEventLoopDelay], before);
    assert.equal(process.pid, pid);
  });
});

describe('clock reads that spin (seed 0x3b)', () => {
  it('a busy wait on the clock ends; the host\'s CPU time and its late events show it, another host is not delayed', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x3b });
    sim.host('spinner', () => {
      setTimeout(() => {
        const t0 = performance.now();
        setTimeout(() => log.push(`spinner timer at ${performance.now()}`), 5);
        while (performance.now() < t0 + 30);
        log.push(`spinner spun until ${performance.now()}, cpu ${process.cpuUsage().user + process.cpuUsage().system} µs`);
      }, 10);
    });
    sim.host('other', () => {
      setTimeout(() => log.push(`other at ${performance.now()}`), 20);
    });
    await sim.run();
    // The spin started at 10 ms: 10,000 free reads, then 1 µs per read, past 40 ms (performance.now()
    // counts STARTUP_MS more: the process's start-up).
    assert.match(log[0], new RegExp(`^spinner spun until ${STARTUP_MS + 40}\\.\\d+, cpu 30\\d{3} µs$`));
    assert.equal(log[1], `other at ${STARTUP_MS + 20}`, 'the other host ran on time meanwhile');
    assert.match(log[2], new RegExp(`^spinner timer at ${STARTUP_MS + 40}\\.\\d+$`), 'the timer due at 15 ms ran when the spin was over');
    assert.equal(log.length, 3);
  });

  it('ordinary code sees frozen time: 10,000 reads in one event do not move the clock', async () => {
    let reads;
    const sim = new Sim({ seed: 0x3b });
    sim.host('n1', () => {
      setTimeout(() => {
        const seen = new Set();
        for (let i = 0; i < 10_000; i++) seen.add(Date.now());
        reads = [...seen];
        reads.push(performance.now());
      }, 1);
    });
    await sim.run();
    // The 10,001st read is the first that takes time.
    assert.deepEqual(reads, [Date.UTC(2025, 0, 1) + 1, STARTUP_MS + 1.001]);
  });
});
