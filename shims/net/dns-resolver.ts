/**
 * dns.resolve*, dns.reverse, dns.Resolver and dns.promises.Resolver on the simulated network, at
 * the level of Node's c-ares channel (internalBinding('cares_wrap').ChannelWrap, one per
 * Resolver). Node's dns code keeps its validation and builds its own errors
 * ("queryA ENOTFOUND kv-9", with code/syscall/hostname); only the channel answers from the
 * simulation: a host's name (or alias) has an A record (its IPv4 address) and an AAAA record
 * (its IPv6 address); every other name is unknown (ENOTFOUND), never asked of a real server.
 *
 * How: the query methods of ChannelWrap.prototype are patched. Called from a simulated host
 * they answer from the network; called from outside every host they are the real ones, so the
 * test runner's own lookups still work. setServers from a host is remembered per channel and
 * run (see patchedSetServers); setLocalAddress is run on the real channel (its checks and
 * errors) and remembered per channel, as the source address of wire queries.
 *
 * A channel whose servers (set from a host) are simulated hosts talks DNS to them: each query
 * goes out as a DNS message over simulated UDP, as c-ares sends it, and the reply is read as
 * c-ares reads it (dns-wire.ts), with c-ares' tries, timeouts and errors (see WireQuery), and
 * over simulated TCP after a truncated reply (DnsTcpConnection). So a
 * program can run its own DNS server on a dgram socket and point a Resolver at it. A server
 * outside the simulation (8.8.8.8) is answered from the simulation's names, as before.
 *
 * The binding protocol (lib/internal/dns/callback_resolver.js and promises.js, 20/22/24):
 * `channel.queryA(req, name)` returns 0 or a UV error (thrown at once as a DNSException), and
 * later calls `req.oncomplete(0, records, ttls)` (ttls for A/AAAA only) or
 * `req.oncomplete('ENOTFOUND')` with a c-ares error NAME. Node defers every c-ares answer to
 * an immediate, so an answer is never synchronous; channel.cancel() fails the pending queries
 * with ECANCELLED, also asynchronously.
 */
import { AsyncResource } from 'node:async_hooks';
import { familyOf } from '../../runtime/network/addresses.js';
import { UV } from '../../runtime/network/errno.js';
import { TcpEndpoint, type TcpOwner } from '../../runtime/network/tcp.js';
import { canonicalAddress, UdpSocket, type UdpOwner, type UdpPeer } from '../../runtime/network/udp.js';
import type { SimEvent } from '../../runtime/scheduler/event.js';
import type { World, WorldHost } from '../../runtime/world.js';
import { currentHost, type Host } from '../context.js';
import type { PatchSet } from '../registry.js';
import { nodeBinding } from '../node-binding.js';
import type { Shim } from '../shim.js';
import { answersQuery, decodeMessage, encodeQuery, QUERY_TYPES, rcodeError, resultOf, type WireResult } from './dns-wire.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type NativeChannel = Record<PropertyKey, any>;
type QueryReq = { oncomplete: (...args: unknown[]) => void } & Record<PropertyKey, unknown>;

const cares = nodeBinding('cares_wrap');
const ChannelWrap = cares.ChannelWrap as new (...args: unknown[]) => NativeChannel;
const proto = ChannelWrap.prototype as NativeChannel;

/** The TTL (seconds) of every simulated record: names and addresses never change during a run. */
export const DNS_TTL_S = 300;

/** The query methods a channel has on this Node version (queryTlsa is newer). */
const QUERY_METHODS = [
  'queryAny', 'queryA', 'queryAaaa', 'queryCaa', 'queryCname', 'queryMx', 'queryNs', 'queryTlsa',
  'queryTxt', 'querySrv', 'queryPtr', 'queryNaptr', 'querySoa', 'getHostByAddr',
].filter((name) => typeof proto[name] === 'function');

const real: Record<string, (...args: unknown[]) => unknown> = {};
for (const name of [...QUERY_METHODS, 'cancel', 'getServers', 'setServers']) real[name] = proto[name];
const realSetLocalAddress = proto.setLocalAddress as (...args: unknown[]) => unknown;

/** The answer of one query: records (and ttls), or a c-ares error name. */
type Answer = { records: unknown; ttls?: number[] } | { error: string };

