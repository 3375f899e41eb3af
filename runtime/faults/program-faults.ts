/**
 * Production-shaped faults for a plain program (register mode with DST_FAULTS): a run's fault mix
 * (plan.ts) turned into network rules, event-loop lag and stalls of chains, and wall-clock steps.
 *
 * Lag and stalls hit one chain at a time (docs/architecture.md, "Faults for plain programs"): in a
 * plain program every "node" shares one host, so a chain — a listening server with the
 * connections it accepted, a client connection the top level opened, and the timers each of them
 * chains — stands for the process it would be in production.
 */
import { NS_PER_MS } from '../clock/units.js';
import { DatagramLossRule, JitterRule, ResetRule, TailLatencyRule } from '../network/rules.js';
import { RandomStream } from '../random/stream.js';
import type { World, WorldHost } from '../world.js';
import { drawFaultMix, type FaultMix, type FaultSpec, rateOf } from './plan.js';

/** The period lag and stalls are drawn for, per chain. */
const PERIOD_NS = 100 * NS_PER_MS;
/** Lateness one event of a lagging chain adds: exponential with this mean, capped. */
const LAG_EVENT_MEAN_NS = 10 * NS_PER_MS;
const LAG_EVENT_MAX_NS = 100 * NS_PER_MS;
/** A stall lasts 10-500 ms. */
const STALL_MIN_NS = 10 * NS_PER_MS;
const STALL_MAX_NS = 500 * NS_PER_MS;
/** How many periods back a stall that covers an instant may have started. */
const STALL_PERIODS_BACK = Math.ceil(STALL_MAX_NS / PERIOD_NS);
/** A wall-clock step goes to an offset within +-1 s. */
const SKEW_STEP_MS_MAX = 1000;

/** A stall window [startNs, endNs), or null when the period has none. */
type Window = readonly [number, number] | null;

/** "latencyTailMs=20 lagRatio=0.2 ...": a mix as it prints. */
export function formatMix(mix: FaultMix): string {
  return Object.entries(mix).map(([k, v]) => `${k}=${v}`).join(' ');
}

export class ProgramFaults {
  readonly mix: FaultMix;
  private readonly lagRatio: number;
  private readonly stallPerPeriod: number;
  /** Per chain: the period last asked about and whether the chain lags in it. */
  private readonly lagging = new Map<number, { period: number; on: boolean; random: RandomStream }>();
  /** Per chain: its stall windows by period, the recent ones only. */
  private readonly windows = new Map<number, Map<number, Window>>();

  constructor(private readonly world: World, spec: FaultSpec) {
    this.mix = drawFaultMix(spec, world.seed);
    this.lagRatio = rateOf(this.mix, 'lag');
    this.stallPerPeriod = (rateOf(this.mix, 'stall') * PERIOD_NS) / 1e9;
  }

  /** Turns the mix on for the world's run; `main` is the program's host. */
  install(main: WorldHost): void {
    const world = this.world;
    world.faultMix = formatMix(this.mix);
    const network = world.network;
    const tailMs = rateOf(this.mix, 'latency');
    if (tailMs > 0) network.addRule(new TailLatencyRule(tailMs, () => world.scheduleNowNs));
    const jitterMs = rateOf(this.mix, 'reorder');
    if (jitterMs > 0) {
      network.addRule(new JitterRule(jitterMs));
      network.reorderDatagrams = true;
    }
    const resetRatio = rateOf(this.mix, 'reset');
    if (resetRatio > 0) network.addRule(new ResetRule(resetRatio));
    const lossRatio = rateOf(this.mix, 'loss');
    if (lossRatio > 0) network.addRule(new DatagramLossRule(lossRatio));
    if (this.lagRatio > 0 || this.stallPerPeriod > 0) world.chainsOn = true;
    if (this.lagRatio > 0) world.beforeEvent = (_host, chain) => this.lag(chain);
    if (this.stallPerPeriod > 0) world.chainStallWindow = (chain, timeNs) => this.stallWindowEnd(chain, timeNs);
    const skewPerSecond = rateOf(this.mix, 'skew');
    if (skewPerSecond > 0) this.stepClocks(main, skewPerSecond);
  }

