/**
 * UDP on the simulated network: sockets bound per host and port, datagrams that cross the rule
 * chain one by one and so may be lost, duplicated or reordered (each copy has its own latency).
 *
 * The model follows Linux where a program can observe it:
 * - bind conflicts (EADDRINUSE) unless both sockets asked for SO_REUSEADDR or SO_REUSEPORT; a
 *   dual-stack '::' socket conflicts with IPv4 sockets on the same port; port 0 is ephemeral
 *   (32768-60999);
 * - a payload above 65,507 bytes (IPv4) or 65,527 bytes (IPv6) fails with EMSGSIZE at once;
 * - a connected socket only receives from its peer, and learns of a closed peer port from the
 *   ICMP "port unreachable" the peer's kernel sends back (ECONNREFUSED on the next receive);
 *   an unconnected socket never hears of it;
 * - broadcast (255.255.255.255, 10.255.255.255) needs SO_BROADCAST (EACCES otherwise) and
 *   reaches every host; multicast reaches the members of the group on every host, the
 *   sender's own host included unless multicast loopback is off.
 * A datagram to an address outside the simulation is lost in the network, never sent for real.
 */
import type { AsyncResource } from 'node:async_hooks';
import type { Host } from '../hosts/host.js';
import { type Family, familyOf, isLoopback, isWildcard, unmapped, unspecifiedAsLoopback } from './addresses.js';
import { UV } from './errno.js';
import type { Network, PacketTrace } from './network.js';

/** Linux's limit for a UDP payload over IPv4 (65535 - 8 - 20). */
export const UDP_PAYLOAD_MAX = 65_507;
/** ... and over IPv6 (65535 - 8: the IPv6 header is not part of the payload length). */
export const UDP6_PAYLOAD_MAX = 65_527;
/** Linux's ephemeral port range (net.ipv4.ip_local_port_range). */
const EPHEMERAL_MIN = 32_768;
const EPHEMERAL_COUNT = 61_000 - EPHEMERAL_MIN;
/** IP + UDP header bytes, for the packet size the rules see. */
const HEADER_BYTES = 28;
/** The size of an ICMP port-unreachable message (header + quoted IP/UDP headers). */
const ICMP_BYTES = 56;
/** errno values libuv reports that runtime/network/errno.ts does not list. */
export const UV_EXTRA = { EACCES: -13, ENODEV: -19, EDESTADDRREQ: -89 } as const;

/** Addresses that reach every host on the simulated network (10.0.0.0/8 is one subnet). */
const BROADCAST = new Set(['255.255.255.255', '10.255.255.255']);

/** One end of a datagram: what getsockname / rinfo report. */
export interface UdpPeer {
  address: string;
  family: Family;
  port: number;
}

/** What the shim's handle implements to hear from its socket. */
export interface UdpOwner {
  /** The async context of the handle: deliveries run inside it. */
  readonly scope: AsyncResource | undefined;
  /** Its receive buffer (SO_RCVBUF as Linux reports it: twice what was asked for); default RECV_BUFFER_DEFAULT_BYTES. */
  readonly recvBufferBytes?: number;
  message(data: Buffer, from: UdpPeer): void;
  /** An error reported by the network on a connected socket (ECONNREFUSED from ICMP). */
  error(code: number): void;
}

/** A datagram sent to a socket of its own process: put in `socket`'s buffer at the send, or dropped (`taken` false). */
interface Claim {
  socket: UdpSocket;
  size: number;
  taken: boolean;
}

/** What becomes of one copy of a datagram where it arrives. */
interface Arrival {
  host: Host;
  /** The sockets that take it in. */
  sockets: UdpSocket[];
  /** No socket is bound to its port: the host answers ICMP port unreachable. */
  unreachable: boolean;
  /** Every socket it was for dropped it, its receive buffer full. */
  lost: boolean;
}

export interface UdpBindOptions {
  reuseAddr?: boolean;
  reusePort?: boolean;
  ipv6Only?: boolean;
}

interface Membership {
  group: string;
  /** Source-specific membership: only datagrams from this source. */
  source: string | undefined;
}

/** A datagram on the wire: network-level family and addresses, already canonical. */
interface Datagram {
  family: Family;
  source: string;
  sourcePort: number;
  destination: string;
  port: number;
  payload: Buffer;
}