interface PendingQuery {
  req: QueryReq;
  host: Host;
  scope: AsyncResource;
  /** Stops the query without answering it (cancel() answers ECANCELLED). */
  stop(): void;
}

/** Queries answered later, per channel, so cancel() can fail them. */
const pending = new WeakMap<NativeChannel, Set<PendingQuery>>();

/** The addresses of a name of the simulation, or undefined when the name is unknown. */
function addressesOf(host: Host, name: string, family: 4 | 6): string[] | undefined {
  const lower = name.toLowerCase().replace(/\.$/, '');
  // c-ares sends even 'localhost' and address literals to the DNS server, which knows neither.
  if (lower === '' || familyOf(lower) !== 0 || lower === 'localhost' || lower.endsWith('.localhost')) return undefined;
  return host.world.network.resolve(lower, host, family);
}

/** 1.0.0.10.in-addr.arpa -> 10.0.0.1; the nibble form of ip6.arpa -> an IPv6 address. */
function addressOfPtrName(name: string): string | undefined {
  const lower = name.toLowerCase().replace(/\.$/, '');
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\.in-addr\.arpa$/.exec(lower);
  if (v4) return `${v4[4]}.${v4[3]}.${v4[2]}.${v4[1]}`;
  const v6 = /^((?:[0-9a-f]\.){32})ip6\.arpa$/.exec(lower);
  if (v6) {
    const nibbles = v6[1]!.split('.').filter(Boolean).reverse().join('');
    const groups = nibbles.match(/.{4}/g)!;
    return canonicalAddress(groups.join(':'));
  }
  return undefined;
}

/** The name c-ares asks for an address's PTR record: 10.0.0.1 -> 1.0.0.10.in-addr.arpa. */
function ptrName(address: string): string {
  if (familyOf(address) === 4) return `${address.split('.').reverse().join('.')}.in-addr.arpa`;
  const bytes = ipv6Bytes(address);
  const nibbles: string[] = [];
  for (const byte of bytes) nibbles.push((byte >> 4).toString(16), (byte & 15).toString(16));
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}

/** The 16 bytes of an IPv6 address (an IPv4 tail in dotted form allowed). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') as [string, string] : [text, undefined];
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

function isLoopback(address: string): boolean {
  const a = canonicalAddress(address);
  return a === '::1' || (familyOf(a) === 4 && a.startsWith('127.'));
}

function answer(host: Host, method: string, name: string): Answer {
  const ipv4 = addressesOf(host, name, 4);
  const ipv6 = addressesOf(host, name, 6);
  const known = ipv4 !== undefined || ipv6 !== undefined;
  switch (method) {
    case 'queryA':
    case 'queryAaaa': {
      const records = (method === 'queryA' ? ipv4 : ipv6) ?? [];
      if (!known) return { error: 'ENOTFOUND' };
      if (records.length === 0) return { error: 'ENODATA' };
      return { records, ttls: records.map(() => DNS_TTL_S) };
    }
    case 'queryAny': {
      if (!known) return { error: 'ENOTFOUND' };
      const records = [
        ...(ipv4 ?? []).map((address) => ({ address, ttl: DNS_TTL_S, type: 'A' })),
        ...(ipv6 ?? []).map((address) => ({ address, ttl: DNS_TTL_S, type: 'AAAA' })),
      ];
      return { records };
    }
    case 'queryPtr': {
      const address = addressOfPtrName(name);
      const target = address === undefined ? undefined : reverseName(host, address);
      if (target !== undefined) return { records: [target] };
      return { error: known ? 'ENODATA' : 'ENOTFOUND' };
    }
    default:
      // The simulation's names carry address records only.
      return { error: known ? 'ENODATA' : 'ENOTFOUND' };
  }
}

/**
 * The host name of a simulated address. Loopback answers 'localhost' (c-ares reverses through
 * the hosts file first, where real machines list it), never the real machine's names.
 */
function reverseName(host: Host, address: string): string | undefined {
  return host.world.network.reverse(canonicalAddress(address), host);
}

function pendingOf(channel: NativeChannel): Set<PendingQuery> {
  let set = pending.get(channel);
  if (set === undefined) pending.set(channel, (set = new Set()));
  return set;
}

