/**
 * Readings of the machine inside a host: CPU time, memory, load, the event loop's utilization and
 * delay. Plainly they differ on every run, so a program that branches on them (a load shedder, a
 * memory guard, an adaptive batch size) would run differently under one seed. Inside a host each
 * is the reading of a simulated machine instead:
 *
 * - CPU time is the host's own (Host.cpuNs): EVENT_CPU_NS per event the incarnation ran, plus the
 *   time its code spent spinning on the clock. 90% of it is user time, 10% system time.
 *   process.cpuUsage(), threadCpuUsage(), resourceUsage() and os.cpus()'s times report it.
 * - Memory is a fixed picture (MACHINE below): process.memoryUsage(), memoryUsage.rss(),
 *   resourceUsage().maxRSS, os.freemem()/totalmem(), constrainedMemory()/availableMemory(), and
 *   v8's heap statistics (Node's own keys, fixed values).
 * - The machine has MACHINE.cpus CPUs (os.cpus(), os.availableParallelism(),
 *   navigator.hardwareConcurrency) and no load
 *   (os.loadavg() is [0, 0, 0]).
 * - performance.eventLoopUtilization(): active time is the host's CPU time, idle time the rest of
 *   its uptime. monitorEventLoopDelay(): a histogram fed, every `resolution` ms of the host's
 *   clock, with the time since the last sample (ns), as Node's native timer does — so a host
 *   that stalls (a busy loop, a stall fault) shows the delay. A histogram's recordDelta() counts
 *   on the host's clock too.
 *
 * Each replacement calls Node's function first, with the program's arguments, so validation and
 * errors are Node's own; only the numbers are replaced. Outside every host (the test runner)
 * everything is Node's.
 */
import os from 'node:os';
import perfHooks, { createHistogram, performance as perf } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import type v8Module from 'node:v8';
import { currentHost, type Host } from '../context.js';
import { mirrorSignature, type PatchSet } from '../registry.js';
import type { Realm, Shim } from '../shim.js';

const MiB = 1024 * 1024;

/** The simulated machine every host runs on. */
export const MACHINE = {
  cpus: 4,
  cpuModel: 'dst-runtime virtual CPU',
  cpuSpeedMHz: 2400,
  totalMemBytes: 8192 * MiB,
  freeMemBytes: 6144 * MiB,
  rssBytes: 64 * MiB,
  heapTotalBytes: 16 * MiB,
  heapUsedBytes: 8 * MiB,
  externalBytes: 2 * MiB,
  arrayBuffersBytes: 256 * 1024,
  heapLimitBytes: 4096 * MiB,
} as const;

/** The host's CPU time in microseconds, split as user and system time. */
function cpuMicros(host: Host): { user: number; system: number } {
  const total = Math.floor(host.cpuNs / 1000);
  const system = Math.floor(total / 10);
  return { user: total - system, system };
}

type Fn = (this: unknown, ...args: any[]) => any;

/** A stand-in for `real` that calls it first (Node's validation), then answers `simulated` inside a host. */
function inHost(real: Fn, simulated: (host: Host, args: any[], realResult: any) => unknown): Fn {
  const fn = function (this: unknown, ...args: any[]) {
    const result = Reflect.apply(real, this, args);
    const host = currentHost();
    return host === undefined ? result : simulated(host, args, result);
  };
  mirrorSignature(fn, real);
  return fn;
}

/** Node's arithmetic on a previous cpuUsage() value (it has validated the argument already). */
function sinceMicros(now: { user: number; system: number }, prev: unknown): { user: number; system: number } {
  if (!prev) return now;
  const p = prev as { user: number; system: number };
  return { user: now.user - p.user, system: now.system - p.system };
}

function resourceUsage(host: Host): NodeJS.ResourceUsage {
  const { user, system } = cpuMicros(host);
  return {
    userCPUTime: user,
    systemCPUTime: system,
    maxRSS: MACHINE.rssBytes / 1024,
    sharedMemorySize: 0,
    unsharedDataSize: 0,
    unsharedStackSize: 0,
    minorPageFault: 0,
    majorPageFault: 0,
    swappedOut: 0,
    fsRead: 0,
    fsWrite: 0,
    ipcSent: 0,
    ipcReceived: 0,
    signalsCount: 0,
    voluntaryContextSwitches: host.eventsRun,
    involuntaryContextSwitches: 0,
  };
}

function memoryUsage(): NodeJS.MemoryUsage {
  return {
    rss: MACHINE.rssBytes,
    heapTotal: MACHINE.heapTotalBytes,
    heapUsed: MACHINE.heapUsedBytes,
    external: MACHINE.externalBytes,
    arrayBuffers: MACHINE.arrayBuffersBytes,
  };
}

