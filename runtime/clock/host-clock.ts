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

  constructor(bootNs: number, epochMs: number, skewMs: number, hrtimeOriginNs: number) {
    this.bootNs = bootNs;
    this.epochMs = epochMs;
    this.skewMs = skewMs;
    this.hrtimeOriginNs = hrtimeOriginNs;
  }

  /** Date.now(): integer milliseconds. */
  dateNowMs(nowNs: number): number {
    return this.epochMs + this.skewMs + Math.floor(nowNs / NS_PER_MS);
  }

  /** performance.now(): milliseconds since boot, with sub-millisecond digits. */
  perfNowMs(nowNs: number): number {
    return (nowNs - this.bootNs) / NS_PER_MS;
  }

  /** performance.timeOrigin: the wall-clock ms at boot. */
  timeOriginMs(): number {
    return this.epochMs + this.skewMs + this.bootNs / NS_PER_MS;
  }

  /** process.hrtime in nanoseconds (as a number; exact below 2^53). */
  hrtimeNs(nowNs: number): number {
    return this.hrtimeOriginNs + (nowNs - this.bootNs);
  }

  /** process.uptime() in seconds. */
  uptimeS(nowNs: number): number {
    return (nowNs - this.bootNs) / 1e9;
  }
}