/** Calls the request's oncomplete with `result`, as Node's binding does. */
function deliver(req: QueryReq, result: Answer): void {
  if ('error' in result) req.oncomplete(result.error);
  else if (result.ttls !== undefined) req.oncomplete(0, result.records, result.ttls);
  else req.oncomplete(0, result.records);
}

/** Queues the completion of `req` on the calling host: the answer comes in a later event. */
function complete(channel: NativeChannel, host: Host, req: QueryReq, result: Answer, scope = new AsyncResource('QUERYWRAP')): void {
  const queries = pendingOf(channel);
  // The answer is read by a poll phase: never between two immediates the calling code queued.
  const entry: PendingQuery = { req, host, scope, stop: () => cancel() };
  const cancel = (host.world as World).scheduleAfterEvent(host as WorldHost, () => {
    queries.delete(entry);
    deliver(req, result);
  }, undefined, true, scope);
  if (host.state === 'running') queries.add(entry);
}

/** What a Resolver was made with (new ChannelWrap(timeout, tries[, maxTimeout])). */
interface ChannelOptions {
  timeoutMs: number;
  tries: number;
  maxTimeoutMs: number;
}
const channelOptions = new WeakMap<NativeChannel, ChannelOptions>();
/** A channel made before the shim (the default resolver): Node's defaults. */
const DEFAULT_OPTIONS: ChannelOptions = { timeoutMs: -1, tries: 4, maxTimeoutMs: 0 };
/** c-ares' timeout of a first try when the Resolver sets none (timeout: -1). */
const CARES_DEFAULT_TIMEOUT_MS = 2000;
/** Node checks c-ares' timeouts on a timer of min(timeout, 1000) ms (ChannelWrap::StartTimer). */
const NODE_POLL_MAX_MS = 1000;
const NS_PER_MS = 1_000_000;

/** The channel's constructor, recording the options the Resolver passed. */
function RecordingChannelWrap(...args: unknown[]): NativeChannel {
  const channel = Reflect.construct(ChannelWrap, args, ChannelWrap) as NativeChannel;
  const [timeout, tries, maxTimeout] = args;
  channelOptions.set(channel, {
    timeoutMs: typeof timeout === 'number' ? timeout : -1,
    tries: typeof tries === 'number' && tries > 0 ? tries : 4,
    maxTimeoutMs: typeof maxTimeout === 'number' ? maxTimeout : 0,
  });
  return channel;
}
RecordingChannelWrap.prototype = proto;
Object.defineProperty(RecordingChannelWrap, 'name', { value: 'ChannelWrap' });

/** The source addresses a channel's setLocalAddress() named, by family. */
const localAddresses = new WeakMap<NativeChannel, { 4?: string; 6?: string }>();

function patchedSetLocalAddress(this: NativeChannel, ...args: unknown[]): unknown {
  // The real channel checks the addresses and throws Node's errors ("Invalid IP address.").
  const result = Reflect.apply(realSetLocalAddress, this, args);
  const own: { 4?: string; 6?: string } = {};
  for (const address of args) {
    if (typeof address !== 'string') continue;
    const family = familyOf(address);
    if (family === 4 || family === 6) own[family] = address;
  }
  localAddresses.set(this, own);
  return result;
}
Object.defineProperty(patchedSetLocalAddress, 'name', { value: 'setLocalAddress' });

/** The address a channel's query to `server` is sent from, when setLocalAddress() named one. */
function localAddressFor(channel: NativeChannel, server: string): string | undefined {
  return localAddresses.get(channel)?.[familyOf(server) === 6 ? 6 : 4];
}

/**
 * Node's poll timer per channel: it runs while the channel has queries, and c-ares notices a
 * timeout only when it ticks. The time it started, per channel, while it runs.
 */
const pollStart = new WeakMap<NativeChannel, number>();

/** The simulated servers a host's channel talks to, or undefined (the simulation's names answer). */
function wireServers(channel: NativeChannel, host: Host): Array<[string, number]> | undefined {
  const own = simServers.get(channel);
  if (own === undefined || own.world.deref() !== host.world) return undefined;
  return own.servers;
}