  /**
   * Event-loop lag: in a period where `chain` lags, each of its events takes longer than its own
   * work (exponential, mean 10 ms, at most 100 ms: a busy loop, a slow synchronous call, swapping,
   * the queue of a loaded process), so what comes due during that time in the chain runs late, in
   * Node's phase order after a busy callback (scheduler/loop-phases.ts). A timer armed by the event still counts from its
   * start, as Node's from the loop's cached time.
   */
  private lag(chain: number): void {
    const world = this.world;
    const period = Math.floor(world.nowNs / PERIOD_NS);
    let state = this.lagging.get(chain);
    if (state === undefined) this.lagging.set(chain, (state = { period: -1, on: false, random: world.stream(`faults/lag/${chain}`) }));
    if (state.period !== period) {
      state.period = period;
      // Whether a period lags is a function of (seed, chain, period): not of how many events ran.
      state.on = new RandomStream(world.seed, `faults/lag/${chain}/${period}`).double() < this.lagRatio;
    }
    if (!state.on) return;
    const costNs = Math.min(LAG_EVENT_MAX_NS, Math.round(-Math.log(1 - state.random.double()) * LAG_EVENT_MEAN_NS));
    // The event starting now is the busy one: its loop phase goes on after it (loop-phases.ts).
    if (costNs > 0) world.stallChain(chain, world.nowNs + costNs, world.currentPhase, world.phaseStartNs);
  }

  /**
   * The end of a stall of `chain` that covers `timeNs`, or 0. Each 100 ms period of a chain holds
   * a stall with chance stallPerSecond / 10, starting anywhere in it and lasting 10-500 ms: a GC
   * pause, a descheduled VM. A function of (seed, chain, period), so it does not depend on what
   * ran before.
   */
  private stallWindowEnd(chain: number, timeNs: number): number {
    const current = Math.floor(timeNs / PERIOD_NS);
    let endNs = 0;
    for (let period = current; period >= 0 && period >= current - STALL_PERIODS_BACK; period--) {
      const window = this.window(chain, period);
      if (window !== null && window[0] <= timeNs && timeNs < window[1] && window[1] > endNs) endNs = window[1];
    }
    return endNs;
  }

  private window(chain: number, period: number): Window {
    let byPeriod = this.windows.get(chain);
    if (byPeriod === undefined) this.windows.set(chain, (byPeriod = new Map()));
    let window = byPeriod.get(period);
    if (window !== undefined) return window;
    const random = new RandomStream(this.world.seed, `faults/stall/${chain}/${period}`);
    if (random.double() < this.stallPerPeriod) {
      const startNs = period * PERIOD_NS + Math.floor(random.double() * PERIOD_NS);
      window = [startNs, startNs + STALL_MIN_NS + Math.floor(random.double() * (STALL_MAX_NS - STALL_MIN_NS))];
    } else window = null;
    byPeriod.set(period, window);
    // Keep the periods a later instant can still fall in (time only moves forward).
    if (byPeriod.size > 4 * STALL_PERIODS_BACK) {
      for (const old of byPeriod.keys()) if (old < period - 2 * STALL_PERIODS_BACK) byPeriod.delete(old);
    }
    return window;
  }

  /**
   * Wall-clock steps: at exponential intervals, `host`'s Date jumps to an offset within +-1 s of
   * true time (an NTP step, a VM resumed from a snapshot). Monotonic clocks (performance.now,
   * hrtime) never jump, as in production. The steps keep nothing alive, and a program that has
   * nothing else queued is idle (World.scheduleBackground).
   */
  private stepClocks(host: WorldHost, perSecond: number): void {
    const world = this.world;
    const random = world.stream('faults/skew');
    const next = (): void => {
      const delayNs = Math.max(1, Math.round(-Math.log(1 - random.double()) * (1e9 / perSecond)));
      world.scheduleBackground(host, delayNs, () => {
        host.clock.skewMs = random.int(-SKEW_STEP_MS_MAX, SKEW_STEP_MS_MAX);
        next();
      });
    };
    next();
  }
}