/** What the UDP layer asks of an address string, worked out once per distinct string. */
interface AddressFacts {
  /** IPv4-mapped IPv6 unmapped, IPv6 in its shortest lower-case form. */
  canonical: string;
  multicast: boolean;
  broadcast: boolean;
}

/**
 * Facts per address string as given. Every send and every delivery asks them of the same few
 * strings, and working them out (a regular expression, net.isIP, an IPv6 parse) was 15-20% of
 * a gossip workload's time. A pure function of the string: caching cannot change a run. Cleared
 * when it grows past FACTS_MAX (a program cycling through many addresses).
 */
const factsByAddress = new Map<string, AddressFacts>();
const FACTS_MAX = 4096;

function factsOf(address: string): AddressFacts {
  let facts = factsByAddress.get(address);
  if (facts === undefined) {
    const canonical = canonicalOf(address);
    const family = familyOf(canonical);
    const multicast = family === 4 ? isMulticastV4(canonical) : family === 6 && canonical.startsWith('ff');
    facts = { canonical, multicast, broadcast: BROADCAST.has(canonical) };
    if (factsByAddress.size >= FACTS_MAX) factsByAddress.clear();
    factsByAddress.set(address, facts);
  }
  return facts;
}

function canonicalOf(address: string): string {
  const a = unmapped(address);
  if (familyOf(a) !== 6) return a;
  try {
    return new URL(`http://[${a}]/`).hostname.slice(1, -1);
  } catch {
    return a.toLowerCase();
  }
}

function isMulticastV4(address: string): boolean {
  const first = Number(address.split('.')[0]);
  return first >= 224 && first <= 239;
}

/** Canonical text of an address: IPv4-mapped IPv6 unmapped, IPv6 in its shortest lower-case form. */
export function canonicalAddress(address: string): string {
  return factsOf(address).canonical;
}

export function isMulticast(address: string): boolean {
  return factsOf(address).multicast;
}

export function isBroadcast(address: string): boolean {
  return factsOf(address).broadcast;
}

/**
 * Datagrams libuv reads of one socket in one poll phase (uv__udp_recvmsg's count): the rest wait
 * for the next turn's poll, after its immediates and timers. Measured: 40 datagrams a process
 * sent itself are read 32, then an immediate the first one queued, then 8.
 */
const READS_PER_POLL = 32;

/** Linux's default SO_RCVBUF for a UDP socket (net.core.rmem_default), as getsockopt reports it. */
export const RECV_BUFFER_DEFAULT_BYTES = 212_992;

/** The receive buffer of the socket `owner` has now (a closed socket's: the default). */
function recvBufferOf(owner: UdpOwner | undefined): number {
  return owner?.recvBufferBytes ?? RECV_BUFFER_DEFAULT_BYTES;
}

/**
 * What a datagram of `bytes` takes of a receive buffer (its skb's truesize), as Linux 6 counts a
 * loopback datagram: its data with headroom and headers (59 bytes, 64-byte aligned) and the
 * skb_shared_info (320), in the allocator's power-of-two block, plus the sk_buff itself (256); a
 * small one comes from the small-head cache (832 in all); a large one's data lies in pages,
 * counted about as they are. Measured with a receiver that did not read, against a 212,992-byte
 * buffer: 166 datagrams held of 134-384 bytes, 92 of 1000-1669, 48 of 1670, 25 of 4000, 10 of
 * 20000, each floor(212992 / truesize).
 */
export function truesize(bytes: number): number {
  if (bytes <= 133) return 832;
  const head = Math.ceil((bytes + 59) / 64) * 64 + 320;
  if (head > 16_384) return head + 640;
  let block = 512;
  while (block < head) block *= 2;
  return block + 256;
}

/**
 * A UDP socket's receive queue, for its one effect a program can see: a datagram that arrives
 * while what is queued has filled the buffer is dropped. A datagram is queued from its arrival
 * (the instant its delivery came due) until it is read (when its delivery runs): at once when
 * its process is free, later when the process was stalled, paused or busy (program faults'
 * lag and stall, scenario pauses), and then the ones behind it pile up, as in production.
 * Deliveries run in the order they arrived, so the queue is a list in that order.
 */
export class ReceiveQueue {
  private readNs: number[] = [];
  private sizes: number[] = [];
  private head = 0;
  private bytes = 0;

