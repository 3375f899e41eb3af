/**
 * The simulated network: host addresses and names, the rule chain every packet crosses, and
 * the faults (partition/repair, hold/release, per-link latency, loss, duplication) that edit
 * that chain. Every random choice comes from the 'net' stream of the seed.
 */
import { UsageError } from '../errors.js';
import type { AsyncResource } from 'node:async_hooks';
import type { Host } from '../hosts/host.js';
import type { RandomStream } from '../random/stream.js';
import type { EventKind, SimEvent } from '../scheduler/event.js';
import { captureSite } from '../trace/site.js';
import { familyOf, ipv4Of, ipv6Of, isLoopback, unmapped, type Family } from './addresses.js';
import {
  DuplicateRule,
  HoldRule,
  LatencyRule,
  type LinkConfig,
  type LinkMatch,
  LossRule,
  matches,
  type PacketInfo,
  PartitionRule,
  type Rule,
  type Verdict,
} from './rules.js';
import { TcpStack } from './tcp.js';
import { UdpStack } from './udp.js';

/**
 * What the trace records of a packet (only while tracing): `msg` names the message across its
 * retransmissions (a TCP segment is one message however often it is sent), `conn` its TCP
 * connection, `seg` what it carries (syn, syn-ack, ack, data, fin, rst, window, probe,
 * probe-ack; dgram and icmp for UDP), `retry` the retransmission number, `data` its payload.
 */
export interface PacketTrace {
  msg: number;
  conn?: number;
  seg?: string;
  retry?: number;
  data?: Buffer;
  /** Instead of `data`: the payload is ciphertext ('tls'), shown without a preview. */
  enc?: string;
  /**
   * Asked as a copy arrives, before its delivery runs: why the destination drops it, if it does
   * (a UDP socket's full receive buffer), for the `recv` annotation's `lost`.
   */
  lost?: () => string | undefined;
}

/** Bytes of a payload the trace shows. */
const PREVIEW_BYTES = 48;
const HTTP_START = /^(?:(?:GET|HEAD|POST|PUT|DELETE|PATCH|OPTIONS|CONNECT|TRACE) \S+ HTTP\/1\.[01]|HTTP\/1\.[01] \d{3}[^\r\n]*)\r?\n/;

/**
 * The trace's view of a payload: its first bytes as text (non-printable bytes as '.'), and, when
 * it starts an HTTP/1 message, the message's first line, so the viewer can draw a request or a
 * response as one arrow over however many segments carry it.
 */
export function payloadFields(data: Buffer): { data: string; http?: string } {
  const head = data.subarray(0, 256).toString('latin1');
  const text = head.slice(0, PREVIEW_BYTES).replace(/[^\x20-\x7e]/g, '.');
  const http = HTTP_START.exec(head);
  return http === null ? { data: text } : { data: text, http: http[0].trimEnd() };
}

/**
 * What the network asks of the simulation (World implements it): the current instant, events on
 * the hosts' queue, its own random stream, and the hosts it connects. Nothing else of the World
 * is the network's business.
 */