/** True when `address` is a simulated host's (a DNS message to it stays in the simulation). */
function simulatedServer(host: Host, address: string): boolean {
  return host.world.network.hostAt(canonicalAddress(address), host) !== undefined;
}

/**
 * One query sent to simulated DNS servers, as c-ares runs it:
 * - try n goes to server n mod (servers), skipping servers that refused (ICMP port
 *   unreachable: ECONNREFUSED), which costs no try; when every server refused, ECONNREFUSED;
 * - a try times out after the channel's timeout (c-ares' 2000 ms by default), doubled for each
 *   round over the servers and capped by maxTimeout, noticed at the next tick of Node's poll
 *   timer; after `tries` tries, ETIMEOUT;
 * - a reply whose id or question is not the query's is ignored; a malformed one costs a try
 *   and the next is sent at once (EBADRESP after the last); a truncated one sends the same try
 *   again over TCP, where the query stays (DnsTcpConnection);
 * - otherwise the reply's response code and records decide (dns-wire.ts).
 * c-ares' own adjustments of timeouts to measured server latency and its random jitter are
 * left out: the schedule is c-ares' classic one.
 */
class WireQuery implements UdpOwner {
  readonly scope: AsyncResource;
  private socket: UdpSocket | undefined;
  /** After a truncated UDP reply, c-ares asks over TCP, for the rest of the query's tries. */
  private usingTcp = false;
  private tcp: DnsTcpConnection | undefined;
  private timer: SimEvent | undefined;
  private tryIndex = 0;
  private readonly refused = new Set<number>();
  private lastError = 'ETIMEOUT';
  /** The message every try sends (c-ares resends the same id and question). */
  private query: Buffer = Buffer.alloc(0);
  private done = false;
  private readonly id: number;
  private readonly type: number;
  private readonly entry: PendingQuery;

  constructor(
    private readonly channel: NativeChannel,
    private readonly host: Host,
    private readonly req: QueryReq,
    private readonly method: string,
    private readonly name: string,
    private readonly servers: Array<[string, number]>,
  ) {
    this.scope = new AsyncResource('QUERYWRAP');
    this.id = host.stream('dns-query-ids').int(0, 0x10000);
    this.type = QUERY_TYPES[method]!;
    this.entry = { req, host, scope: this.scope, stop: () => this.stop() };
  }

  private get options(): ChannelOptions {
    return channelOptions.get(this.channel) ?? DEFAULT_OPTIONS;
  }

  start(): void {
    const queries = pendingOf(this.channel);
    if (queries.size === 0) pollStart.set(this.channel, this.host.world.nowNs);
    queries.add(this.entry);
    this.host.world.refHandle(this.host);
    const query = encodeQuery(this.id, this.name, this.type);
    if (query === undefined) return this.finish({ error: 'EBADNAME' });
    this.query = query;
    this.send();
  }

  /** Sends try `tryIndex` to the next server that has not refused. */
  private send(): void {
    const servers = this.servers;
    let index = -1;
    for (let k = 0; k < servers.length; k++) {
      const candidate = (this.tryIndex + k) % servers.length;
      if (!this.refused.has(candidate)) {
        index = candidate;
        break;
      }
    }
    if (index < 0) return this.finish({ error: 'ECONNREFUSED' });
    const [address, port] = servers[index]!;
    if (!simulatedServer(this.host, address)) {
      // A server outside the simulation: the simulation's names answer, as without servers.
      return this.finish(answer(this.host, this.method, this.name));
    }
    this.closeSocket();
    if (this.usingTcp) {
      // A try after a timeout goes out on the connection still open to that server.
      if (this.tcp === undefined || this.tcp.isClosed || !this.tcp.to(address, port)) {
        this.closeTcp();
        this.tcp = new DnsTcpConnection(this, this.host, address, port, localAddressFor(this.channel, address));
      }
      this.tcp.send(this.query);
      return this.armTimer(this.tryTimeoutMs());
    }
    const udp = this.host.world.network.udp;
    const socket = new UdpSocket(udp, this.host, familyOf(address) === 6 ? 6 : 4);
    socket.owner = this;
    socket.receiving = true;
    this.socket = socket;
    const local = localAddressFor(this.channel, address);
    // c-ares binds its socket to the channel's local address, if any, before connecting.
    const bindErr = local === undefined ? 0 : udp.bind(socket, local, 0);
    const err = bindErr !== 0 ? bindErr : udp.connect(socket, address, port);
    if (err === 0) udp.send(socket, undefined, undefined, this.query);
    this.armTimer(this.tryTimeoutMs());
  }