  /**
   * Whether a datagram that arrived at `arrivedNs` and is read at `nowNs` was taken into the
   * buffer: not when what was queued at its arrival (read after it) leaves no room for it.
   */
  admit(arrivedNs: number, nowNs: number, size: number, capacity: number): boolean {
    // The datagrams read before this one arrived had left the queue by then.
    while (this.head < this.readNs.length && this.readNs[this.head]! <= arrivedNs) {
      this.bytes -= this.sizes[this.head]!;
      this.head++;
    }
    if (this.head === this.readNs.length && this.head > 0) {
      this.readNs = [];
      this.sizes = [];
      this.head = 0;
    }
    // Linux lets a datagram in while the queue is empty or it fits (__udp_enqueue_schedule_skb).
    if (this.bytes > 0 && this.bytes + size > capacity) return false;
    if (nowNs > arrivedNs) {
      this.readNs.push(nowNs);
      this.sizes.push(size);
      this.bytes += size;
    }
    return true;
  }

  /**
   * What the datagrams its own process sent it over loopback take, from each send until the
   * datagram is read (claim, read): loopback puts a datagram in the receiver's buffer inside
   * sendto(2), and the process cannot read it before the code that sent it, and the callbacks
   * of the same loop phase, have run. So a loop that sends a burst to a socket of its own
   * process fills the buffer and loses the rest, as real Node does (300 datagrams of 1000 bytes
   * in one loop: 92 received).
   */
  private claimed = 0;
  /** Datagrams claim() took in and not yet read. */
  private claimedCount = 0;
  /** Of those, how many the reader took over at its last splice (udp's reader_queue). */
  private spliced = 0;
  /** Bytes read since memory was last given back (udp's forward_deficit). */
  private deficit = 0;

  /**
   * Whether a datagram its own process sends now, of `size` (truesize), goes into the buffer:
   * it does while the buffer holds nothing of its own process's or it fits beside what does
   * (Linux's rule, as admit() applies it). Not exact where both kinds meet: the datagrams from
   * elsewhere that wait unread are not counted here, nor these in admit(), though Linux has one
   * buffer for both (a process busy while a peer sends, then sending itself a burst: Linux
   * keeps the peer's and 74 of its own, the simulation 92 of its own).
   */
  claim(size: number, capacity: number): boolean {
    if (this.claimed > 0 && this.claimed + size > capacity) return false;
    this.claimed += size;
    this.claimedCount++;
    return true;
  }

  /**
   * A datagram claim() took in is read. Linux gives its memory back to the buffer only once a
   * quarter of the buffer has been read, or the reader has read every datagram it took over
   * from the queue at its last look (udp_rmem_release: forward_deficit, reader_queue), so a
   * buffer that is read while it fills stays fuller than what it holds.
   */
  read(size: number, capacity: number): void {
    if (this.spliced === 0) this.spliced = this.claimedCount;
    this.spliced--;
    this.claimedCount--;
    this.deficit += size;
    if (this.deficit >= capacity >> 2 || this.spliced === 0) {
      this.claimed -= this.deficit;
      this.deficit = 0;
    }
  }

  /** A datagram claim() took in never reached the buffer (lost on the way). */
  release(size: number): void {
    this.claimed -= size;
    this.claimedCount--;
  }
}

export class UdpSocket {
  owner: UdpOwner | undefined;
  /** The address as bound (wildcard, a host address, loopback, a group) and the one in use. */
  boundAddress: string;
  address: string;
  port = 0;
  bound = false;
  receiving = false;
  closed = false;
  broadcast = false;
  multicastLoopback = true;
  multicastInterface: string | undefined;
  ttl = 64;
  multicastTtl = 1;
  reuseAddr = false;
  reusePort = false;
  ipv6Only = false;
  /** The peer of a connected socket. */
  remote: UdpPeer | undefined;
  readonly memberships: Membership[] = [];
  /** Bind order on the stack: with SO_REUSEADDR the newest socket gets unicast datagrams. */
  bindOrder = 0;
  /** The chain its datagrams are received in (see World.chainForSocket), chosen when it binds. */
  chain = 0;
  /**
   * The poll turn of its host's loop that reads the last datagram its own process sent it
   * (World.pollTurn), and how many that poll reads: libuv reads at most READS_PER_POLL.
   */
  readTurn = -1;
  readsInTurn = 0;
  /**
   * The receive queue, as far as it matters: datagrams taken in that were read after they
   * arrived (their process was stalled, paused or busy), each with when it was read and what it
   * took of the buffer, oldest first; and the sum of what they took (ReceiveQueue, above).
   */
  readonly queue = new ReceiveQueue();