export interface NetworkWorld {
  /** Virtual time now (ns). */
  readonly nowNs: number;
  /** When the event running now came due: earlier than now when its process was stalled, paused or busy. */
  readonly runningDueNs: number;
  /** The instant work scheduled now counts from (past the clock reads of a spinning event). */
  readonly scheduleNowNs: number;
  /** Events run so far: what one event sends leaves as one batch (see TcpEndpoint.write). */
  readonly eventsRun: number;
  /** The run's fingerprint: deliveries mix in which socket they reach. */
  readonly fingerprint: { mix(word: number): void };
  /** A random stream derived from (seed, name) alone. */
  stream(name: string): RandomStream;
  /** Queues `fn` on `host` after `delayNs`; nothing runs, and it comes back cancelled, if the host is down. */
  schedule(host: Host, delayNs: number, kind: EventKind, fn: (this: any) => void, thisArg: unknown, ref: boolean, scope?: AsyncResource): SimEvent;
  /** Queues a packet's arrival at `host`'s network stack: it waits while the host is paused, and is answered while it is down. */
  scheduleArrival(host: Host, delayNs: number, fn: (this: any) => void, thisArg: unknown, scope?: AsyncResource, chain?: number, loopback?: boolean): SimEvent;
  /** Runs `send`, the kernel's own answer to the packet being delivered (World.kernelReply). */
  kernelReply<T>(send: () => T): T;
  /**
   * Loopback packets scheduled so far that arrive at once, read in a poll turn decided as they
   * were sent (World.scheduleArrival): one delayed by a fault or a slow loopback is not counted.
   */
  readonly loopbackAtOnce: number;
  /** Runs `send`, whose loopback packet its host reads in the poll of turn `turn` (World.inPollTurn). */
  inPollTurn<T>(turn: number, send: () => T): T;
  /** The turn of `host`'s loop whose poll sees what it does to a socket now (World.pollTurn). */
  pollTurn(host: Host): number;
  /** Queues what libuv does next in this poll for the socket being read, straight after this event (World.continuePoll). */
  continuePoll(host: Host, fn: (this: any) => void, scope: AsyncResource | undefined): SimEvent;
  /** Queues a read of the next poll behind what this event's ticks queue (World.scheduleNextPoll). */
  scheduleNextPoll(host: Host, fn: (this: any) => void, scope: AsyncResource | undefined, watched?: boolean): void;
  /** Whether `host`'s code runs in its loop's poll phase now. */
  inPoll(host: Host): boolean;
  /** Runs `fn` as if code of `chain` ran it: what it schedules belongs to that chain. */
  withChain<T>(chain: number, fn: () => T): T;
  /** A new chain, for a listening server (0 while chain faults are off). */
  newChain(): number;
  /** The chain of a socket the running code opens (0 while chain faults are off). */
  chainForSocket(): number;
  /** The chain of the code running now (0 while chain faults are off). */
  readonly currentChain: number;
  cancel(event: SimEvent): void;
  readonly hosts: NetworkHosts;
  /** True while the run writes a trace: the network then annotates each packet's send and arrival. */
  readonly tracing: boolean;
  /** The next id of a traced message or connection (counted only while tracing). */
  nextTraceId(kind?: 'msg' | 'conn'): number;
  /** Writes an annotation (a record that is no event) to the trace, made by `host`. */
  annotate(host: Host | undefined, kind: string, fields: Record<string, unknown>): void;
}

/** What the network asks of the hosts it connects (World's HostLifecycle implements it). */
export interface NetworkHosts {
  /** The current incarnation of every host, by index. */
  readonly list: readonly Host[];
  /** The current incarnation of the host with this name (in any case). */
  get(name: string): Host | undefined;
  /** The same, or a UsageError ("Failed to <verb> host ...") when there is none. */
  require(name: string, verb: string): Host;
  /** Calls `listener` whenever a host incarnation goes down (its sockets then go as the kernel's would). */
  onDown(listener: (host: Host) => void): void;
}

/** A flow whose packets arrive in the order they are sent: when its last packet arrives. */
export interface FifoFlow {
  untilNs: number;
}

/** Default latency between two hosts, and inside one host (loopback), in ms. */
export const DEFAULT_LATENCY = { minMs: 1, maxMs: 5 } as const;
export const LOOPBACK_LATENCY = { minMs: 0.01, maxMs: 0.1 } as const;
/** A loopback packet that takes no longer than loopback's own latency is in the peer's buffer at once. */
export const LOOPBACK_AT_ONCE_NS = Math.round(LOOPBACK_LATENCY.maxMs * 1e6);

export interface NetworkOptions {
  /** Latency between any two distinct hosts. Default 1-5 ms uniform. */
  latency?: LinkConfig['latency'];
  /** Latency of traffic inside one host (localhost). Default 10-100 us. */
  loopbackLatency?: LinkConfig['latency'];
  lossRatio?: number;
  duplicateRatio?: number;
  /**
   * How long TCP retransmits into silence before the connection (or the connect) fails with
   * ETIMEDOUT. Default Linux's: 924.6 s for data (tcp_retries2 = 15 retransmissions, from 200 ms
   * doubling to at most 120 s) and 127 s for a connect (tcp_syn_retries = 6, from 1 s doubling).
   * Set, it is both.
   */
  tcpTimeoutMs?: number;
}

/**
 * Linux's TCP timeouts with its defaults: data retransmitted 15 times (tcp_retries2), from an RTO
 * of 200 ms doubling up to 120 s (TCP_RTO_MAX), fails 924.6 s after the first transmission; a SYN
 * retransmitted 6 times (tcp_syn_retries), at 1, 3, 7, 15, 31 and 63 s, fails at 127 s.
 */
