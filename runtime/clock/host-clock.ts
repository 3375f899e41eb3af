import { NS_PER_MS } from './units.js';

/**
 * One host's view of time. Virtual time (`nowNs`) is global to the simulation; each host reads it
 * through its own clock: Date is the simulation epoch plus the host's skew plus elapsed virtual
 * time (integer ms), and the monotonic clocks (performance.now, hrtime, uptime) count from the
 * host's boot, so a restarted host starts again from zero.
 */
export class HostClock {
  /** Virtual time at which this incarnation booted. */
  readonly bootNs: number;
  /** Wall-clock epoch of the simulation (Date.now() at nowNs = 0, before skew). */
  readonly epochMs: number;
  /** Offset of this host's wall clock from the simulation's, in ms (may be negative). */
  skewMs: number;
  /** Arbitrary origin of this host's hrtime, like a machine's uptime at process start. */
  readonly hrtimeOriginNs: number;
  /**
   * How fast this host's clocks run against virtual time: 1 + driftPpm / 1e6. A host with
   * rate 1.0001 sees 1.0001 s pass on its clocks (Date, performance, hrtime, and its timers)
   * for every virtual second.
   */
  readonly rate: number;

  constructor(bootNs: number, epochMs: number, skewMs: number, hrtimeOriginNs: number, driftPpm = 0) {
    this.rate = 1 + driftPpm / 1e6;
    this.bootNs = bootNs;
    this.epochMs = epochMs;
    this.skewMs = skewMs;
    this.hrtimeOriginNs = hrtimeOriginNs;
  }

  /** Virtual time as this host's clocks see it (drift applies from its boot on). */
  localNs(nowNs: number): number {
    return this.rate === 1 ? nowNs : this.bootNs + (nowNs - this.bootNs) * this.rate;
  }

  /** How much virtual time a delay of `localNs` on this host's clock takes (integer ns). */
  virtualDelayNs(localNs: number): number {
    return this.rate === 1 ? localNs : Math.ceil(localNs / this.rate);
  }

  /** Date.now(): integer milliseconds. */
  dateNowMs(nowNs: number): number {
    return this.epochMs + this.skewMs + Math.floor(this.localNs(nowNs) / NS_PER_MS);
  }

  /** performance.now(): milliseconds since boot, with sub-millisecond digits. */
  perfNowMs(nowNs: number): number {
    return (this.localNs(nowNs) - this.bootNs) / NS_PER_MS;
  }

  /** performance.timeOrigin: the wall-clock ms at boot. */
  timeOriginMs(): number {
    return this.epochMs + this.skewMs + this.bootNs / NS_PER_MS;
  }

  /** process.hrtime in nanoseconds (as a number; exact below 2^53). */
  hrtimeNs(nowNs: number): number {
    return this.hrtimeOriginNs + Math.round(this.localNs(nowNs) - this.bootNs);
  }

  /** process.uptime() in seconds. */
  uptimeS(nowNs: number): number {
    return (this.localNs(nowNs) - this.bootNs) / 1e9;
  }
}