  /** The socket's number in the order of the run's sockets (what the fingerprint records of it). */
  readonly serial: number;

  constructor(
    readonly stack: UdpStack,
    readonly host: Host,
    readonly family: Family,
  ) {
    this.serial = stack.nextSerial();
    this.boundAddress = family === 6 ? '::' : '0.0.0.0';
    this.address = this.boundAddress;
  }

  /** True if a datagram of `family` to `destination` (canonical) may be delivered here. */
  accepts(d: Datagram): boolean {
    if (this.closed || !this.bound || d.port !== this.port) return false;
    if (this.family === 4 ? d.family !== 4 : d.family === 4 && this.ipv6Only) return false;
    const local = canonicalAddress(this.address);
    if (!isWildcard(local) && local !== d.destination) return false;
    if (isMulticast(d.destination)) {
      if (!this.memberships.some((m) => m.group === d.destination && (m.source === undefined || m.source === d.source))) return false;
    }
    if (this.remote !== undefined) {
      if (canonicalAddress(this.remote.address) !== d.source || this.remote.port !== d.sourcePort) return false;
    }
    return true;
  }

  /** How well this socket matches (Linux prefers exact local addresses and connected sockets). */
  score(d: Datagram): number {
    return (isWildcard(this.address) ? 0 : 2) + (this.remote === undefined ? 0 : 4) + (this.family === d.family ? 1 : 0);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.receiving = false;
    this.owner = undefined;
    this.stack.unbind(this);
  }
}

export class UdpStack {
  readonly network: Network;
  private readonly sockets: UdpSocket[] = [];
  private readonly nextEphemeral = new Map<Host, number>();
  private bindCount = 0;
  private serials = 0;

  constructor(network: Network) {
    this.network = network;
  }

  /** The next socket's serial number. */
  nextSerial(): number {
    return ++this.serials;
  }

  /** The bound sockets, in bind order (for reports of what keeps a run alive). */
  boundSockets(): readonly UdpSocket[] {
    return this.sockets;
  }

  // ---- binding -------------------------------------------------------------------------------

  /**
   * Binds `socket` to `address`:`port` (port 0: an ephemeral port). Returns 0 or a UV code:
   * EINVAL (already bound, or an address of the other family), EADDRNOTAVAIL (not an address
   * of this host), EADDRINUSE.
   */
  bind(socket: UdpSocket, address: string, port: number, options: UdpBindOptions = {}): number {
    if (socket.closed) return UV.EBADF;
    if (socket.bound) return UV.EINVAL;
    const addressFamily = familyOf(address);
    if (addressFamily === 0 || (socket.family === 4 && addressFamily !== 4)) return UV.EINVAL;
    if (socket.family === 6 && addressFamily !== 6) return UV.EINVAL;
    const plain = canonicalAddress(address);
    if (!isMulticast(plain) && !isBroadcast(plain) && !this.network.isLocal(socket.host, plain)) return UV.EADDRNOTAVAIL;
    socket.reuseAddr = options.reuseAddr === true;
    socket.reusePort = options.reusePort === true;
    socket.ipv6Only = options.ipv6Only === true;
    socket.boundAddress = address;
    socket.address = address;
    if (port === 0) {
      const chosen = this.ephemeralPort(socket);
      if (chosen === undefined) return UV.EADDRINUSE;
      socket.port = chosen;
    } else {
      socket.port = port;
      if (this.sockets.some((other) => this.conflicts(socket, other))) {
        socket.port = 0;
        return UV.EADDRINUSE;
      }
    }
    socket.bound = true;
    socket.bindOrder = ++this.bindCount;
    socket.chain = this.network.world.chainForSocket();
    this.sockets.push(socket);
    return 0;
  }

  /** libuv binds an unbound socket implicitly (to the wildcard, port 0) before send/connect. */
  ensureBound(socket: UdpSocket): number {
    if (socket.bound) return 0;
    return this.bind(socket, socket.family === 6 ? '::' : '0.0.0.0', 0);
  }