/** os.cpus(): MACHINE.cpus CPUs sharing the host's CPU time, idle for the rest of its uptime (ms). */
function cpus(host: Host): os.CpuInfo[] {
  const { user, system } = cpuMicros(host);
  const uptimeMs = Math.floor(host.clock.uptimeS(host.readNowNs()) * 1000);
  const out: os.CpuInfo[] = [];
  for (let i = 0; i < MACHINE.cpus; i++) {
    const userMs = i === 0 ? Math.floor(user / 1000) : 0;
    const sysMs = i === 0 ? Math.floor(system / 1000) : 0;
    out.push({
      model: MACHINE.cpuModel,
      speed: MACHINE.cpuSpeedMHz,
      times: { user: userMs, nice: 0, sys: sysMs, idle: Math.max(0, uptimeMs - userMs - sysMs), irq: 0 },
    });
  }
  return out;
}

/** v8.getHeapStatistics() with Node's own keys (they differ between versions) and fixed values. */
const HEAP_STATISTICS: Record<string, number> = {
  total_heap_size: MACHINE.heapTotalBytes,
  total_heap_size_executable: 512 * 1024,
  total_physical_size: MACHINE.heapTotalBytes,
  total_available_size: MACHINE.heapLimitBytes - MACHINE.heapUsedBytes,
  used_heap_size: MACHINE.heapUsedBytes,
  heap_size_limit: MACHINE.heapLimitBytes,
  malloced_memory: 256 * 1024,
  peak_malloced_memory: 1 * MiB,
  does_zap_garbage: 0,
  number_of_native_contexts: 1,
  number_of_detached_contexts: 0,
  total_global_handles_size: 8192,
  used_global_handles_size: 4096,
  external_memory: MACHINE.externalBytes,
};

function fixedNumbers<T extends object>(real: T, table: Record<string, number>, otherwise: number): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(real)) out[key] = typeof value === 'number' ? (table[key] ?? otherwise) : value;
  return out as T;
}

/** performance.eventLoopUtilization() of a host: active = its CPU time, idle = the rest of its loop's time (ms). */
function eventLoopUtilization(host: Host, util1?: unknown, util2?: unknown): { idle: number; active: number; utilization: number } {
  const a = util1 as { idle: number; active: number } | undefined;
  const b = util2 as { idle: number; active: number } | undefined;
  // Before the loop starts (the program's first tick: nodeTiming.loopStart is -1), Node answers
  // zeros whatever it is given.
  if (host.world.bootRunning) return { idle: 0, active: 0, utilization: 0 };
  if (b) {
    const idle = a!.idle - b.idle;
    const active = a!.active - b.active;
    return { idle, active, utilization: active / (idle + active) };
  }
  // The loop's time: since it started, after the program's first tick (nodeTiming.loopStart).
  // In nanoseconds, then ms: idle stays the same number while the loop is busy (a delta of
  // exactly 0, as Node's loop idle time), where a difference of ms values drifted by 1e-15.
  const loopNs = host.clock.loopNs(host.readNowNs());
  const activeNs = Math.min(host.cpuNs - host.bootSpunNs, loopNs);
  const active = activeNs / 1e6;
  const idle = (loopNs - activeNs) / 1e6;
  if (!a) return { idle, active, utilization: idle + active === 0 ? 0 : active / (idle + active) };
  const idleDelta = idle - a.idle;
  const activeDelta = active - a.active;
  return { idle: idleDelta, active: activeDelta, utilization: activeDelta / (idleDelta + activeDelta) };
}

/**
 * monitorEventLoopDelay() inside a host: a RecordableHistogram with enable()/disable(), fed by a
 * sampler event of the host every `resolution` ms of its clock (unref'd: it keeps nothing alive).
 */
function eventLoopDelayMonitor(host: Host, resolutionMs: number, real: object): object {
  const histogram = createHistogram() as ReturnType<typeof createHistogram> & { enable?: () => boolean; disable?: () => boolean };
  const recordValue = histogram.record;
  // It is Node's ELDHistogram to the program (its class, inspect's name, Node 24's
  // Symbol.dispose, which disables it), with the recordable histogram's handle underneath.
  Object.setPrototypeOf(histogram, Object.getPrototypeOf(real));
  delete (histogram as { constructor?: unknown }).constructor; // createHistogram's own one
  const world = host.world;
  const delayNs = resolutionMs * 1e6;
  let generation = 0;
  let enabled = false;
  let lastNs = 0;
  const sample = (expected: number) => {
    if (!enabled || expected !== generation || host.state !== 'running') return;
    const nowNs = host.readNowNs();
    const elapsedNs = Math.round(nowNs - lastNs);
    if (elapsedNs > 0) Reflect.apply(recordValue, histogram, [elapsedNs]);
    lastNs = nowNs;
    world.schedule(host, host.clock.virtualDelayNs(delayNs), 'timeout', () => sample(expected), undefined, false);
  };
  Object.defineProperty(histogram, 'enable', {
    value: function enable(): boolean {
      if (enabled) return false;
      enabled = true;
      generation++;
      lastNs = host.readNowNs();
      const current = generation;
      world.schedule(host, host.clock.virtualDelayNs(delayNs), 'timeout', () => sample(current), undefined, false);
      return true;
    },
    writable: true,
    configurable: true,
  });
  Object.defineProperty(histogram, 'disable', {
    value: function disable(): boolean {
      if (!enabled) return false;
      enabled = false;
      generation++;
      return true;
    },
    writable: true,
    configurable: true,
  });
  return histogram;
}