  /** The current try's timeout: the channel's, doubled each round through the servers. */
  private tryTimeoutMs(): number {
    const round = Math.floor(this.tryIndex / this.servers.length);
    const options = this.options;
    const timeoutMs = (options.timeoutMs >= 0 ? options.timeoutMs : CARES_DEFAULT_TIMEOUT_MS) * 2 ** round;
    return options.maxTimeoutMs > 0 ? Math.min(timeoutMs, options.maxTimeoutMs) : timeoutMs;
  }

  /** The try's timeout, noticed at the first tick of Node's poll timer at or after it. */
  private armTimer(timeoutMs: number): void {
    const world = this.host.world;
    const options = this.options;
    const pollMs = Math.max(1, options.timeoutMs >= 0 ? Math.min(options.timeoutMs, NODE_POLL_MAX_MS) : NODE_POLL_MAX_MS);
    const start = pollStart.get(this.channel) ?? world.nowNs;
    const deadline = world.nowNs + Math.round(timeoutMs * NS_PER_MS);
    const pollNs = pollMs * NS_PER_MS;
    const tick = start + Math.ceil((deadline - start) / pollNs) * pollNs;
    this.timer = world.schedule(this.host, Math.max(0, tick - world.nowNs), 'timeout', () => {
      this.timer = undefined;
      this.lastError = 'ETIMEOUT';
      this.nextTry();
    }, undefined, false, this.scope);
  }

  private nextTry(): void {
    this.tryIndex++;
    if (this.tryIndex >= this.options.tries) return this.finish({ error: this.lastError });
    this.send();
  }

  message(data: Buffer, _from?: UdpPeer): void {
    if (this.done) return;
    const message = decodeMessage(data);
    if (message === undefined) {
      // c-ares cannot tell whose reply it was: the try failed; the next goes out at once.
      this.cancelTimer();
      this.lastError = 'EBADRESP';
      return this.nextTry();
    }
    if (!answersQuery(message, this.id, this.name, this.type)) return;
    if (message.truncated && !this.usingTcp) {
      // The whole answer did not fit a datagram: the same try again, over TCP, with a fresh
      // timeout. A truncated reply over TCP is taken as it is.
      this.cancelTimer();
      this.closeSocket();
      this.usingTcp = true;
      // Alone on its channel, the query's UDP socket was the last: Node stopped its poll timer
      // with it, and starts it afresh when the TCP socket opens.
      if (pendingOf(this.channel).size === 1) pollStart.set(this.channel, this.host.world.nowNs);
      return this.send();
    }
    const error = rcodeError(message);
    if (error !== undefined) return this.finish({ error });
    this.finish(resultOf(message, this.method, this.name, typeof proto.queryTlsa === 'function'), false);
  }

  /** ICMP port unreachable from the server: try the next one, at once. */
  error(code: number): void {
    if (this.done || code !== UV.ECONNREFUSED) return;
    this.cancelTimer();
    const servers = this.servers;
    const remote = this.socket?.remote;
    const index = servers.findIndex(([address, port], i) => !this.refused.has(i) && remote !== undefined && canonicalAddress(address) === canonicalAddress(remote.address) && port === remote.port);
    if (index >= 0) this.refused.add(index);
    this.send();
  }

  /** The TCP connection to the server was refused: c-ares skips the server, as for ICMP. */
  tcpRefused(connection: DnsTcpConnection): void {
    if (this.done || connection !== this.tcp) return;
    this.tcp = undefined;
    this.cancelTimer();
    const index = this.servers.findIndex(([address, port], i) => !this.refused.has(i) && connection.to(address, port));
    if (index >= 0) this.refused.add(index);
    this.send();
  }