  private ephemeralPort(socket: UdpSocket): number | undefined {
    const host = socket.host;
    let offset = this.nextEphemeral.get(host);
    if (offset === undefined) offset = host.stream('udp-ports').int(0, EPHEMERAL_COUNT);
    for (let tries = 0; tries < EPHEMERAL_COUNT; tries++) {
      const port = EPHEMERAL_MIN + ((offset + tries) % EPHEMERAL_COUNT);
      if (!this.sockets.some((s) => s.host === host && s.port === port)) {
        this.nextEphemeral.set(host, (offset + tries + 1) % EPHEMERAL_COUNT);
        return port;
      }
    }
    return undefined;
  }

  /** Would `socket` and the already bound `other` receive the same datagrams (Linux bind rules)? */
  private conflicts(socket: UdpSocket, other: UdpSocket): boolean {
    if (other.host !== socket.host || other.port !== socket.port || other.closed) return false;
    if (socket.reuseAddr && other.reuseAddr) return false;
    if (socket.reusePort && other.reusePort) return false;
    const a = canonicalAddress(socket.boundAddress);
    const b = canonicalAddress(other.boundAddress);
    if (socket.family === other.family) return a === b || isWildcard(a) || isWildcard(b);
    // IPv4 against IPv6: only a dual-stack IPv6 socket (wildcard or IPv4-mapped) overlaps.
    const v6 = socket.family === 6 ? socket : other;
    const v4 = socket.family === 6 ? other : socket;
    if (v6.ipv6Only) return false;
    const v6Address = canonicalAddress(v6.boundAddress);
    if (v6Address === '::') return true;
    if (familyOf(v6Address) !== 4) return false;
    const v4Address = canonicalAddress(v4.boundAddress);
    return v6Address === v4Address || isWildcard(v4Address);
  }

  unbind(socket: UdpSocket): void {
    const i = this.sockets.indexOf(socket);
    if (i >= 0) this.sockets.splice(i, 1);
  }

  // ---- connect -------------------------------------------------------------------------------

  /** Sets the default peer (connect(2) on a datagram socket only records it locally). */
  connect(socket: UdpSocket, to: string, port: number): number {
    const address = unspecifiedAsLoopback(to);
    const err = this.checkDestination(socket, address);
    if (err !== 0) return err;
    const bindErr = this.ensureBound(socket);
    if (bindErr !== 0) return bindErr;
    socket.remote = { address, family: socket.family, port };
    // The kernel picks the local address now (getsockname shows it).
    if (isWildcard(canonicalAddress(socket.address))) {
      const source = this.sourceAddress(socket, canonicalAddress(address));
      socket.address = socket.family === 6 && familyOf(source) === 4 ? `::ffff:${source}` : source;
    }
    return 0;
  }

  /** Forgets the peer; a local address picked by connect() goes back to the bound one. */
  disconnect(socket: UdpSocket): number {
    if (socket.remote === undefined) return UV.ENOTCONN;
    socket.remote = undefined;
    socket.address = socket.boundAddress;
    return 0;
  }

  // ---- multicast -----------------------------------------------------------------------------

  /** IP_ADD_MEMBERSHIP / IP_ADD_SOURCE_MEMBERSHIP. */
  addMembership(socket: UdpSocket, group: string, iface: string | undefined, source?: string): number {
    const err = this.checkMembership(socket, group, iface, source);
    if (err !== 0) return err;
    const g = canonicalAddress(group);
    const s = source === undefined ? undefined : canonicalAddress(source);
    if (socket.memberships.some((m) => m.group === g && m.source === s)) return UV.EADDRINUSE;
    const bindErr = this.ensureBound(socket);
    if (bindErr !== 0) return bindErr;
    socket.memberships.push({ group: g, source: s });
    return 0;
  }

  dropMembership(socket: UdpSocket, group: string, iface: string | undefined, source?: string): number {
    const err = this.checkMembership(socket, group, iface, source);
    if (err !== 0) return err;
    const g = canonicalAddress(group);
    const s = source === undefined ? undefined : canonicalAddress(source);
    const i = socket.memberships.findIndex((m) => m.group === g && m.source === s);
    if (i < 0) return source === undefined ? UV.EADDRNOTAVAIL : UV.EINVAL;
    socket.memberships.splice(i, 1);
    return 0;
  }

  private checkMembership(socket: UdpSocket, group: string, iface: string | undefined, source: string | undefined): number {
    if (familyOf(group) !== socket.family || !isMulticast(group)) return UV.EINVAL;
    if (source !== undefined && (familyOf(source) !== socket.family || isMulticast(source))) return UV.EINVAL;
    if (iface !== undefined && socket.family === 4) {
      if (familyOf(iface) !== 4) return UV.EINVAL;
      if (!isWildcard(iface) && !this.network.isLocal(socket.host, iface)) return UV_EXTRA.ENODEV;
    }
    return 0;
  }

