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
  /** TCP: the segment carries application data (not only a handshake, an ACK or a window update). */
  readonly carriesData?: boolean;
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

// ---- production-shaped faults (runtime/faults: DST_FAULTS and --swarm) ------------------------
// These apply to every packet, loopback included: in a plain program every "node" shares one host,
// and its loopback stands for the network between them. None of them breaks what a network
// cannot: TCP keeps its bytes in order and complete inside a live connection (the stack orders
// segments whatever their delays), a reset ends a connection rather than losing part of it.

/** The packet's flow: one direction of a connection, or of a host pair for packets without ports. */
function flowKey(packet: PacketInfo): string {
  return packet.fromPort === undefined
    ? `${packet.protocol}:${packet.from}>${packet.to}`
    : `${packet.protocol}:${packet.from}:${packet.fromPort}>${packet.to}:${packet.toPort}`;
}

/** An exponential draw with this mean. */
function exponential(random: RandomStream, mean: number): number {
  return -Math.log(1 - random.double()) * mean;
}

/**
 * A long tail of latency that varies per connection and over time: each flow has a pace of its
 * own (0.5-1.5x), and in each 50 ms period a flow is slow with chance 1/10 (a congested queue, a
 * retransmission, a busy NIC), its packets then late by an exponential draw of mean `tailMs`; in
 * other periods by one of mean tailMs/50. Most packets are fast, some are tens of ms late.
 */
export class TailLatencyRule implements Rule {
  readonly name = 'tail-latency';
  private readonly flows = new Map<string, { pace: number; period: number; slow: boolean }>();
  constructor(readonly tailMs: number, private readonly nowNs: () => number) {}
  apply(packet: PacketInfo, verdict: Verdict, random: RandomStream): void {
    if (verdict.delaysNs.length === 0) return;
    const key = flowKey(packet);
    const period = Math.floor(this.nowNs() / 50e6);
    let flow = this.flows.get(key);
    if (flow === undefined) this.flows.set(key, (flow = { pace: 0.5 + random.double(), period: -1, slow: false }));
    if (flow.period !== period) {
      flow.period = period;
      flow.slow = random.double() < 0.1;
    }
    const meanMs = (flow.slow ? this.tailMs : this.tailMs / 50) * flow.pace;
    for (let i = 0; i < verdict.delaysNs.length; i++) verdict.delaysNs[i]! += Math.round(exponential(random, meanMs) * 1e6);
  }
}

/** Independent jitter per packet, uniform in [0, jitterMs]: flows overtake each other. */
export class JitterRule implements Rule {
  readonly name = 'jitter';
  constructor(readonly jitterMs: number) {}
  apply(_packet: PacketInfo, verdict: Verdict, random: RandomStream): void {
    for (let i = 0; i < verdict.delaysNs.length; i++) verdict.delaysNs[i]! += Math.round(random.double() * this.jitterMs * 1e6);
  }
}

/**
 * Resets a TCP connection at a random byte offset: a segment that carries data finds, with
 * chance `ratio`, its connection reset instead of
 * delivered — a load balancer or NAT that dropped the flow, a peer's kernel that lost it. Both ends
 * get ECONNRESET; what was delivered before stays delivered, what was in flight is lost with the
 * connection (never part of it inside a connection that lives on).
 */
export class ResetRule implements Rule {
  readonly name = 'reset';
  constructor(readonly ratio: number) {}
  apply(packet: PacketInfo, verdict: Verdict, random: RandomStream): void {
    if (packet.protocol !== 'tcp' || packet.carriesData !== true || verdict.delaysNs.length === 0) return;
    if (random.chance(this.ratio)) verdict.reset = true;
  }
}

/** Datagrams are lost with chance `ratio` and duplicated with chance ratio/2 (UDP only). */
export class DatagramLossRule implements Rule {
  readonly name = 'datagram-loss';
  constructor(readonly ratio: number) {}
  apply(packet: PacketInfo, verdict: Verdict, random: RandomStream): void {
    if (packet.protocol !== 'udp' || verdict.delaysNs.length === 0) return;
    if (random.chance(this.ratio)) {
      verdict.delaysNs = [];
      return;
    }
    if (random.chance(this.ratio / 2)) verdict.delaysNs.push(verdict.delaysNs[0]! + Math.round(random.double() * 1e6));
  }
}