const LINUX_DATA_TIMEOUT_NS = 924_600_000_000;
const LINUX_CONNECT_TIMEOUT_NS = 127_000_000_000;

/** Which direction(s) a fault applies to. */
export interface FaultOptions {
  /** Only packets from the first host to the second (default: both ways). */
  oneway?: boolean;
}

const NETWORK_KEYS = ['latency', 'loopbackLatency', 'lossRatio', 'duplicateRatio', 'tcpTimeoutMs'];

/** Validates network options when the simulation is built, with messages that say what to change. */
export function validateNetworkOptions(options: NetworkOptions): void {
  if (options === null || typeof options !== 'object') {
    throw new UsageError(`Failed to configure the network: options.network must be an object, got ${String(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!NETWORK_KEYS.includes(key)) {
      throw new UsageError(`Failed to configure the network: unknown option "${key}" (known: ${NETWORK_KEYS.join(', ')})`);
    }
  }
  if (options.latency !== undefined) validateLatency(options.latency, 'latency');
  if (options.loopbackLatency !== undefined) validateLatency(options.loopbackLatency, 'loopbackLatency');
  if (options.lossRatio !== undefined) ratio(options.lossRatio, 'lossRatio');
  if (options.duplicateRatio !== undefined) ratio(options.duplicateRatio, 'duplicateRatio');
  if (options.tcpTimeoutMs !== undefined && !(typeof options.tcpTimeoutMs === 'number' && options.tcpTimeoutMs > 0 && Number.isFinite(options.tcpTimeoutMs))) {
    throw new UsageError(`Failed to configure the network: tcpTimeoutMs must be a positive number of ms, got ${String(options.tcpTimeoutMs)}`);
  }
}

export class Network {
  readonly world: NetworkWorld;
  readonly random: RandomStream;
  readonly tcp: TcpStack;
  readonly udp: UdpStack;
  /** How long data retransmits into silence before ETIMEDOUT (tcpTimeoutMs). */
  readonly tcpTimeoutNs: number;
  /** How long a connect retransmits its SYN before ETIMEDOUT (tcpTimeoutMs). */
  readonly tcpConnectTimeoutNs: number;
  /** The rule chain: base latency first, then per-link rules and faults in the order added. */
  private readonly rules: Rule[] = [];
  /** What a unix domain socket's packets go through: the loopback latency alone (see send()). */
  private readonly unixRules: readonly Rule[];
  private readonly aliases = new Map<string, string>();
  /** The in-order flows of loopback datagrams, by source port and host (see flow()). */
  private readonly flows = new Map<string, FifoFlow>();
  /**
   * Loopback datagrams may overtake one another (the reorder fault): UDP has no order to keep,
   * and between machines nothing keeps one.
   */
  reorderDatagrams = false;

  constructor(world: NetworkWorld, options: NetworkOptions = {}) {
    this.world = world;
    this.random = world.stream('net');
    const latency = options.latency ?? DEFAULT_LATENCY;
    validateLatency(latency, 'latency');
    const loopback = options.loopbackLatency ?? LOOPBACK_LATENCY;
    validateLatency(loopback, 'loopbackLatency');
    this.rules.push(new LatencyRule({ from: '*', to: '*' }, latency));
    this.rules.push(new LoopbackLatencyRule(loopback));
    this.unixRules = [this.rules[this.rules.length - 1]!];
    // Loss and duplication are properties of links between machines; loopback has neither.
    if (options.lossRatio !== undefined) this.rules.push(new ExceptSelf(new LossRule({ from: '*', to: '*' }, ratio(options.lossRatio, 'lossRatio'))));
    if (options.duplicateRatio !== undefined) {
      this.rules.push(new ExceptSelf(new DuplicateRule({ from: '*', to: '*' }, ratio(options.duplicateRatio, 'duplicateRatio'))));
    }
    // Linux's defaults, not shorter ones: a partition of a minute, which a real connection
    // survives, ended the simulated one at 30 s (a probe, 2026-12-06: ioredis then resent a
    // request the server had applied, a duplicate production would not see).
    const setNs = options.tcpTimeoutMs === undefined ? undefined : Math.round(options.tcpTimeoutMs * 1e6);
    this.tcpTimeoutNs = setNs ?? LINUX_DATA_TIMEOUT_NS;
    this.tcpConnectTimeoutNs = setNs ?? LINUX_CONNECT_TIMEOUT_NS;
    this.tcp = new TcpStack(this);
    this.udp = new UdpStack(this);
    world.hosts.onDown((host) => {
      this.tcp.hostDown(host);
      this.udp.hostDown(host);
    });
  }

  /**
   * True while `host`'s machine is off: its current incarnation went down in a machine crash
   * (Sim.crash, a power loss) and has not booted again. Such a machine answers nothing: packets to
   * it are lost (no reset, no ICMP), as to a host pulled off the network.
   */
  machineOff(host: Host): boolean {
    const current = this.world.hosts.list[host.index];
    return current !== undefined && current.poweredOff && current.state !== 'running';
  }

  // ---- addresses and names ----------------------------------------------------------------

  addressesOf(host: Host): { ipv4: string; ipv6: string } {
    return { ipv4: ipv4Of(host.index), ipv6: ipv6Of(host.index) };
  }

  /**
   * The address a socket of `host` that is not bound to one of its addresses sends from, to
   * `destination` (canonical): loopback stays on loopback, anything else leaves from the host's
   * own address of `family`.
   */
  sourceAddressTo(host: Host, destination: string, family: Family): string {
    if (isLoopback(destination)) return family === 6 ? '::1' : '127.0.0.1';
    const own = this.addressesOf(host);
    return family === 6 ? own.ipv6 : own.ipv4;
  }

  /** The host that owns an address, seen from `from` (loopback is `from` itself). */
  hostAt(address: string, from: Host): Host | undefined {
    const a = unmapped(address);
    if (isLoopback(a)) return from;
    for (const host of this.world.hosts.list) {
      const own = this.addressesOf(host);
      if (own.ipv4 === a || own.ipv6 === a.toLowerCase()) return host;
    }
    return undefined;
  }

  /** True if `address` is one of `host`'s own addresses (or loopback, or a wildcard). */
  isLocal(host: Host, address: string): boolean {
    const a = unmapped(address);
    if (a === '0.0.0.0' || a === '::' || isLoopback(a)) return true;
    const own = this.addressesOf(host);
    return a === own.ipv4 || a.toLowerCase() === own.ipv6;
  }

  /** Adds a DNS name for a host (host names resolve already). */
  alias(name: string, hostName: string): void {
    this.world.hosts.require(hostName, 'alias');
    this.aliases.set(name.toLowerCase(), hostName);
  }

  /** dns.lookup: the addresses of a name, IPv4 first; undefined when unknown (ENOTFOUND). */
  resolve(name: string, from: Host, family: Family | 0): string[] | undefined {
    const lower = name.toLowerCase().replace(/\.$/, '');
    if (familyOf(lower) !== 0) return [lower];
    let addresses: string[] | undefined;
    // A simulated machine's hosts file maps localhost to 127.0.0.1 only, like this project's
    // reference machine (and many container images): {family: 6} is ENOTFOUND and {all: true}
    // is [127.0.0.1], whatever the real /etc/hosts says (a seed replays on any machine). ::1 is
    // still the host's own loopback address (docs/notes/node-facts.md).
    if (lower === 'localhost' || lower.endsWith('.localhost')) addresses = ['127.0.0.1'];
    else {
      const target = this.world.hosts.get(this.aliases.get(lower) ?? lower);
      if (target !== undefined && target.role !== 'system') {
        const own = this.addressesOf(target);
        addresses = [own.ipv4, own.ipv6];
      } else if (lower === from.name.toLowerCase()) {
        const own = this.addressesOf(from);
        addresses = [own.ipv4, own.ipv6];
      }
    }
    if (addresses === undefined) return undefined;
    // Without a family asked for, answer IPv4 only: with two addresses net.connect would race
    // them (autoSelectFamily) on timers captured when net loaded.
    return family === 0 ? addresses.slice(0, 1) : addresses.filter((a) => familyOf(a) === family);
  }

  /** The name of the host at an address (dns.reverse), if any. */
  reverse(address: string, from: Host): string | undefined {
    const host = this.hostAt(address, from);
    if (host === undefined) return undefined;
    const plain = unmapped(address);
    // The hosts file names 127.0.0.1 only (see resolve): ::1 has no name.
    if (isLoopback(plain)) return familyOf(plain) === 4 ? 'localhost' : undefined;
    return host.name;
  }

  // ---- packets -----------------------------------------------------------------------------

  /** The in-order flow named `key`, made on first use (UDP on loopback: one per source port and host). */
  flow(key: string): FifoFlow {
    let flow = this.flows.get(key);
    if (flow === undefined) this.flows.set(key, (flow = { untilNs: 0 }));
    return flow;
  }

  /**
   * The rules a packet goes through. A unix domain socket crosses no network: the host's
   * loopback latency, and no other rule (no loss, reset, partition, hold or added latency: a
   * fault there is the peer's lateness).
   */
  private rulesFor(protocol: 'tcp' | 'udp' | 'unix'): readonly Rule[] {
    return protocol === 'unix' ? this.unixRules : this.rules;
  }

  /**
   * How long a connection's handshake inside `host` takes one way (loopback TCP, a unix socket):
   * the delay the rules give a packet there, as they give the data of a connection. Plainly the
   * kernel completes it inside connect(2), as it puts written data in the peer's buffer inside
   * write(2): with a handshake at once and data 10-100 µs late, a connect made after a write on
   * another connection was accepted before that data was read on every seed, where plainly the
   * data comes first. The handshakes of one host keep the order of their connect(2) calls (one
   * flow), as the kernel's do. A slow `loopbackLatency`, or a fault that delays loopback
   * (program faults' tail latency), is kept. A rule that drops the packet counts as no delay:
   * loopback loses nothing.
   */
  handshakeDelayNs(host: Host, protocol: 'tcp' | 'unix'): number {
    const verdict: Verdict = { delaysNs: [0], heldBy: undefined };
    const packet: PacketInfo = { from: host.name, to: host.name, protocol: protocol as PacketInfo['protocol'], bytes: 60 };
    for (const rule of this.rulesFor(protocol)) rule.apply(packet, verdict, this.random);
    const flow = this.flow(`handshakes ${host.index}`);
    const nowNs = this.world.scheduleNowNs;
    const delayNs = Math.max(verdict.delaysNs[0] ?? 0, flow.untilNs - nowNs);
    flow.untilNs = nowNs + delayNs;
    return delayNs;
  }

  /**
   * Decides the fate of one packet and carries it out: `deliver` runs at the destination after
   * each copy's delay (as an arrival event on `to`), or never if dropped; held packets wait for
   * release. Packets of one `fifo` flow arrive in the order sent, as on loopback. Returns false
   * when the packet was dropped (TCP then retransmits).
   */
  send(
    from: Host,
    to: Host,
    protocol: 'tcp' | 'udp' | 'unix',
    bytes: number,
    deliver: () => void,
    fifo?: FifoFlow,
    connection?: { fromPort: number; toPort: number; carriesData?: boolean; reset: () => void },
    traced?: PacketTrace,
    chain?: number,
  ): boolean {
    // 'unix' reaches no rule of the program's (below), so PacketInfo does not name it.
    const kind = protocol as PacketInfo['protocol'];
    const packet: PacketInfo = connection === undefined
      ? { from: from.name, to: to.name, protocol: kind, bytes }
      : { from: from.name, to: to.name, protocol: kind, bytes, fromPort: connection.fromPort, toPort: connection.toPort, carriesData: connection.carriesData === true };
    const verdict: Verdict = { delaysNs: [0], heldBy: undefined };
    const rules = this.rulesFor(protocol);
    if (this.world.tracing) return this.sendTraced(from, to, packet, verdict, deliver, fifo, connection, traced ?? { msg: this.world.nextTraceId() }, chain, rules);
    for (const rule of rules) rule.apply(packet, verdict, this.random);
    return this.carryOut(to, verdict, deliver, fifo, connection, chain, from.index === to.index);
  }

  /**
   * send() while tracing: the same decisions (the same rules, the same draws), plus a `send`
   * annotation with the packet's fate and the rule that dropped it, and a `recv` annotation when
   * each copy arrives.
   */
  private sendTraced(
    from: Host,
    to: Host,
    packet: PacketInfo,
    verdict: Verdict,
    deliver: () => void,
    fifo: FifoFlow | undefined,
    connection: { fromPort: number; toPort: number; reset: () => void } | undefined,
    traced: PacketTrace,
    chain: number | undefined,
    rules: readonly Rule[],
  ): boolean {
    let droppedBy: string | undefined;
    for (const rule of rules) {
      rule.apply(packet, verdict, this.random);
      if (droppedBy === undefined && verdict.delaysNs.length === 0) droppedBy = rule.name;
    }
    const world = this.world;
    const fate =
      verdict.reset === true && connection !== undefined ? { fate: 'reset' } :
      verdict.delaysNs.length === 0 ? { fate: 'dropped', by: droppedBy ?? 'a rule' } :
      verdict.heldBy !== undefined ? { fate: 'held', by: verdict.heldBy.name } :
      verdict.delaysNs.length > 1 ? { copies: verdict.delaysNs.length } : {};
    const site = captureSite();
    world.annotate(from, 'send', {
      msg: traced.msg,
      proto: packet.protocol,
      to: to.name,
      bytes: packet.bytes,
      ...(traced.conn === undefined || traced.conn === 0 ? {} : { conn: traced.conn }),
      ...(packet.fromPort === undefined ? {} : { fromPort: packet.fromPort, toPort: packet.toPort }),
      ...(traced.seg === undefined ? {} : { seg: traced.seg }),
      ...(traced.retry ? { retry: traced.retry } : {}),
      ...fate,
      ...(traced.enc === undefined ? {} : { enc: traced.enc }),
      ...(traced.data === undefined || traced.data.length === 0 ? {} : payloadFields(traced.data)),
      ...(site === undefined ? {} : { site }),
    });
    const msg = traced.msg;
    const received = () => {
      // The destination's incarnation now (it may have rebooted since the packet left).
      const host = world.hosts.list[to.index] ?? to;
      const lost = this.machineOff(host) ? 'machine off' : traced.lost?.();
      world.annotate(host, 'recv', { msg, from: from.name, ...(lost === undefined ? {} : { lost }) });
      deliver();
    };
    return this.carryOut(to, verdict, received, fifo, connection, chain, from.index === to.index);
  }

  private carryOut(
    to: Host,
    verdict: Verdict,
    deliver: () => void,
    fifo: FifoFlow | undefined,
    connection: { fromPort: number; toPort: number; reset: () => void } | undefined,
    chain: number | undefined,
    loopback: boolean,
  ): boolean {
    if (verdict.reset === true && connection !== undefined) {
      connection.reset();
      return true;
    }
    if (verdict.delaysNs.length === 0) return false;
    if (fifo !== undefined) {
      // Loopback keeps the packets of one flow in order (the jitter still varies between flows).
      const earliestNs = fifo.untilNs - this.world.scheduleNowNs;
      verdict.delaysNs = verdict.delaysNs.map((d) => Math.max(d, earliestNs));
      fifo.untilNs = this.world.scheduleNowNs + Math.max(...verdict.delaysNs);
    }
    if (verdict.heldBy !== undefined) {
      const delaysNs = verdict.delaysNs;
      verdict.heldBy.held.push(() => {
        for (const delayNs of delaysNs) this.world.scheduleArrival(to, delayNs, deliver, undefined, undefined, chain, loopback);
      });
      return true;
    }
    for (const delayNs of verdict.delaysNs) this.world.scheduleArrival(to, delayNs, deliver, undefined, undefined, chain, loopback);
    return true;
  }

  // ---- faults ------------------------------------------------------------------------------

  private links(a: string, b: string | undefined, options: FaultOptions): LinkMatch[] {
    // Rules match packets by their hosts' names as registered ('R'), whatever case names them here.
    if (a !== '*') a = this.world.hosts.require(a, 'change the network of').name;
    if (b !== undefined && b !== '*') b = this.world.hosts.require(b, 'change the network of').name;
    const other = b ?? '*';
    // A host-wide fault (b omitted) cuts the host off from everyone else, not from itself.
    const list: LinkMatch[] = [{ from: a, to: other }];
    // A host's link to itself (or every host's to every host) is one link both ways.
    if (!options.oneway && other !== a) list.push({ from: other, to: a });
    return list;
  }

  /** Drops every packet between a and b (or between a and everyone) until repair(). */
  partition(a: string, b?: string, options: FaultOptions = {}): void {
    for (const link of this.links(a, b, options)) this.rules.push(new ExceptSelf(new PartitionRule(link)));
  }

  /**
   * Whether a partition drops what `from` sends `to` now (tcp.ts asks it of an ACK's way back:
   * a one-way partition drops the acknowledgements of the data that still gets through).
   */
  partitioned(from: Host, to: Host): boolean {
    if (from === to || from.name === to.name) return false;
    const packet: PacketInfo = { from: from.name, to: to.name, protocol: 'tcp', bytes: 0 };
    return this.rules.some((rule) => rule instanceof ExceptSelf && rule.inner instanceof PartitionRule && matches(rule.inner.link, packet));
  }

  /** Removes the partitions between a and b (or all of a's) that match the direction given. */
  repair(a: string, b?: string, options: FaultOptions = {}): void {
    const links = this.links(a, b, options);
    this.removeRules((rule) => rule instanceof ExceptSelf && rule.inner instanceof PartitionRule && links.some((l) => sameLink(l, (rule.inner as PartitionRule).link)));
  }

  /** Keeps every packet between a and b (or a and everyone) until release(), then delivers them. */
  hold(a: string, b?: string, options: FaultOptions = {}): void {
    for (const link of this.links(a, b, options)) this.rules.push(new ExceptSelf(new HoldRule(link)));
  }

  release(a: string, b?: string, options: FaultOptions = {}): void {
    const links = this.links(a, b, options);
    const released: HoldRule[] = [];
    this.removeRules((rule) => {
      if (rule instanceof ExceptSelf && rule.inner instanceof HoldRule && links.some((l) => sameLink(l, (rule.inner as HoldRule).link))) {
        released.push(rule.inner);
        return true;
      }
      return false;
    });
    for (const hold of released) for (const deliver of hold.held.splice(0)) deliver();
  }

  /** Sets latency, loss or duplication on the link a -> b (and b -> a unless oneway). */
  setLink(a: string, b: string, config: LinkConfig, options: FaultOptions = {}): void {
    for (const link of this.links(a, b, options)) {
      if (config.latency !== undefined) {
        validateLatency(config.latency, 'latency');
        this.rules.push(new LatencyRule(link, config.latency));
      }
      if (config.lossRatio !== undefined) this.rules.push(new LossRule(link, ratio(config.lossRatio, 'lossRatio')));
      if (config.duplicateRatio !== undefined) this.rules.push(new DuplicateRule(link, ratio(config.duplicateRatio, 'duplicateRatio')));
    }
  }

  /** Adds a custom rule (turmoil's extension point): it sees every packet after the built-in ones. */
  addRule(rule: Rule): () => void {
    this.rules.push(rule);
    return () => this.removeRules((r) => r === rule);
  }

  private removeRules(predicate: (rule: Rule) => boolean): void {
    for (let i = this.rules.length - 1; i >= 0; i--) if (predicate(this.rules[i]!)) this.rules.splice(i, 1);
  }
}

/** Faults never cut a host off from itself (localhost keeps working during a partition). */
class ExceptSelf implements Rule {
  readonly name: string;
  constructor(readonly inner: Rule) {
    this.name = inner.name;
  }
  apply(packet: PacketInfo, verdict: Verdict, random: RandomStream): void {
    if (packet.from !== packet.to) this.inner.apply(packet, verdict, random);
  }
}

/** The latency of traffic inside one host: applied after the base rule, to loopback only. */
class LoopbackLatencyRule implements Rule {
  readonly name = 'loopback-latency';
  private readonly inner: LatencyRule;
  constructor(latency: NonNullable<LinkConfig['latency']>) {
    this.inner = new LatencyRule({ from: '*', to: '*' }, latency);
  }
  apply(packet: PacketInfo, verdict: Verdict, random: RandomStream): void {
    if (packet.from === packet.to) this.inner.apply(packet, verdict, random);
  }
}

function sameLink(a: LinkMatch, b: LinkMatch): boolean {
  return a.from === b.from && a.to === b.to;
}

function ratio(value: unknown, name: string): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
    throw new UsageError(`Failed to configure the network: ${name} must be a number between 0 and 1, got ${String(value)}`);
  }
  return value;
}

function validateLatency(latency: unknown, name: string): void {
  const l = latency as { minMs?: unknown; maxMs?: unknown; distribution?: unknown };
  if (
    l === null || typeof l !== 'object' ||
    typeof l.minMs !== 'number' || typeof l.maxMs !== 'number' ||
    !(l.minMs >= 0) || !(l.maxMs >= l.minMs) ||
    (l.distribution !== undefined && l.distribution !== 'uniform' && l.distribution !== 'exponential')
  ) {
    throw new UsageError(
      `Failed to configure the network: ${name} must be { minMs, maxMs, distribution? } with 0 <= minMs <= maxMs ` +
        `and distribution 'uniform' or 'exponential', got ${JSON.stringify(latency)}`,
    );
  }
}