  /** IP_MULTICAST_IF: an address of this host (IPv4), or an interface scope (IPv6). */
  setMulticastInterface(socket: UdpSocket, iface: string): number {
    if (socket.family === 4) {
      if (familyOf(iface) !== 4) return UV.EINVAL;
      if (!isWildcard(iface) && !this.network.isLocal(socket.host, iface)) return UV.EADDRNOTAVAIL;
      socket.multicastInterface = isWildcard(iface) ? undefined : iface;
      return 0;
    }
    const [address] = iface.split('%');
    if (familyOf(address ?? '') !== 6) return UV.EINVAL;
    return 0;
  }

  // ---- sending -------------------------------------------------------------------------------

  /** Errors the kernel reports at once for a destination (before anything is sent). */
  private checkDestination(socket: UdpSocket, address: string): number {
    const family = familyOf(address);
    // libuv parses the address with the socket's family: IPv4 text on a udp6 socket is EINVAL.
    if (family !== socket.family) return UV.EINVAL;
    if (socket.family === 6 && socket.ipv6Only && familyOf(unmapped(address)) === 4) return UV.ENETUNREACH;
    const destination = canonicalAddress(address);
    if (isBroadcast(destination) && !socket.broadcast) return UV_EXTRA.EACCES;
    // A socket bound to loopback cannot reach other machines.
    const local = canonicalAddress(socket.address);
    if (isLoopback(local) && !isLoopback(destination) && !isMulticast(destination)) return UV.EINVAL;
    return 0;
  }

  /**
   * Sends one datagram to `address`:`port` (the peer of a connected socket when address is
   * undefined). Returns 0 when it left the host (delivery is never confirmed) or a UV code:
   * EMSGSIZE, EINVAL, EACCES, EDESTADDRREQ.
   */
  send(from: UdpSocket, address: string | undefined, port: number | undefined, data: Buffer): number {
    if (from.closed) return UV.EBADF;
    let to: string;
    let toPort: number;
    if (address === undefined || port === undefined) {
      if (from.remote === undefined) return UV_EXTRA.EDESTADDRREQ;
      to = from.remote.address;
      toPort = from.remote.port;
    } else {
      to = unspecifiedAsLoopback(address);
      toPort = port;
    }
    const err = this.checkDestination(from, to);
    if (err !== 0) return err;
    const destination = canonicalAddress(to);
    const family: Family = familyOf(destination) === 4 ? 4 : 6;
    if (data.length > (family === 4 ? UDP_PAYLOAD_MAX : UDP6_PAYLOAD_MAX)) return UV.EMSGSIZE;
    const bindErr = this.ensureBound(from);
    if (bindErr !== 0) return bindErr;
    // Code of an incarnation that is down still runs (a leftover microtask): nothing leaves.
    if (from.host.state !== 'running') return 0;
    const source = isMulticast(destination) && from.multicastInterface !== undefined
      ? canonicalAddress(from.multicastInterface)
      : this.sourceAddress(from, destination);
    const datagram: Datagram = { family, source, sourcePort: from.port, destination, port: toPort, payload: Buffer.from(data) };
    if (isMulticast(destination) || isBroadcast(destination)) {
      for (const host of this.network.world.hosts.list) {
        if (host === from.host && isMulticast(destination) && !from.multicastLoopback) continue;
        this.transmit(from, host, datagram, false);
      }
      return 0;
    }
    const target = this.network.hostAt(destination, from.host);
    if (target === undefined) return 0; // outside the simulation: lost in the network
    this.transmit(from, target, datagram, true);
    return 0;
  }

