/**
 * The network's one extension point, as in turmoil: every packet passes through an ordered list
 * of rules, and each rule may drop it, hold it, delay it or duplicate it. Latency, loss,
 * partitions and holds are all rules; faults add and remove rules instead of special cases.
 */
import type { RandomStream } from '../random/stream.js';

/** What the network knows of a packet when it decides its fate. */
export interface PacketInfo {
  /** Source and destination host names (the same for traffic inside one host). */
  readonly from: string;
  readonly to: string;
  readonly protocol: 'tcp' | 'udp';
  readonly bytes: number;
  /** The source and destination ports (TCP and UDP), when the packet has them. */
  readonly fromPort?: number;
  readonly toPort?: number;
}

/** The fate of one packet: delivered after delays (one per copy), dropped, or held. */
export interface Verdict {
  /** Delivery delays in ns, one per copy; empty means dropped. */
  delaysNs: number[];
  /** Set when a hold rule keeps the packet: it is delivered when the hold is released. */
  heldBy: HoldRule | undefined;
  /**
   * TCP only: a rule that sets this resets the packet's connection instead of delivering it, as
   * a middlebox that drops the flow does: both ends get a reset (ECONNRESET).
   */
  reset?: boolean;
}

export interface Rule {
  readonly name: string;
  /** Called in rule order; may change the verdict. */
  apply(packet: PacketInfo, verdict: Verdict, random: RandomStream): void;
}

/** Which packets a directional rule covers: from `a` to `b`; '*' matches any host. */
export interface LinkMatch {
  readonly from: string;
  readonly to: string;
}

export function matches(link: LinkMatch, packet: PacketInfo): boolean {
  return (link.from === '*' || link.from === packet.from) && (link.to === '*' || link.to === packet.to);
}

/** Latency distribution of a link, in ms. */
export interface LatencyConfig {
  minMs: number;
  maxMs: number;
  /** 'uniform' between min and max, or 'exponential' with min as floor and (max-min) as mean. */
  distribution?: 'uniform' | 'exponential';
}

export interface LinkConfig {
  latency?: LatencyConfig;
  /** Probability that a packet is lost (0..1). TCP retransmits; UDP loses it. */
  lossRatio?: number;
  /** Probability that a packet is delivered twice (0..1). */
  duplicateRatio?: number;
}

/** Sets the delay of every copy from a latency distribution; later rules may add to it. */
export class LatencyRule implements Rule {
  readonly name = 'latency';
  constructor(readonly link: LinkMatch, readonly latency: LatencyConfig) {}
  apply(packet: PacketInfo, verdict: Verdict, random: RandomStream): void {
    if (!matches(this.link, packet)) return;
    const { minMs, maxMs, distribution = 'uniform' } = this.latency;
    for (let i = 0; i < verdict.delaysNs.length; i++) {
      let ms: number;
      if (distribution === 'exponential') {
        ms = minMs - Math.log(1 - random.double()) * (maxMs - minMs);
      } else {
        ms = minMs + random.double() * (maxMs - minMs);
      }
      verdict.delaysNs[i] = Math.round(ms * 1e6);
    }
  }
}

export class LossRule implements Rule {
  readonly name = 'loss';
  constructor(readonly link: LinkMatch, readonly ratio: number) {}
  apply(packet: PacketInfo, verdict: Verdict, random: RandomStream): void {
    if (!matches(this.link, packet) || verdict.delaysNs.length === 0) return;
    if (random.chance(this.ratio)) verdict.delaysNs = [];
  }
}

export class DuplicateRule implements Rule {
  readonly name = 'duplicate';
  constructor(readonly link: LinkMatch, readonly ratio: number) {}
  apply(packet: PacketInfo, verdict: Verdict, random: RandomStream): void {
    if (!matches(this.link, packet) || verdict.delaysNs.length === 0) return;
    if (random.chance(this.ratio)) verdict.delaysNs.push(verdict.delaysNs[0]! + Math.round(random.double() * 1e6));
  }
}

/** A partition: every matching packet is dropped until repaired. */
export class PartitionRule implements Rule {
  readonly name = 'partition';
  constructor(readonly link: LinkMatch) {}
  apply(packet: PacketInfo, verdict: Verdict): void {
    if (matches(this.link, packet)) verdict.delaysNs = [];
  }
}

/** A hold: every matching packet is kept, and delivered (in order) when released. */
export class HoldRule implements Rule {
  readonly name = 'hold';
  readonly held: Array<() => void> = [];
  constructor(readonly link: LinkMatch) {}
  apply(packet: PacketInfo, verdict: Verdict): void {
    if (matches(this.link, packet) && verdict.delaysNs.length > 0) verdict.heldBy = this;
  }
}