  /** The server closed or reset the connection without an answer: the try failed, the next goes out at once. */
  tcpClosed(connection: DnsTcpConnection): void {
    if (this.done || connection !== this.tcp) return;
    this.closeTcp();
    this.cancelTimer();
    this.lastError = 'ECONNREFUSED';
    this.nextTry();
  }

  /** `lookupFailed`: no usable reply (an error response code, no answer, no reply at all). */
  private finish(result: WireResult, lookupFailed = true): void {
    if (this.done) return;
    this.stop();
    // getHostByAddr: when the lookup fails, c-ares looks in the hosts file next, which never has
    // simulated addresses: ENOTFOUND. A reply without a PTR record still fails with ENODATA.
    const final = this.method === 'getHostByAddr' && 'error' in result && lookupFailed ? { error: 'ENOTFOUND' } : result;
    complete(this.channel, this.host, this.req, final, this.scope);
  }

  /** Ends the query without an answer: its socket closed, its timer cancelled. */
  private stop(): void {
    if (this.done) return;
    this.done = true;
    this.cancelTimer();
    this.closeSocket();
    this.closeTcp();
    const queries = pendingOf(this.channel);
    queries.delete(this.entry);
    if (queries.size === 0) pollStart.delete(this.channel);
    this.host.world.unrefHandle(this.host);
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.host.world.cancel(this.timer);
    this.timer = undefined;
  }

  private closeSocket(): void {
    if (this.socket === undefined) return;
    this.socket.owner = undefined;
    this.socket.close();
    this.socket = undefined;
  }

  private closeTcp(): void {
    this.tcp?.close();
    this.tcp = undefined;
  }
}

/**
 * c-ares' TCP connection to a DNS server (RFC 1035 4.2.2): each message is sent and read with a
 * two-byte length in front. Closed as soon as its query is done (c-ares keeps no idle
 * connection), so the server sees the end of the stream.
 */
class DnsTcpConnection implements TcpOwner {
  private readonly endpoint: TcpEndpoint;
  private established = false;
  private readonly unsent: Buffer[] = [];
  private received: Buffer = Buffer.alloc(0);
  private closed = false;

  constructor(
    private readonly query: WireQuery,
    host: Host,
    private readonly address: string,
    private readonly port: number,
    bindAddress: string | undefined,
  ) {
    const network = host.world.network;
    const family = familyOf(address) === 6 ? 6 : 4;
    const localAddress = bindAddress ?? network.sourceAddressTo(host, canonicalAddress(address), family);
    const local = { address: localAddress, port: network.tcp.ephemeralPort(host), family } as const;
    this.endpoint = new TcpEndpoint(network.tcp, host, local, { address, port, family });
    this.endpoint.owner = this;
    network.tcp.connect(this.endpoint);
  }

  get scope(): AsyncResource {
    return this.query.scope;
  }