  /** Puts one datagram on the link from `from`'s host to `to`; delivers it on arrival. */
  private transmit(from: UdpSocket, to: Host, d: Datagram, unicast: boolean): void {
    const world = this.network.world;
    const fifo = from.host === to && !this.network.reorderDatagrams ? this.network.flow(`udp:${to.index}:${from.port}`) : undefined;
    const chain = this.sockets.find((s) => s.host === to && s.port === d.port)?.chain;
    // On loopback (to its own host) the kernel finds the socket inside sendto: one bound later
    // never gets it, and with none bound the sender's host answers port unreachable.
    const target = unicast && from.host === to ? this.receivers(to, d, true)[0] : undefined;
    let unboundAtSend = unicast && from.host === to && target === undefined;
    // To a socket of the sending process: in its buffer from now (ReceiveQueue.claim). The first
    // copy to arrive is that datagram; another (a duplicate) arrives as one from elsewhere.
    let claim = target === undefined ? undefined : this.claimFor(target, d);
    // It is read in the poll World.pollTurn gives, or a later one (READS_PER_POLL).
    const turn = claim !== undefined && claim.taken ? this.readTurn(claim.socket) : -1;
    const atOnce = world.loopbackAtOnce;
    // What happens to a copy when it arrives, decided once per copy: before the trace's `recv`
    // (which says when the buffer dropped it), or else as the delivery runs.
    const arrive = (): Arrival => {
      const own = claim;
      claim = undefined;
      if (own !== undefined && own.taken) own.socket.queue.read(own.size, recvBufferOf(own.socket.owner));
      // The destination may have restarted since: its current incarnation receives. A machine
      // that is off (crashed) receives nothing and answers nothing, not even ICMP.
      const host = world.hosts.list[to.index] ?? to;
      if (this.network.machineOff(host)) return { host, sockets: [], unreachable: false, lost: false };
      const receivers = unboundAtSend ? [] : this.receivers(host, d, unicast);
      const sockets: UdpSocket[] = [];
      let dropped = false;
      for (const socket of receivers) {
        const owner = socket.owner;
        if (owner === undefined || !socket.receiving || host.state !== 'running') continue;
        // A full receive buffer drops the datagram, as Linux does (__udp_enqueue_schedule_skb).
        const taken = own !== undefined && own.socket === socket
          ? own.taken
          : socket.queue.admit(world.runningDueNs, world.nowNs, truesize(d.payload.length), recvBufferOf(owner));
        if (taken) sockets.push(socket);
        else dropped = true;
      }
      return { host, sockets, unreachable: unicast && receivers.length === 0, lost: dropped && sockets.length === 0 };
    };
    let arrival: Arrival | undefined;
    const traced: PacketTrace | undefined = world.tracing ? { msg: world.nextTraceId(), seg: 'dgram', data: d.payload } : undefined;
    if (traced !== undefined) {
      traced.lost = () => {
        arrival = arrive();
        return arrival.lost ? 'receive buffer full' : undefined;
      };
    }
    world.inPollTurn(turn, () => this.network.send(from.host, to, 'udp', d.payload.length + HEADER_BYTES, () => {
      const { host, sockets, unreachable } = arrival ?? arrive();
      arrival = undefined;
      if (unreachable) {
        this.portUnreachable(from, host, d);
        return;
      }
      for (const socket of sockets) {
        // An earlier receiver's listener may have closed this one (a multicast group's).
        const owner = socket.owner;
        if (owner === undefined || !socket.receiving || host.state !== 'running') continue;
        const rinfo = this.presentSource(socket, d);
        const copy = ownBuffer(d.payload);
        // Which socket got which datagram: two runs that swap two sockets' traffic at the same
        // instants would otherwise have one fingerprint. Its serial, not its port (a seeded
        // ephemeral port would make every seed's fingerprint differ by it alone).
        world.fingerprint.mix(socket.serial);
        if (owner.scope !== undefined) owner.scope.runInAsyncScope(() => owner.message(copy, rinfo));
        else owner.message(copy, rinfo);
      }
    }, fifo, undefined, traced, chain));
    if (world.loopbackAtOnce === atOnce) {
      // Lost on the way (a loss rule), or slowed by a fault or a slow loopbackLatency past what
      // loopback takes at once: it was not in the buffer from the send, and is read in no poll
      // the send decided. A copy that arrives is taken as one from elsewhere, on arrival.
      if (claim !== undefined && claim.taken) {
        claim.socket.queue.release(claim.size);
        claim.socket.readsInTurn--;
      }
      claim = undefined;
      unboundAtSend = false;
    }
  }

