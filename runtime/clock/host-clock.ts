import { NS_PER_MS } from './units.js';

/**
 * How long a simulated process's start-up took before its program's first line runs, on its
 * monotonic clocks: performance.now() and process.uptime() read this much in the program's first
 * tick, as plain Node reads the 20-70 ms its own start-up took (25 ms: Node 24 on a quiet
 * machine). Code that takes 0 for "no start time" (lru-cache's ttl) sees a real start.
 * Date.now() is unaffected: performance.timeOrigin lies this much before the boot.
 */
export const STARTUP_MS = 25;
/** STARTUP_MS in nanoseconds. */
export const STARTUP_NS = STARTUP_MS * NS_PER_MS;

/**
 * One host's view of time. Virtual time (`nowNs`) is global to the simulation; each host reads it
 * through its own clock: Date is the simulation epoch plus the host's skew plus elapsed virtual
 * time (integer ms), and the monotonic clocks (performance.now, uptime) count from the host's
 * process start, STARTUP_NS before its program runs, so a restarted host starts again from there.
 *
 * Both can change while the host runs (Sim.setClock): a new skew is a jump of the wall clock
 * (Date jumps; performance.now, hrtime, uptime and performance.timeOrigin do not), a new drift
 * changes how fast every clock of the host runs from that instant on, continuously.
 */
export class HostClock {
  /** Virtual time at which this incarnation booted. */
  readonly bootNs: number;
  /** Wall-clock epoch of the simulation (Date.now() at nowNs = 0, before skew). */
  readonly epochMs: number;
  /** Offset of this host's wall clock from the simulation's, in ms (may be negative). */
  skewMs: number;
  /** The skew at boot: performance.timeOrigin is fixed then, as in Node. */
  private readonly bootSkewMs: number;
  /** Arbitrary origin of this host's hrtime, like a machine's uptime at process start. */
  readonly hrtimeOriginNs: number;
  /**
   * How fast this host's clocks run against virtual time: 1 + driftPpm / 1e6. A host with
   * rate 1.0001 sees 1.0001 s pass on its clocks (Date, performance, hrtime, and its timers)
   * for every virtual second.
   */
  rate: number;
  /** Since `anchorNs` (virtual) the clocks run at `rate` from `anchorLocalNs` (local). */
  private anchorNs: number;
  private anchorLocalNs: number;

  constructor(bootNs: number, epochMs: number, skewMs: number, hrtimeOriginNs: number, driftPpm = 0) {
    this.rate = 1 + driftPpm / 1e6;
    this.bootNs = bootNs;
    this.epochMs = epochMs;
    this.skewMs = skewMs;
    this.bootSkewMs = skewMs;
    this.hrtimeOriginNs = hrtimeOriginNs;
    this.anchorNs = bootNs;
    this.anchorLocalNs = bootNs;
  }

  /** Virtual time as this host's clocks see it (drift applies from its boot on). */
  localNs(nowNs: number): number {
    return this.rate === 1 && this.anchorNs === this.anchorLocalNs
      ? nowNs
      : this.anchorLocalNs + (nowNs - this.anchorNs) * this.rate;
  }

  /** How much virtual time a delay of `localNs` on this host's clock takes (integer ns). */
  virtualDelayNs(localNs: number): number {
    return this.rate === 1 ? localNs : Math.ceil(localNs / this.rate);
  }

  /** Changes the drift from `nowNs` on; every clock of the host goes on from where it is. */
  setDrift(driftPpm: number, nowNs: number): void {
    this.anchorLocalNs = this.localNs(nowNs);
    this.anchorNs = nowNs;
    this.rate = 1 + driftPpm / 1e6;
  }

  /** The drift in parts per million. */
  get driftPpm(): number {
    return (this.rate - 1) * 1e6;
  }

  /** Date.now(): integer milliseconds. */
  dateNowMs(nowNs: number): number {
    return this.epochMs + this.skewMs + Math.floor(this.localNs(nowNs) / NS_PER_MS);
  }

  /** performance.now(): milliseconds since the process started (STARTUP_NS before boot), with sub-millisecond digits. */
  perfNowMs(nowNs: number): number {
    return (this.localNs(nowNs) - this.bootNs + STARTUP_NS) / NS_PER_MS;
  }

  /**
   * Where the host's event loop started on its local clock: its boot, or later when its first
   * tick was busy (startLoopAt).
   */
  private loopStartLocalNs = -1;

  /** The host's first tick was busy until `nowNs` (virtual): its event loop starts there. */
  startLoopAt(nowNs: number): void {
    this.loopStartLocalNs = this.localNs(nowNs);
  }

  /** performance.nodeTiming.loopStart: STARTUP_MS, or later after a busy first tick. */
  loopStartMs(): number {
    return this.loopStartLocalNs < 0 ? STARTUP_NS / NS_PER_MS : (this.loopStartLocalNs - this.bootNs + STARTUP_NS) / NS_PER_MS;
  }

  /** Nanoseconds the host's event loop has run: performance.now() less the start-up and a busy first tick. */
  loopNs(nowNs: number): number {
    return this.localNs(nowNs) - (this.loopStartLocalNs < 0 ? this.bootNs : this.loopStartLocalNs);
  }

  /** performance.timeOrigin: the wall-clock ms at process start, STARTUP_NS before the boot. */
  timeOriginMs(): number {
    return this.epochMs + this.bootSkewMs + (this.bootNs - STARTUP_NS) / NS_PER_MS;
  }

  /** process.hrtime in nanoseconds (as a number; exact below 2^53). */
  hrtimeNs(nowNs: number): number {
    return this.hrtimeOriginNs + Math.round(this.localNs(nowNs) - this.bootNs);
  }

  /** process.uptime() in seconds, since the process started (STARTUP_NS before boot). */
  uptimeS(nowNs: number): number {
    return (this.localNs(nowNs) - this.bootNs + STARTUP_NS) / 1e9;
  }
}