/**
 * RecordableHistogram#recordDelta() inside a host: the time since the histogram's previous
 * recordDelta() on the host's clock (Node's reads uv_hrtime natively). The first call only
 * starts the count, as Node's does; a delta within one instant counts as 1 ns (a histogram
 * records values from 1 on).
 */
const lastDeltaNs = new WeakMap<object, number>();
function recordDelta(host: Host, histogram: { record(value: number): void }): void {
  const nowNs = host.readNowNs();
  const lastNs = lastDeltaNs.get(histogram);
  lastDeltaNs.set(histogram, nowNs);
  if (lastNs !== undefined) histogram.record(Math.max(1, Math.round(nowNs - lastNs)));
}

export const machineShim: Shim = {
  name: 'machine',
  realm(patches: PatchSet, realm: Realm) {
    if (realm.process === undefined) return;
    const p = realm.process as unknown as Record<string, Fn>;
    patches.replace(p, 'cpuUsage', inHost(p.cpuUsage!, (host, [prev]) => sinceMicros(cpuMicros(host), prev)));
    if (typeof p.threadCpuUsage === 'function') {
      patches.replace(p, 'threadCpuUsage', inHost(p.threadCpuUsage, (host, [prev]) => sinceMicros(cpuMicros(host), prev)));
    }
    patches.replace(p, 'resourceUsage', inHost(p.resourceUsage!, (host) => resourceUsage(host)));
    const realMemoryUsage = p.memoryUsage! as Fn & { rss: Fn };
    const simMemoryUsage = inHost(realMemoryUsage, () => memoryUsage()) as Fn & { rss?: Fn };
    simMemoryUsage.rss = inHost(realMemoryUsage.rss, () => MACHINE.rssBytes);
    patches.replace(p, 'memoryUsage', simMemoryUsage);
    if (typeof p.constrainedMemory === 'function') patches.replace(p, 'constrainedMemory', inHost(p.constrainedMemory, () => 0));
    if (typeof p.availableMemory === 'function') patches.replace(p, 'availableMemory', inHost(p.availableMemory, () => MACHINE.freeMemBytes));
  },
  install(patches: PatchSet) {
    const o = os as unknown as Record<string, Fn>;
    patches.replace(o, 'cpus', inHost(o.cpus!, (host) => cpus(host)));
    if (typeof o.availableParallelism === 'function') patches.replace(o, 'availableParallelism', inHost(o.availableParallelism, () => MACHINE.cpus));
    patches.replace(o, 'loadavg', inHost(o.loadavg!, () => [0, 0, 0]));
    patches.replace(o, 'freemem', inHost(o.freemem!, () => MACHINE.freeMemBytes));
    patches.replace(o, 'totalmem', inHost(o.totalmem!, () => MACHINE.totalMemBytes));

    const perfPrototype = Object.getPrototypeOf(perf) as Record<string, Fn>;
    const realElu = perfPrototype.eventLoopUtilization!;
    const elu = inHost(realElu, (host, [u1, u2]) => eventLoopUtilization(host, u1, u2));
    patches.replace(perfPrototype, 'eventLoopUtilization', elu);
    const hooksModule = perfHooks as unknown as Record<string, Fn>;
    // Newer Node 24 also exports it from perf_hooks, the same function as performance's.
    if (hooksModule.eventLoopUtilization === realElu) patches.replace(hooksModule, 'eventLoopUtilization', elu);
    const realMonitorEventLoopDelay = hooksModule.monitorEventLoopDelay!;
    const monitor = function monitorEventLoopDelay(this: unknown, ...args: any[]): unknown {
      const real = Reflect.apply(realMonitorEventLoopDelay, this, args);
      const host = currentHost();
      if (host === undefined) return real;
      const options = args[0] as { resolution?: number } | undefined;
      return eventLoopDelayMonitor(host, options?.resolution ?? 10, real as object);
    };
    mirrorSignature(monitor, realMonitorEventLoopDelay);
    patches.replace(hooksModule, 'monitorEventLoopDelay', monitor);
    const histogramPrototype = Object.getPrototypeOf(createHistogram()) as Record<string, Fn>;
    const realRecordDelta = histogramPrototype.recordDelta;
    if (typeof realRecordDelta === 'function') {
      const simulatedRecordDelta = function recordDeltaInHost(this: unknown, ...args: any[]): unknown {
        const host = currentHost();
        if (host === undefined) return Reflect.apply(realRecordDelta, this, args);
        recordDelta(host, this as { record(value: number): void });
        return undefined;
      };
      mirrorSignature(simulatedRecordDelta, realRecordDelta);
      patches.replace(histogramPrototype, 'recordDelta', simulatedRecordDelta);
    }
  },
};