  /**
   * The poll turn that reads a datagram `socket`'s own process sends it now: the turn
   * World.pollTurn gives, unless that poll already reads READS_PER_POLL of the socket's; then
   * the next turn's (the socket's buffer is read oldest first).
   */
  private readTurn(socket: UdpSocket): number {
    const natural = this.network.world.pollTurn(socket.host);
    if (natural > socket.readTurn) {
      socket.readTurn = natural;
      socket.readsInTurn = 0;
    } else if (socket.readsInTurn === READS_PER_POLL) {
      socket.readTurn++;
      socket.readsInTurn = 0;
    }
    socket.readsInTurn++;
    return socket.readTurn;
  }

  /**
   * A unicast datagram the running code sends `socket`, a socket of its own host: when it is one
   * of its own process (with program faults' chains, its chain: a process of a plain program),
   * whether it went into that socket's buffer at the send (ReceiveQueue.claim).
   */
  private claimFor(socket: UdpSocket, d: Datagram): Claim | undefined {
    const owner = socket.owner;
    if (owner === undefined || !socket.receiving || socket.chain !== this.network.world.currentChain) return undefined;
    const size = truesize(d.payload.length);
    return { socket, size, taken: socket.queue.claim(size, recvBufferOf(owner)) };
  }

  /** The sockets of `host` that get a datagram: the best match for unicast, every match otherwise. */
  private receivers(host: Host, d: Datagram, unicast: boolean): UdpSocket[] {
    if (host.state !== 'running') return [];
    const matches = this.sockets.filter((s) => s.host === host && s.accepts(d));
    if (!unicast || matches.length <= 1) return matches;
    let best = -1;
    for (const s of matches) best = Math.max(best, s.score(d));
    const top = matches.filter((s) => s.score(d) === best);
    if (top.length > 1 && top.every((s) => s.reusePort)) {
      // SO_REUSEPORT spreads flows over the group by a hash of the source.
      return [top[flowHash(d) % top.length]!];
    }
    // SO_REUSEADDR: the socket bound last takes unicast datagrams.
    return [top.reduce((a, b) => (b.bindOrder > a.bindOrder ? b : a))];
  }

  /** ICMP port unreachable: a connected sender learns ECONNREFUSED; others never hear of it. */
  private portUnreachable(from: UdpSocket, at: Host, d: Datagram): void {
    const remote = from.remote;
    if (remote === undefined || canonicalAddress(remote.address) !== d.destination || remote.port !== d.port) return;
    this.network.send(at, from.host, 'udp', ICMP_BYTES, () => {
      const still = from.remote;
      if (from.closed || still === undefined || canonicalAddress(still.address) !== d.destination || still.port !== d.port) return;
      const owner = from.owner;
      if (owner === undefined || !from.receiving || from.host.state !== 'running') return;
      if (owner.scope !== undefined) owner.scope.runInAsyncScope(() => owner.error(UV.ECONNREFUSED));
      else owner.error(UV.ECONNREFUSED);
    }, undefined, undefined, this.network.world.tracing ? { msg: this.network.world.nextTraceId(), seg: 'icmp' } : undefined);
  }

  /** The source as the receiving socket reports it (an IPv6 socket sees IPv4 senders mapped). */
  private presentSource(socket: UdpSocket, d: Datagram): UdpPeer {
    if (socket.family === 6 && d.family === 4) return { address: `::ffff:${d.source}`, family: 6, port: d.sourcePort };
    return { address: d.source, family: d.family, port: d.sourcePort };
  }

  /** The address a datagram to `destination` (canonical) appears to come from. */
  sourceAddress(from: UdpSocket, destination: string): string {
    const family = familyOf(destination) === 4 ? 4 : 6;
    const local = canonicalAddress(from.address);
    // A socket bound to one of its addresses sends from it, to loopback too.
    if (!isWildcard(local) && familyOf(local) === family && !isMulticast(local) && !isBroadcast(local)) return local;
    return this.network.sourceAddressTo(from.host, destination, family);
  }

  /** The host's process is gone: the kernel closes its sockets. */
  hostDown(host: Host): void {
    for (const socket of [...this.sockets]) if (socket.host === host) socket.close();
  }
}

/** A copy with an ArrayBuffer of its own, exactly the payload's size (as Node's recv buffers). */
function ownBuffer(payload: Buffer): Buffer {
  const bytes = new Uint8Array(payload.length);
  bytes.set(payload);
  return Buffer.from(bytes.buffer, 0, payload.length);
}

/** A deterministic hash of a datagram's flow (source address and port). */
function flowHash(d: Datagram): number {
  let h = 2166136261;
  const text = `${d.source}:${d.sourcePort}`;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