  /** Whether this connection goes to that server (open or not). */
  to(address: string, port: number): boolean {
    return port === this.port && canonicalAddress(address) === canonicalAddress(this.address);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(message: Buffer): void {
    const framed = Buffer.alloc(2 + message.length);
    framed.writeUInt16BE(message.length, 0);
    message.copy(framed, 2);
    if (this.established) this.endpoint.write(framed);
    else this.unsent.push(framed);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.endpoint.owner = undefined;
    this.endpoint.close();
  }

  connected(status: number): void {
    if (this.closed) return;
    if (status !== 0) {
      this.closed = true;
      // A server that resets as it accepts fails the connect with ECONNRESET on loopback: for
      // c-ares that try failed (the next goes out), where a refusal skips the server.
      if (status === UV.ECONNRESET) this.query.tcpClosed(this);
      else this.query.tcpRefused(this);
      return;
    }
    this.established = true;
    this.endpoint.startReading();
    for (const framed of this.unsent.splice(0)) this.endpoint.write(framed);
  }

  data(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    while (!this.closed && this.received.length >= 2) {
      const size = this.received.readUInt16BE(0);
      if (this.received.length < 2 + size) return;
      const message = this.received.subarray(2, 2 + size);
      this.received = this.received.subarray(2 + size);
      this.query.message(message);
    }
  }

  end(): void {
    if (!this.closed) this.query.tcpClosed(this);
  }

  readError(): void {
    this.end();
  }

  writeFailed(): void {
    this.end();
  }

  writable(): void {}

  readSizeMax(): number {
    return 65536;
  }

  hasPendingWrites(): boolean {
    return false;
  }
}

function patchedQuery(method: string) {
  const original = real[method]!;
  const patched = function (this: NativeChannel, req: QueryReq, name: string): number {
    const host = currentHost();
    if (host === undefined) return original.call(this, req, name) as number;
    const text = String(name);
    const servers = wireServers(this, host);
    if (method === 'getHostByAddr') {
      // c-ares accepts address literals only; anything else fails at once (EINVAL).
      if (familyOf(text) === 0) return UV.EINVAL;
      // Loopback is in the hosts file, which c-ares reads before asking a server.
      if (servers !== undefined && !isLoopback(text)) {
        new WireQuery(this, host, req, method, ptrName(text), servers).start();
        return 0;
      }
      const target = reverseName(host, text);
      complete(this, host, req, target === undefined ? { error: 'ENOTFOUND' } : { records: [target] });
      return 0;
    }
    if (servers !== undefined) {
      // No servers at all: c-ares' ENOSERVER, which Node does not name.
      if (servers.length === 0) complete(this, host, req, { error: 'UNKNOWN_ARES_ERROR' });
      else new WireQuery(this, host, req, method, text, servers).start();
      return 0;
    }
    complete(this, host, req, answer(host, method, text));
    return 0;
  };
  Object.defineProperty(patched, 'name', { value: method });
  return patched;
}

/**
 * Servers set from a host are the simulation's business: the real channel keeps the machine's
 * configuration, so a Resolver (or the default resolver dns.setServers installs, which outlives
 * the run inside Node) never carries a host's settings into the test runner or the next run.
 * Without a setting of its own, a channel reports the real configuration, as in plain Node.
 */
const simServers = new WeakMap<NativeChannel, { world: WeakRef<World>; servers: Array<[string, number]> }>();

/** cares_wrap's DNS_ESETSRVPENDING: strerror gives "There are pending queries.". */
const DNS_ESETSRVPENDING = -1000;

function patchedSetServers(this: NativeChannel, servers: Array<[number, string, number]>): number {
  const host = currentHost();
  if (host === undefined) return real.setServers!.call(this, servers) as number;
  // Node refuses to change the servers of a channel with queries in flight (a query of a host
  // that is gone since, or of an earlier run, is not in flight any more).
  for (const entry of pending.get(this) ?? []) {
    if (entry.host.state === 'running' && entry.host.world === host.world) return DNS_ESETSRVPENDING;
  }
  // The world by WeakRef: the default resolver's channel lives as long as the process, and
  // its setting must not keep a finished world alive.
  simServers.set(this, { world: new WeakRef(host.world), servers: servers.map(([, address, port]) => [address, port]) });
  return 0;
}

function patchedGetServers(this: NativeChannel): unknown {
  const host = currentHost();
  const own = simServers.get(this);
  if (host === undefined || own === undefined || own.world.deref() !== host.world) return real.getServers!.call(this);
  return own.servers.map(([address, port]) => [address, port]);
}

/** cancel(): pending simulated queries fail with ECANCELLED (in a later event, as in Node). */
function patchedCancel(this: NativeChannel): void {
  const queries = pending.get(this);
  if (queries !== undefined && queries.size > 0) {
    for (const entry of [...queries]) {
      queries.delete(entry);
      entry.stop();
      entry.host.world.schedule(entry.host, 0, 'io', () => entry.req.oncomplete('ECANCELLED'), undefined, true, entry.scope);
    }
  }
  // Real queries made from outside every host, if any, are the real channel's to cancel.
  real.cancel!.call(this);
}

export const dnsResolverShim: Shim = {
  name: 'dns-resolver',
  install(patches: PatchSet) {
    for (const method of QUERY_METHODS) patches.replace(proto, method, patchedQuery(method));
    patches.replace(proto, 'cancel', patchedCancel);
    patches.replace(proto, 'getServers', patchedGetServers);
    patches.replace(proto, 'setServers', patchedSetServers);
    patches.replace(proto, 'setLocalAddress', patchedSetLocalAddress);
    patches.replace(cares, 'ChannelWrap', RecordingChannelWrap);
  },
};