/**
 * `navigator.hardwareConcurrency` (Node 21+) inside a host: the simulated machine's CPUs, as
 * os.availableParallelism() says there. Plainly it is the real machine's count, so a pool sized
 * by it ran differently under one seed on another machine (2 cores in CI, 16 on a laptop).
 * Navigator's getter lives on Navigator.prototype and caches the real count in a private field;
 * the replacement calls it first (its brand check throws Node's TypeError for a foreign `this`).
 * Installed when Node's navigator module loads (the first read of `globalThis.navigator`): an
 * empty program never loads it.
 */
export const navigatorShim: Shim = {
  name: 'navigator',
  builtins: ['internal/navigator'],
  install(patches: PatchSet) {
    // Inside the lazy global's first read this reads it again: the module has loaded by then.
    const navigator = (globalThis as { navigator?: object }).navigator;
    if (typeof navigator !== 'object' || navigator === null) return;
    const prototype = Object.getPrototypeOf(navigator) as object;
    const descriptor = Object.getOwnPropertyDescriptor(prototype, 'hardwareConcurrency');
    const realGet = descriptor?.get;
    if (realGet === undefined) return;
    const get = function (this: unknown): unknown {
      const real = Reflect.apply(realGet, this, []);
      return currentHost() === undefined ? real : MACHINE.cpus;
    };
    Object.defineProperty(get, 'name', { value: realGet.name, configurable: true });
    patches.defineGetter(prototype, 'hardwareConcurrency', get, descriptor!.enumerable ?? false);
  },
};

/**
 * `gc()` (--expose-gc) inside a host: after the collection the rest of Node's turn is left to
 * Node (World.yieldTurn), so what the collection set off runs before the host's next immediate,
 * as in Node: async_hooks' destroy callbacks of the resources it freed come from Node's native
 * immediates, which run at the start of the next check phase, and the simulation's events ran
 * up to 256 to a turn (Node's test-net-connect-memleak and the other tests that watch an object
 * die with common/ongc failed). The collection itself is Node's.
 */
export const gcShim: Shim = {
  name: 'gc',
  install() {},
  realm(patches: PatchSet, realm: Realm) {
    const realGc = realm.global.gc;
    if (typeof realGc !== 'function') return;
    const gc = function gc(this: unknown, ...args: unknown[]): unknown {
      const result = Reflect.apply(realGc, this, args);
      currentHost()?.world.yieldTurn();
      return result;
    };
    mirrorSignature(gc, realGc);
    // V8 makes `gc` writable but not configurable: assigned, not redefined.
    const global = realm.global;
    global.gc = gc;
    patches.onRestore(() => {
      if (global.gc === gc) global.gc = realGc;
    });
  },
};

/**
 * v8's heap statistics, installed at node:v8's first load (Shim.builtins): loading it at start
 * cost every program about 2 ms of CPU (figure 12).
 */
export const v8HeapShim: Shim = {
  name: 'machine-v8',
  builtins: ['v8'],
  install(patches: PatchSet) {
    const v = createRequire(__filename)('node:v8') as typeof v8Module as unknown as Record<string, Fn>;
    patches.replace(v, 'getHeapStatistics', inHost(v.getHeapStatistics!, (_h, _a, real) => fixedNumbers(real, HEAP_STATISTICS, 0)));
    patches.replace(
      v,
      'getHeapSpaceStatistics',
      inHost(v.getHeapSpaceStatistics!, (_h, _a, real: object[]) =>
        real.map((space) => fixedNumbers(space, { space_size: MiB, space_used_size: MiB / 2, space_available_size: MiB / 2, physical_space_size: MiB }, 0)),
      ),
    );
    patches.replace(
      v,
      'getHeapCodeStatistics',
      inHost(v.getHeapCodeStatistics!, (_h, _a, real) => fixedNumbers(real, { code_and_metadata_size: 256 * 1024, bytecode_and_metadata_size: 512 * 1024 }, 0)),
    );
  },
};
