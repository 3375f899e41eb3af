/**
 * TCP on the simulated network. A connection is two endpoints; each direction is a stream of
 * sequenced segments (the SYN-ACK is segment 0 of the server's direction) that the receiver
 * reorders, so random per-packet latency never reorders the byte stream. Loss means
 * retransmission with exponential backoff; silence longer than the network's TCP timeout fails
 * the connection with ETIMEDOUT. A segment that reaches a closed endpoint, or a port nobody
 * listens on, is answered with a reset (ECONNRESET / ECONNREFUSED), as a kernel would.
 *
 * Flow control: a sender may have WINDOW_BYTES in flight or unread at the receiver; beyond that
 * its writes complete only when the receiving application reads (a window update), which is
 * how write() returning false and 'drain' arise.
 *
 * Errors follow Linux where a program can observe them (tcp_reset, tcp_recvmsg, tcp_sendmsg):
 * - a reset or a retransmission timeout records one pending socket error (ECONNRESET, or EPIPE
 *   when the peer's FIN had already arrived, or ETIMEDOUT), reported ONCE, to whichever comes
 *   first: the next read (after the bytes that arrived before it) or the next write; later
 *   writes fail with EPIPE and later reads see EOF;
 * - when the peer's FIN arrived before the reset, a read still sees EOF first (SOCK_DONE is
 *   checked before the socket error), so the error surfaces on the next write;
 * - an application that is not reading hears nothing until it reads or writes;
 * - closing a socket with unread received data sends a reset instead of a FIN;
 * - a closed socket (orphan) answers data with a reset but accepts the peer's FIN quietly.
 * A machine that crashed (a power loss: Sim.crash) sends nothing and answers nothing until it
 * boots again: its peers' segments are lost and retransmitted, their SYNs go unanswered, and
 * only their own timeouts (retransmission, keepalive probes) or the reset of the rebooted
 * machine's kernel tell them. A process that dies with its kernel alive (Sim.kill, an uncaught
 * exception) has its sockets closed by the kernel: a FIN, or a reset when unread data remains.
 * Bind conflicts follow Linux with SO_REUSEADDR (libuv sets it): only a listening socket makes
 * an address "in use"; a dual-stack '::' listener overlaps every IPv4 address.
 */
import type { AsyncResource } from 'node:async_hooks';
import type { Host } from '../hosts/host.js';
import { type Family, isWildcard, unmapped } from './addresses.js';
import { UV } from './errno.js';
import { once } from '../once.js';
import { type FifoFlow, LOOPBACK_AT_ONCE_NS, type Network, type PacketTrace } from './network.js';
import type { SimEvent } from '../scheduler/event.js';

export const WINDOW_BYTES = 256 * 1024;
/** The most libuv hands to one read callback (it reads into 64 KiB buffers). */
export const READ_CHUNK_BYTES = 64 * 1024;
/** The most reads libuv makes of one socket in one poll (uv__read's count). */
export const READS_PER_POLL = 32;
/**
 * Whether this Node's libuv reports EOF straight after a partial read under EPOLLHUP (before
 * 1.52: Node 20 and 22). libuv 1.52 (Node 24) reads again in the next poll instead (libuv
 * #4997, which dropped that shortcut while POLLIN is set, as it always is for TCP then).
 */
const [UV_MAJOR, UV_MINOR] = process.versions.uv.split('.').map(Number) as [number, number];
export const HANGUP_EOF = UV_MAJOR === 1 && UV_MINOR < 52;
const RTO_INITIAL_NS = 200_000_000;
const RTO_MAX_NS = 120_000_000_000; // Linux's TCP_RTO_MAX
const SYN_RTO_INITIAL_NS = 1_000_000_000;
/** Linux's cap on a listen backlog (net.core.somaxconn, 4096 since 5.4). */
const SOMAXCONN = 4096;
/** Linux's ephemeral port range (net.ipv4.ip_local_port_range 32768-60999). */
const EPHEMERAL_MIN = 32_768;
const EPHEMERAL_COUNT = 61_000 - EPHEMERAL_MIN;
/** Bytes of IP + TCP headers, for the packet sizes the network rules see. */
const HEADER_BYTES = 40;

/**
 * When the client's side of a handshake inside one host is reported, for a server's side
 * `delayNs` after connect(2) (Network.handshakeDelayNs): loopback's own few µs put both in the
 * same poll, the client's after the accept; a slower loopback takes a second trip.
 */
function clientSideNs(delayNs: number): number {
  return delayNs <= LOOPBACK_AT_ONCE_NS ? delayNs : 2 * delayNs;
}

/** What the shim's handle implements to hear from its endpoint. */
export interface TcpOwner {
  /** The async context of the handle: callbacks run inside it. */
  readonly scope: AsyncResource | undefined;
  /** Client side: the handshake finished (0) or failed (a UV error code). */
  connected(status: number): void;
  data(chunk: Buffer): void;
  /** The peer sent FIN and every byte before it was delivered (the read side is done). */
  end(): void;
  /** A read failed (ECONNRESET, ETIMEDOUT): the read side is done. */
  readError(code: number): void;
  /** The oldest write waiting for window space failed (the connection broke while it waited). */
  writeFailed(code: number): void;
  /** Writes that waited for window space may complete. */
  writable(): void;
  /** The most bytes one data() call may carry (libuv's read buffer, or the user's). */
  readSizeMax(): number;
  /** True while a write waits for window space (libuv still tries to send it). */
  hasPendingWrites(): boolean;
  /**
   * True once the bytes written are ciphertext (a TLS layer sits on the handle): the trace shows
   * no preview of them, since OpenSSL's own randomness makes them differ on every run.
   */
  readonly encrypted?: boolean;
}

export interface ListenerOwner {
  readonly scope: AsyncResource | undefined;
  connection(endpoint: TcpEndpoint): void;
}

export interface SocketAddress {
  address: string;
  port: number;
  family: Family;
}

type Segment =
  | { seq: number; kind: 'syn-ack' }
  | { seq: number; kind: 'data'; data: Buffer }
  | { seq: number; kind: 'fin' }
  /** A reset sent on loopback in the same event as data (TcpStack.sendReset): it arrives with it. */
  | { seq: number; kind: 'rst' };

/** Segments sent on loopback in one event, delivered by one arrival (TcpEndpoint.arriveTogether). */
interface SendBatch {
  /** The sender's turn they were sent in (TcpStack.turnNo). */
  eventNo: number;
  segments: Segment[];
}

/** What the receiver still holds for the application, in order. 'error': the socket error. */
type Unread = Buffer | 'eof' | 'error';

/** The addresses a socket bound to `address` covers, per family ('all' for a wildcard). */
function coverage(address: string, family: Family, ipv6Only: boolean): { v4: string | undefined; v6: string | undefined } {
  if (family === 4) return { v4: address === '0.0.0.0' ? 'all' : address, v6: undefined };
  if (address === '::' || address === '') return { v4: ipv6Only ? undefined : 'all', v6: 'all' };
  const v4 = unmapped(address);
  if (v4 !== address) return { v4, v6: undefined };
  return { v4: undefined, v6: address.toLowerCase() };
}

function overlaps(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && (a === 'all' || b === 'all' || a === b);
}

/** True when two sockets bound to these addresses (same port) cannot both listen. */
export function addressesConflict(
  a: { address: string; family: Family },
  aIpv6Only: boolean,
  b: { address: string; family: Family },
  bIpv6Only: boolean,
): boolean {
  const x = coverage(a.address, a.family, aIpv6Only);
  const y = coverage(b.address, b.family, bIpv6Only);
  return overlaps(x.v4, y.v4) || overlaps(x.v6, y.v6);
}

export class TcpListener {
  constructor(
    readonly host: Host,
    readonly local: SocketAddress,
    readonly owner: ListenerOwner,
    /** '::' without ipv6Only accepts IPv4 too (dual stack). */
    readonly ipv6Only: boolean,
    /** SO_REUSEPORT (listen({ reusePort: true }), Node 22.12+): shares its port with others that set it. */
    readonly reusePort = false,
  ) {}
  closed = false;
  /** Its chain (a new one per listening server): the connections it accepts run in it. */
  chain = 0;
  /** A unix domain socket's listener: `local.address` is its path, and it has no port. */
  unix = false;
  /** Unix: listen(2)'s backlog, which its accept queue (`waiting`) may exceed by one. */
  backlog = Infinity;
  /**
   * The host's loop turn of the last accept, and the accept queue: connections made and not
   * accepted yet, each waiting for a poll of its own (TcpStack.accept).
   */
  acceptTurn = -1;
  readonly waiting: TcpEndpoint[] = [];
  /** An accept of a waiting connection is queued for a poll (TcpStack.acceptNextPoll). */
  acceptScheduled = false;

  accepts(address: string, family: Family, port: number): boolean {
    if (this.closed || port !== this.local.port) return false;
    if (isWildcard(this.local.address)) return this.local.family === 4 ? family === 4 : !this.ipv6Only || family === 6;
    return unmapped(this.local.address) === unmapped(address);
  }
}

export class TcpEndpoint {
  readonly stack: TcpStack;
  readonly host: Host;
  local: SocketAddress;
  remote: SocketAddress;
  peer: TcpEndpoint | undefined;
  owner: TcpOwner | undefined;
  /** The owner said its bytes are ciphertext (TcpOwner.encrypted), at some write. */
  encrypted = false;
  /**
   * The chain this endpoint's events run in (see World.chainForSocket): what arrives for it, its
   * timers, its reads. A client's is chosen at connect(), an accepted one's is its server's.
   */
  chain = 0;
  /**
   * syn-received: the server side of a handshake between two hosts, between the SYN and the
   * client's ACK (Linux's SYN queue): not yet accepted, invisible to the application.
   */
  state: 'syn-sent' | 'syn-received' | 'established' | 'closed' = 'syn-sent';
  /** syn-received: the listener that accepts this connection when the handshake completes. */
  pendingListener: TcpListener | undefined;
  /**
   * Why the endpoint is closed: the application closed it, the connection broke (a reset, a
   * timeout), or its machine crashed (the endpoint vanished without a word).
   */
  closedBy: 'app' | 'reset' | 'timeout' | 'crash' | undefined;
  /** The application wants data (readStart) — otherwise data waits in `unread`. */
  reading = false;
  /** Client side: the event that fails the connect at tcpTimeoutMs (cancelled once settled). */
  connectDeadline: SimEvent | undefined;
  /** Client side: the SYN retransmission timer, armed until a SYN-ACK or a reset arrives. */
  synTimer: SimEvent | undefined;
  /**
   * SO_KEEPALIVE with libuv's settings on Linux (20, 22, 24): probes after `idleNs` without
   * anything received, every `intervalNs`, `probes` unanswered in a row fail the connection.
   */
  private keepAlive: { idleNs: number; intervalNs: number; probes: number } | undefined;
  private keepAliveTimer: SimEvent | undefined;
  /** Keepalive probes sent since the peer was last heard from. */
  private probesUnanswered = 0;
  /** When a segment from the peer last arrived (for keepalive's idle time). */
  private lastHeardNs = 0;
  /** What this endpoint sends on loopback arrives in order (segments, SYN-ACK, resets, window updates). */
  private readonly flow: FifoFlow = { untilNs: 0 };
  /** Loopback: the segments this event sent, still on their way together (see transmit()); cleared on arrival. */
  private batch: SendBatch | undefined;
  private sendSeq = 0;
  /** The seq of the last data segment sent, -1 before any (the peer's loopbackDataUnread). */
  private lastDataSeq = -1;
  private recvSeq = 0;
  private readonly outOfOrder = new Map<number, Segment>();
  /** Delivered by the network, not yet handed to the application, in order. */
  private readonly unread: Unread[] = [];
  private flushScheduled = false;
  /**
   * The read libuv would make next in this poll that found the socket not reading (stopped in
   * the read's callback) or held (holdReads): made in this poll still if reading starts again
   * within that event, or the hold is released in this poll (flush, startReading, holdReads).
   */
  private deferredRead: { eventNo: number; turn: number; readsBefore: number; hangupEof: boolean } | undefined;
  /** Holds on reads (holdReads()): while any, nothing is handed to the application. */
  private readHolds = 0;
  /** The first poll turn whose epoll watches the socket since reading last started (startReading). */
  private watchTurn = 0;
  /** EOF or the read error was delivered: a new readStart gets EOF again, as from libuv. */
  private readEnded = false;
  finSent = false;
  finReceived = false;
  /**
   * The turn of the host's loop whose poll first sees this side's write direction shut down
   * (libuv's shutdown(2) runs from the pending queue after the shutdown request): from then on,
   * with the peer's FIN in too, epoll reports EPOLLHUP. Infinity while not shut down.
   */
  private shutTurn = Infinity;
  /** The pending socket error (sk_err): reported once, to the next read or write. */
  private socketError: number | undefined;
  /**
   * A reset the loopback peer sent in this process (its resetAndDestroy(), a close with unread
   * data) that is still on its way as a simulated packet: plainly the kernel applied it as the
   * peer sent it, so a write here fails with it now. 'taken' once a write reported it.
   */
  resetComing: 'yes' | 'taken' | undefined;
  /**
   * A reset armed by Sim.resetConnections({ afterBytes }): shared by both endpoints, counting the
   * data bytes either side writes; the connection is reset once it reaches zero.
   */
  resetAfter: { bytesLeft: number } | undefined;
  /** Data bytes this endpoint sent, and how many of them the peer's application has read. */
  private sentBytes = 0;
  private readByPeerBytes = 0;
  /**
   * Data written that the kernel has not taken yet (libuv's write queue, in the process): what
   * did not fit in the window when written. It goes out as the window opens; a process that dies
   * or closes its socket loses it, as a process's memory is lost (Linux sends only what its
   * buffers held). Before, every write went out at once and the window held back completions only,
   * so a peer got all 8 MiB of a write made just before process.exit(), where plainly it got what
   * the kernel had taken (a probe, 2026-12-06).
   */
  private queued: Buffer[] = [];
  private queuedBytes = 0;
  /** A FIN asked for (shutdown) while data was still queued: it follows the queue out. */
  private finQueued = false;
  bytesRead = 0;
  bytesWritten = 0;
  /** The connection's id in the trace (shared by both endpoints; 0 when not traced). */
  traceConn = 0;
  /** The endpoint's number in the order of the run's endpoints (what the fingerprint records of it). */
  readonly serial: number;
  /**
   * A unix domain socket's connection (unix.ts): the same stream machinery on one host, carried as
   * 'unix' packets, which no middlebox resets and no network latency rule reaches.
   */
  unix = false;

  constructor(stack: TcpStack, host: Host, local: SocketAddress, remote: SocketAddress) {
    this.serial = stack.nextSerial();
    this.stack = stack;
    this.host = host;
    this.local = local;
    this.remote = remote;
  }

  /** The flow what this endpoint sends to host `to` keeps its order in: on loopback only. */
  flowTo(to: Host): FifoFlow | undefined {
    return to === this.host ? this.flow : undefined;
  }

  get network(): Network {
    return this.stack.network;
  }

  /** What its packets are to the network's rules. */
  get protocol(): 'tcp' | 'unix' {
    return this.unix ? 'unix' : 'tcp';
  }

  // ---- sending ----------------------------------------------------------------------------

  /**
   * Queues `data` for the peer: 0 when accepted (check windowFull to know whether the write
   * completes now), or a UV error code when the connection cannot carry it.
   */
  write(data: Buffer): number {
    if (this.state === 'closed') {
      if (this.closedBy === 'app') return UV.EBADF;
      return this.takeSocketError() ?? UV.EPIPE;
    }
    if (this.state !== 'established' || this.finSent) return UV.EPIPE;
    if (this.resetComing === 'yes') {
      this.resetComing = 'taken';
      return this.finReceived ? UV.EPIPE : UV.ECONNRESET;
    }
    // A unix socket whose peer is closed refuses the write at once (unix_stream_sendmsg): no
    // bytes go out to be answered by a reset later, as on TCP.
    if (this.unix && this.peer?.state === 'closed') return UV.EPIPE;
    this.bytesWritten += data.length;
    if (data.length > 0) this.send(data);
    const armed = this.resetAfter;
    if (armed !== undefined && data.length > 0 && (armed.bytesLeft -= data.length) <= 0) {
      this.resetAfter = undefined;
      if (this.peer !== undefined) this.peer.resetAfter = undefined;
      this.stack.resetPair(this);
    }
    return 0;
  }

  /** Sends what the window has room for of `data` now, and queues the rest behind what is queued. */
  private send(data: Buffer): void {
    if (this.queuedBytes === 0 && data.length <= this.windowRoom) {
      this.transmitData(data);
      return;
    }
    this.queued.push(data);
    this.queuedBytes += data.length;
    this.sendQueued();
  }

  /** What the kernel can still take: the window less what the peer has not read of what went out. */
  private get windowRoom(): number {
    return WINDOW_BYTES - (this.sentBytes - this.readByPeerBytes);
  }

  private transmitData(data: Buffer): void {
    this.lastDataSeq = this.sendSeq;
    this.transmit({ seq: this.sendSeq++, kind: 'data', data });
    this.sentBytes += data.length;
  }

  /** Sends what the opened window has room for from the queue, then a FIN that waited for it. */
  private sendQueued(): void {
    while (this.queued.length > 0 && this.state === 'established') {
      const room = this.windowRoom;
      if (room <= 0) return;
      const head = this.queued[0]!;
      const part = head.length <= room ? head : head.subarray(0, room);
      if (part === head) this.queued.shift();
      else this.queued[0] = head.subarray(room);
      this.queuedBytes -= part.length;
      this.transmitData(part);
    }
    if (this.queuedBytes === 0 && this.finQueued && this.state === 'established') {
      this.finQueued = false;
      this.transmit({ seq: this.sendSeq++, kind: 'fin' });
    }
  }

  /** What was written and not taken by the kernel yet is gone (the socket closed, the process died). */
  private dropQueued(): void {
    this.queued = [];
    this.queuedBytes = 0;
    this.finQueued = false;
  }

  /**
   * Bytes written that the peer's application has not read yet: in flight, in its buffer, or
   * still queued here.
   */
  get unackedBytes(): number {
    return this.sentBytes + this.queuedBytes - this.readByPeerBytes;
  }

  /** True when the window is full: further write completions must wait for writable(). */
  get windowFull(): boolean {
    return this.unackedBytes >= WINDOW_BYTES;
  }

  /** Sends FIN after everything written so far (shutdown, or a graceful close). */
  finish(): void {
    if (this.state !== 'established' || this.finSent) return;
    this.finSent = true;
    this.shutTurn = this.network.world.pollTurn(this.host);
    if (this.queuedBytes > 0) this.finQueued = true;
    else this.transmit({ seq: this.sendSeq++, kind: 'fin' });
  }

  /** Sends a reset and closes (socket.resetAndDestroy). */
  reset(): void {
    if (this.state === 'established' && this.peer !== undefined) this.stack.sendReset(this.host, this.peer, this);
    this.close(false);
  }

  /**
   * The application closed its handle. Like close(2): a FIN if everything received was read, a
   * reset if unread data remains; afterwards the kernel answers the peer's data with resets.
   */
  close(graceful = true): void {
    this.cancelConnectDeadline();
    this.cancelKeepAlive();
    this.owner = undefined;
    this.reading = false;
    if (this.state === 'closed') return;
    // libuv's queued writes are cancelled with the handle; the kernel keeps what it took.
    this.dropQueued();
    if (this.state === 'syn-received') {
      // Never accepted (its host went down): the kernel drops it; the peer's next segment
      // gets a reset.
      this.fail('reset');
      return;
    }
    // On one host connect(2) completed the connection: closed before its connect was
    // reported, it still ends the connection the server has (connectLocal).
    if (this.state === 'syn-sent' && this.peer !== undefined && this.peer.host === this.host && this.peer.state === 'established') {
      this.state = 'established';
    }
    if (graceful && this.state === 'established') {
      if (this.unread.some((item) => typeof item !== 'string') || this.loopbackDataUnread()) {
        if (this.peer !== undefined) this.stack.sendReset(this.host, this.peer, this);
      } else {
        this.finish();
      }
    }
    this.state = 'closed';
    this.closedBy = 'app';
    this.unread.length = 0;
    this.stack.forget(this);
  }

  /**
   * Whether the peer, on this machine, sent data this endpoint has not received yet. Loopback puts
   * it in this socket's receive buffer inside the peer's write(), before the simulated arrival
   * (10-100 µs later): unread data, so a close now resets the connection, as Linux does. Left
   * out, a server that destroyed its socket in the same timers phase as its client's write sent
   * a FIN, and the client got 'end' where plain Node always gives ECONNRESET (a probe,
   * 2026-12-06: the keep-alive race of an http.Agent gave "socket hang up", not "read ECONNRESET").
   */
  private loopbackDataUnread(): boolean {
    const peer = this.peer;
    return peer !== undefined && peer.host === this.host && peer.lastDataSeq >= this.recvSeq;
  }

  /**
   * Adds `segment` to what this endpoint sent on loopback in the current event, if it sent
   * anything: the kernel has it in the peer's buffer together with that (a write and a reset in
   * one tick are both there when the peer's process polls). False when nothing was sent.
   */
  joinBatch(segment: Segment): boolean {
    const batch = this.batch;
    if (batch === undefined || batch.eventNo !== this.stack.turnNo()) return false;
    batch.segments.push(segment);
    return true;
  }

  private transmit(segment: Segment): void {
    const peer = this.peer;
    if (peer === undefined) return;
    const bytes = segment.kind === 'data' ? segment.data.length + HEADER_BYTES : HEADER_BYTES;
    if (peer.host === this.host) {
      // Loopback: what one event sends arrives together (see arriveTogether).
      const world = this.network.world;
      const batch = this.batch;
      const turn = this.stack.turnNo();
      if (batch !== undefined && batch.eventNo === turn) {
        batch.segments.push(segment);
        return;
      }
      const next: SendBatch = { eventNo: turn, segments: [segment] };
      this.batch = next;
      this.stack.reliableSend(this, peer, bytes, () => {
        if (this.batch === next) this.batch = undefined;
        peer.arriveTogether(next.segments, this);
      }, segment.kind === 'data' ? segment.data : segment.kind);
      return;
    }
    this.stack.reliableSend(this, peer, bytes, () => peer.arrive(segment, this), segment.kind === 'data' ? segment.data : segment.kind);
  }

  // ---- receiving (arrival events on this endpoint's host) ------------------------------------

  /**
   * A segment from `from` arrives. Returns false when it was not acknowledged, so the sender
   * retransmits it: the machine is off (nothing answers), or the socket is gone (a reset went
   * back, which may itself be lost).
   */
  arrive(segment: Segment, from: TcpEndpoint): boolean {
    const taken = this.taking([segment], from);
    if (taken !== true) return taken === 'acked';
    if (this.receive(segment, from)) this.flushArrived();
    return true;
  }

  /**
   * Whether arriving segments reach a live connection: true; or what the kernel did instead:
   * 'lost' (its machine is off: nothing answers), 'reset' (no socket reads the connection any
   * more: a reset went back), 'acked' (a closed socket quietly took the peer's FIN or an old
   * duplicate, the orderly end).
   */
  private taking(segments: readonly Segment[], from: TcpEndpoint): true | 'lost' | 'reset' | 'acked' {
    if (this.network.machineOff(this.host)) return 'lost';
    if (this.state !== 'closed' && this.host.state === 'running') {
      this.heard();
      return true;
    }
    // No socket reads this connection any more. After a close by the application the kernel
    // still acknowledges the peer's FIN (the orderly end) and old duplicates, and resets new
    // data; a connection that broke (or whose machine rebooted since) resets everything.
    const orderly = this.closedBy === 'app' && segments.every((segment) => segment.kind === 'fin' || segment.kind === 'syn-ack' || segment.seq < this.recvSeq);
    // A batch that ends in the sender's reset: the kernel drops it all, and nothing is resent.
    if (orderly || segments.some((segment) => segment.kind === 'rst')) return 'acked';
    this.stack.sendReset(this.host, from);
    return 'reset';
  }

  /**
   * Segments `from` sent on loopback within one event (one tick of its process), arriving
   * together: the kernel has them all in the receive buffer before this side's process polls,
   * so one read takes them (plainly, three writes in one tick are read as one chunk).
   */
  arriveTogether(segments: readonly Segment[], from: TcpEndpoint): boolean {
    const taken = this.taking(segments, from);
    if (taken !== true) return taken === 'acked';
    let readable = false;
    for (const segment of segments) {
      if (segment.kind === 'rst') {
        // The reset ends the batch; reading what came before it is the reset's flush.
        this.resetByPeer();
        return true;
      }
      readable = this.receive(segment, from) || readable;
      if (this.state === 'closed') return true;
    }
    if (readable) this.flushArrived();
    return true;
  }

  /**
   * Reads what just arrived: now, unless the socket started reading in this turn's poll phase
   * (an accepted socket's readStart in its 'connection' callback), when epoll watches it only
   * from the next poll on (uv__io_start registers it there).
   */
  private flushArrived(): void {
    if (this.reading && this.host.loopTurn < this.watchTurn && this.network.world.inPoll(this.host)) this.scheduleFlush('watched');
    else this.flush();
  }

  /**
   * Takes an arriving segment into the connection; true when the application has something new
   * to read (the caller then flushes), false also when the connection closed meanwhile.
   */
  private receive(segment: Segment, from: TcpEndpoint): boolean {
    if (this.state === 'closed' || this.host.state !== 'running') return false;
    // The client's first segment carries the ACK that completes the handshake.
    if (this.state === 'syn-received') {
      this.handshakeCompleted();
      if ((this.state as string) !== 'established') return false;
    }
    if (segment.seq < this.recvSeq || this.outOfOrder.has(segment.seq)) return false; // a duplicate
    this.outOfOrder.set(segment.seq, segment);
    // Every segment now in order is in the receive buffer before the application reads: one
    // read takes them together, as from the kernel.
    let readable = false;
    while (this.outOfOrder.has(this.recvSeq)) {
      const next = this.outOfOrder.get(this.recvSeq)!;
      this.outOfOrder.delete(this.recvSeq);
      this.recvSeq++;
      readable = this.accept(next) || readable;
      if ((this.state as string) === 'closed') return false;
    }
    return readable;
  }

  /** Takes an in-order segment; true when it gave the application something to read. */
  private accept(segment: Segment): boolean {
    switch (segment.kind) {
      case 'syn-ack': {
        this.cancelConnectDeadline();
        if (this.resetComing === 'yes') {
          // Loopback: the peer accepted and reset (from its 'connection' callback) before this
          // process's poll reported the connect. libuv reports it from SO_ERROR: the connect
          // fails with ECONNRESET, and what the peer sent before its reset is never read.
          this.fail('reset');
          this.notify((owner) => owner.connected(UV.ECONNRESET));
          this.owner = undefined;
          return false;
        }
        this.state = 'established';
        this.armKeepAlive();
        const peer = this.peer;
        if (peer !== undefined && peer.state === 'syn-received') {
          // The third packet of the handshake: the server accepts when it arrives.
          this.stack.reliableSend(this, peer, HEADER_BYTES, () => peer.ackArrived(this), 'ack');
        }
        this.notify((owner) => owner.connected(0));
        return false;
      }
      case 'data':
        this.unread.push(segment.data);
        return true;
      case 'fin':
        this.finReceived = true;
        this.unread.push('eof');
        return true;
      case 'rst':
        return false; // taken by arriveTogether
    }
  }

  /** A reset arrived from the peer. */
  resetByPeer(): void {
    if (this.state === 'closed') return;
    if (this.state === 'syn-received') {
      this.fail('reset'); // dropped from the SYN queue; the application never knew
      return;
    }
    if (this.state === 'syn-sent') {
      if (this.peer !== undefined && this.peer.host === this.host) {
        // Loopback, accepted: the kernel finished the handshake inside connect(2)
        // (connectLocal), so this reset hit an established connection. A slow loopback (a
        // latency or reorder fault) can bring it before the SYN-ACK that reports the connect;
        // that arrival fails the connect with ECONNRESET, as resetComing says. Never
        // ECONNREFUSED: the server took the connection.
        this.resetComing ??= 'yes';
        return;
      }
      this.fail('reset');
      this.notify((owner) => owner.connected(UV.ECONNREFUSED));
      this.owner = undefined;
      return;
    }
    // tcp_reset: in CLOSE_WAIT (the peer's FIN arrived) the error is EPIPE, else ECONNRESET.
    this.broken('reset', this.finReceived ? UV.EPIPE : UV.ECONNRESET);
  }

  /** Retransmission gave up (a long partition, or a peer that vanished). */
  timedOut(): void {
    if (this.state === 'closed') return;
    if (this.state === 'syn-received') {
      this.fail('timeout'); // the SYN-ACK never got through: dropped, the application never knew
      return;
    }
    if (this.state === 'syn-sent') {
      this.fail('timeout');
      this.notify((owner) => owner.connected(UV.ETIMEDOUT));
      this.owner = undefined;
      return;
    }
    this.broken('timeout', UV.ETIMEDOUT);
  }

  /**
   * Server side: the handshake's last ACK from `client` arrived. A connection dropped from the
   * SYN queue meanwhile (its host went down, the SYN-ACK timed out) has no socket any more:
   * the kernel answers with a reset.
   */
  ackArrived(client: TcpEndpoint): boolean {
    if (this.network.machineOff(this.host)) return false;
    if (this.state === 'syn-received') this.handshakeCompleted();
    else if (this.state === 'closed' && this.closedBy !== 'app') {
      this.stack.sendReset(this.host, client);
      return false;
    }
    return true;
  }

  /**
   * Server side: the client's ACK (or its first segment) arrived: the listener accepts the
   * connection now, or resets it if it stopped listening meanwhile.
   */
  handshakeCompleted(): void {
    if (this.state !== 'syn-received') return;
    const listener = this.pendingListener!;
    this.pendingListener = undefined;
    if (listener.closed || this.host.state !== 'running') {
      if (this.peer !== undefined) this.stack.sendReset(this.host, this.peer);
      this.fail('reset');
      return;
    }
    this.state = 'established';
    this.heard();
    this.stack.accept(listener, this);
  }

  private cancelConnectDeadline(): void {
    const world = this.stack.network.world;
    if (this.synTimer !== undefined) {
      world.cancel(this.synTimer);
      this.synTimer = undefined;
    }
    if (this.connectDeadline === undefined) return;
    world.cancel(this.connectDeadline);
    this.connectDeadline = undefined;
  }

  // ---- keepalive ---------------------------------------------------------------------------

  /**
   * socket.setKeepAlive(enable, initialDelay): Node passes whole seconds; libuv on Linux sets
   * TCP_KEEPIDLE to them, TCP_KEEPINTVL to 1 s and TCP_KEEPCNT to 10 (libuv 1.46 of Node 20
   * through 1.52 of Node 24). A delay under 1 s is refused by the kernel (EINVAL) after
   * SO_KEEPALIVE is on, which leaves the system defaults: 7200 s, 75 s, 9 probes.
   */
  setKeepAlive(enable: boolean, delaySeconds: number): void {
    if (!enable) {
      this.keepAlive = undefined;
      this.cancelKeepAlive();
      return;
    }
    this.keepAlive = delaySeconds >= 1
      ? { idleNs: delaySeconds * 1e9, intervalNs: 1e9, probes: 10 }
      : { idleNs: 7200e9, intervalNs: 75e9, probes: 9 };
    this.armKeepAlive();
  }

  /** Something arrived from the peer: it is alive, and the connection is not idle. */
  private heard(): void {
    this.lastHeardNs = this.stack.network.world.nowNs;
    this.probesUnanswered = 0;
  }

  private cancelKeepAlive(): void {
    if (this.keepAliveTimer === undefined) return;
    this.stack.network.world.cancel(this.keepAliveTimer);
    this.keepAliveTimer = undefined;
  }

  /** Arms the keepalive timer of an established connection: at the idle deadline, or the next probe. */
  private armKeepAlive(): void {
    this.cancelKeepAlive();
    const settings = this.keepAlive;
    if (settings === undefined || this.state !== 'established') return;
    const world = this.stack.network.world;
    if (this.lastHeardNs === 0) this.lastHeardNs = world.nowNs;
    const dueNs = this.probesUnanswered === 0 ? this.lastHeardNs + settings.idleNs : world.nowNs + settings.intervalNs;
    this.keepAliveTimer = world.scheduleArrival(this.host, Math.max(0, dueNs - world.nowNs), () => this.keepAliveDue(), undefined, undefined, this.chain);
  }

  private keepAliveDue(): void {
    this.keepAliveTimer = undefined;
    const settings = this.keepAlive;
    if (settings === undefined || this.state !== 'established' || this.host.state !== 'running') return;
    const world = this.stack.network.world;
    if (this.probesUnanswered === 0 && world.nowNs < this.lastHeardNs + settings.idleNs) {
      this.armKeepAlive(); // heard from the peer meanwhile
      return;
    }
    if (this.probesUnanswered >= settings.probes) {
      this.timedOut();
      return;
    }
    this.probesUnanswered++;
    const peer = this.peer;
    if (peer !== undefined) this.stack.probe(this, peer);
    this.armKeepAlive();
  }

  /** A keepalive probe from `from` arrived: the kernel acknowledges it if the connection lives. */
  probeArrived(from: TcpEndpoint): void {
    const taken = this.taking([], from);
    if (taken === true) {
      this.stack.network.send(this.host, from.host, this.protocol, HEADER_BYTES, () => from.probeAnswered(), from.flowTo(this.host), undefined, this.stack.traced(this, 'probe-ack'), from.chain);
    }
  }

  /** The peer's kernel acknowledged a keepalive probe. */
  probeAnswered(): void {
    if (this.state !== 'established' || this.network.machineOff(this.host)) return;
    this.heard();
    this.armKeepAlive();
  }

  /**
   * The machine crashed: the endpoint vanishes without a word (no FIN, no reset); its peer finds
   * out by its own timeouts, or from the reset of the machine's kernel once it has booted again.
   */
  vanish(): void {
    this.dropQueued();
    this.cancelConnectDeadline();
    this.cancelKeepAlive();
    this.owner = undefined;
    this.reading = false;
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.closedBy = 'crash';
    this.unread.length = 0;
    this.stack.forget(this);
  }

  private fail(reason: 'reset' | 'timeout'): void {
    this.dropQueued();
    this.cancelConnectDeadline();
    this.cancelKeepAlive();
    this.state = 'closed';
    this.closedBy = reason;
    this.stack.forget(this);
  }

  /**
   * An established connection broke. The bytes that arrived before stay readable; the error is
   * reported to whichever the application does first: read (after those bytes) or write. A
   * write waiting for window space is a write in progress: libuv retries it on the error
   * event, so it fails now (after the read side, as libuv handles POLLIN before POLLOUT).
   */
  private broken(reason: 'reset' | 'timeout', code: number): void {
    this.fail(reason);
    // A write reported this reset already (resetComing): later reads see EOF.
    this.socketError = reason === 'reset' && this.resetComing === 'taken' ? undefined : code;
    this.resetComing = undefined;
    if (!this.finReceived) this.unread.push('error');
    // A read already on its way (the EOF a partial read left for the next poll) comes first.
    if (!this.flushScheduled) this.flush();
    if (this.socketError !== undefined && this.owner !== undefined && this.owner.hasPendingWrites()) {
      const error = this.takeSocketError()!;
      this.notify((owner) => owner.writeFailed(error));
    }
  }

  private takeSocketError(): number | undefined {
    const code = this.socketError;
    this.socketError = undefined;
    return code;
  }

  /** The application started (or resumed) reading. */
  startReading(): void {
    if (!this.reading) this.watchTurn = this.network.world.pollTurn(this.host);
    this.reading = true;
    const deferred = this.deferredRead;
    // Stopped and started again inside the read's callback (or the ticks after it: a stream at
    // its highWaterMark): libuv's loop sees the flag set again and goes on reading in this poll.
    if (deferred !== undefined && deferred.eventNo === this.network.world.eventsRun && this.unread.length > 0) this.readDeferred(deferred);
    // libuv starts watching the socket (uv__io_start): epoll reports what is buffered in the
    // next poll that registers it, this turn's from a timer, the next turn's from an I/O callback
    // or an immediate (an accepted socket starts reading in its 'connection' callback).
    else if (this.unread.length > 0 || this.readEnded) this.scheduleFlush('watched');
  }

  stopReading(): void {
    this.reading = false;
  }

  /**
   * Keeps buffered data and EOF from the application until the returned function is called
   * (once is enough): for a layer above whose processing of the last read is still running in
   * later events (the http server's parser), as the kernel's data waits for the next poll.
   */
  holdReads(): () => void {
    this.readHolds++;
    return once(() => {
      this.readHolds--;
      if (this.readHolds !== 0) return;
      // Released by the parse of the read (its callbacks run inside the read plainly), in this
      // poll: the read libuv would have made after it comes now.
      const deferred = this.deferredRead;
      const world = this.network.world;
      const thisPoll = deferred !== undefined && world.inPoll(this.host) && this.host.loopTurn === deferred.turn;
      if (!this.reading) {
        // The stream above is full (readStop): reading started again in this event's ticks
        // still goes on in this poll (startReading).
        if (thisPoll) deferred.eventNo = world.eventsRun;
        return;
      }
      if (this.unread.length === 0 && !this.readEnded) return;
      if (thisPoll && this.unread.length > 0) this.readDeferred(deferred);
      else this.scheduleFlush();
    });
  }

  /**
   * Schedules a read of what is buffered: 'later' (readStart(), a hold released: like libuv,
   * data already buffered is delivered on a later turn, not inside readStart()); 'next-poll',
   * the rest of the data this read left, in the next poll; or 'this-poll', the read libuv goes on
   * to make in this poll (uv__read's loop, or the EOF of EPOLLHUP: `hangupEof`), the
   * `readsBefore + 1`th.
   */
  private scheduleFlush(when: 'later' | 'next-poll' | 'watched' | 'this-poll' = 'later', readsBefore = 0, hangupEof = false): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const stack = this.stack;
    const world = stack.network.world;
    const turn = when === 'later' ? undefined : stack.turnNo();
    const read = () => {
      this.flushScheduled = false;
      if (turn !== undefined) stack.continueTurn(turn);
      this.flush(readsBefore, hangupEof);
    };
    const scope = this.owner?.scope;
    world.withChain(this.chain, () => {
      if (when === 'this-poll') world.continuePoll(this.host, read, scope);
      else if (when === 'next-poll' || when === 'watched') world.scheduleNextPoll(this.host, read, scope, when === 'watched');
      else world.schedule(this.host, 0, 'net', read, undefined, false, scope);
    });
  }

  /**
   * Hands buffered data to the application while it is reading, as libuv does: consecutive
   * segments are read together, at most READ_CHUNK_BYTES per read callback. EOF and errors end
   * reading (libuv stops the read side by itself after either). One read callback per event:
   * Node runs each read through MakeCallback, which drains nextTicks and microtasks after it, so
   * what a 'data' handler queues runs before the next read (or EOF) of the same socket.
   *
   * What libuv reads of one socket in one poll (uv__read, uv__stream_io), `readsBefore` being
   * the reads this poll made before:
   * - a read that filled the buffer is followed by another in the same poll, up to
   *   READS_PER_POLL: before the immediates the first one's callback queued;
   * - a read that did not fill it ends the loop, and the EOF or error behind it waits for the
   *   next poll; except under EPOLLHUP (both directions shut: the peer's FIN in and this side's
   *   shutdown(2) done before this poll, or the connection broken), where libuv reports EOF at
   *   once (HANGUP_EOF: libuv before 1.52). A broken connection's error then stays pending for
   *   the next write: the read side sees EOF, as plainly data and a reset read in one poll give
   *   'data' and 'end', no 'error' (`hangupEof`: this is that read).
   */
  private flush(readsBefore = 0, hangupEof = false): void {
    const owner = this.owner;
    if (!this.reading || owner === undefined || this.host.state !== 'running' || this.readHolds > 0) {
      // A read of this poll the socket was not ready for: startReading() or a released hold
      // may still make it in this poll.
      if (readsBefore > 0) this.deferRead(readsBefore, hangupEof);
      return;
    }
    this.deferredRead = undefined;
    const item = this.unread[0];
    if (item === undefined) {
      // Reading again after the end: the socket answers EOF at once. Or EPOLLHUP's EOF ahead of
      // a loopback peer's reset still on its way (afterRead): the reset stays for the next
      // write, as plainly.
      if (this.readEnded || (hangupEof && this.resetComing === 'yes')) {
        this.reading = false;
        this.readEnded = true;
        this.notify((o) => o.end());
      }
      return;
    }
    if (item === 'eof') {
      this.unread.shift();
      this.reading = false;
      this.readEnded = true;
      this.notify((o) => o.end());
    } else if (item === 'error') {
      this.unread.shift();
      this.reading = false;
      this.readEnded = true;
      // The error may have been reported to a write already: then a read sees EOF.
      const code = hangupEof ? undefined : this.takeSocketError();
      if (code === undefined) this.notify((o) => o.end());
      else this.notify((o) => o.readError(code));
    } else {
      const sizeMax = owner.readSizeMax();
      // What epoll reported for this poll, before the callback can change it.
      // A loopback peer's reset is in the kernel as it is sent (resetComing), before its packet.
      const hangup = HANGUP_EOF && (this.state === 'closed' || this.resetComing === 'yes' || (this.finReceived && this.shutTurn <= this.host.loopTurn));
      const chunk = this.takeChunk(sizeMax);
      this.bytesRead += chunk.length;
      try {
        this.notify((o) => o.data(chunk));
      } finally {
        // Also when the callback threw and the process lives on (an 'uncaughtException'
        // handler): libuv's loop goes on, and so do the window and the socket's reads.
        this.afterRead(chunk.length === sizeMax, hangup, readsBefore);
      }
    }
  }

  /**
   * After a read of data: the window reopens, and the next read of what is buffered (the rest of
   * the data, or the EOF behind it) is made in this poll (flush's rules) or the next: what the
   * program sends from it reaches a loopback peer before that peer reads, as if in the same turn
   * of its loop (plainly a reply to the data and one to the EOF are one read).
   */
  private afterRead(full: boolean, hangup: boolean, readsBefore: number): void {
    if (this.peer !== undefined && this.state !== 'closed') this.stack.windowUpdate(this, this.peer, this.bytesRead);
    // The peer's loopback reset is in the kernel but its packet still on its way: libuv's EOF
    // of EPOLLHUP comes now all the same (flush takes it for the end).
    if (this.unread.length === 0 && !(hangup && !full && this.resetComing === 'yes')) return;
    if (full ? readsBefore + 1 < READS_PER_POLL : hangup) {
      if (this.reading) this.scheduleFlush('this-poll', readsBefore + 1, !full);
      else this.deferRead(readsBefore + 1, !full);
    } else if (this.reading) {
      this.scheduleFlush('next-poll');
    }
  }

  /** Makes the deferred read in this poll after all (reading started again, a hold released). */
  private readDeferred(deferred: { readsBefore: number; hangupEof: boolean }): void {
    this.deferredRead = undefined;
    this.scheduleFlush('this-poll', deferred.readsBefore, deferred.hangupEof);
  }

  /** Notes the read libuv would make next in this poll, which the socket is not ready for now. */
  private deferRead(readsBefore: number, hangupEof: boolean): void {
    this.deferredRead = { eventNo: this.network.world.eventsRun, turn: this.host.loopTurn, readsBefore, hangupEof };
  }

  /** Takes up to `sizeMax` bytes of consecutive buffered data from the front of `unread`. */
  private takeChunk(sizeMax: number): Buffer {
    const first = this.unread[0] as Buffer;
    if (first.length >= sizeMax) {
      if (first.length === sizeMax) return this.unread.shift() as Buffer;
      this.unread[0] = first.subarray(sizeMax);
      return first.subarray(0, sizeMax);
    }
    const parts: Buffer[] = [];
    let size = 0;
    while (this.unread.length > 0 && typeof this.unread[0] !== 'string' && size < sizeMax) {
      const next = this.unread[0] as Buffer;
      const room = sizeMax - size;
      if (next.length <= room) {
        parts.push(next);
        size += next.length;
        this.unread.shift();
      } else {
        parts.push(next.subarray(0, room));
        this.unread[0] = next.subarray(room);
        size += room;
      }
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
  }

  notify(fn: (owner: TcpOwner) => void): void {
    const owner = this.owner;
    if (owner === undefined || this.host.state !== 'running') return;
    // Which connection this is: two runs that swap two connections' events at the same
    // instants (closeAllConnections in the native list's address order did) would otherwise
    // have one fingerprint. Its serial, not its ports (seeded ephemeral ports would make every
    // seed's fingerprint differ by them alone).
    this.network.world.fingerprint.mix(this.serial);
    if (owner.scope !== undefined) owner.scope.runInAsyncScope(fn, undefined, owner);
    else fn(owner);
  }

  /**
   * The peer's application has read `readTotalBytes` of our data in all: our window reopens.
   * Updates carry the running total, so a duplicated or late update changes nothing.
   */
  windowOpened(readTotalBytes: number): void {
    if (readTotalBytes <= this.readByPeerBytes) return;
    const wasFull = this.windowFull;
    this.readByPeerBytes = readTotalBytes;
    if (this.queuedBytes > 0) this.sendQueued();
    if (wasFull && !this.windowFull && this.state !== 'closed') this.notify((owner) => owner.writable());
  }

  /** True while received data waits for the application. */
  get hasUnread(): boolean {
    return this.unread.some((item) => typeof item !== 'string');
  }
}

/** All TCP state of the simulation: listeners, connections, ephemeral ports. */
export class TcpStack {
  readonly network: Network;
  private readonly listeners: TcpListener[] = [];
  /** Listening unix domain sockets (unix.ts), apart: they have no port. */
  private readonly unixListeners: TcpListener[] = [];
  private readonly endpoints = new Set<TcpEndpoint>();
  private readonly nextEphemeral = new Map<Host, number>();

  private serials = 0;

  /** The next endpoint's serial number. */
  nextSerial(): number {
    return ++this.serials;
  }

  /** The event that continues an earlier event's turn (see continueTurn), and that turn. */
  private continued: { eventNo: number; turn: number } | undefined;

  constructor(network: Network) {
    this.network = network;
  }

  /**
   * The turn of the program's event loop the current event belongs to, by the number of the
   * event that began it: what a process sends on loopback within one turn is in the peer's
   * receive buffer before the peer polls, so it arrives together (TcpEndpoint.transmit).
   */
  turnNo(): number {
    const eventNo = this.network.world.eventsRun;
    const continued = this.continued;
    return continued !== undefined && continued.eventNo === eventNo ? continued.turn : eventNo;
  }

  /**
   * The current event continues `turn`: the next read of what a socket already had buffered,
   * which Node runs as its own callback (and drains ticks after) before a loopback peer reads
   * (plainly a response and the 400 that the request's EOF brings are read by the client as one
   * chunk).
   */
  continueTurn(turn: number): void {
    this.continued = { eventNo: this.network.world.eventsRun, turn };
  }

  /**
   * An ephemeral port for a host: sequential from a seeded start, in Linux's range, skipping
   * ports a listener or a connection of that host uses. 0 when the range is exhausted.
   */
  ephemeralPort(host: Host): number {
    let port = this.nextEphemeral.get(host);
    if (port === undefined) port = EPHEMERAL_MIN + host.stream('ports').int(0, EPHEMERAL_COUNT - 1);
    for (let tries = 0; tries < EPHEMERAL_COUNT; tries++) {
      const candidate = EPHEMERAL_MIN + ((port - EPHEMERAL_MIN + tries) % EPHEMERAL_COUNT);
      if (!this.portUsed(host, candidate)) {
        this.nextEphemeral.set(host, candidate + 1);
        return candidate;
      }
    }
    return 0;
  }

  private portUsed(host: Host, port: number): boolean {
    if (this.listeners.some((l) => l.host === host && !l.closed && l.local.port === port)) return true;
    for (const endpoint of this.endpoints) if (endpoint.host === host && endpoint.local.port === port) return true;
    return false;
  }

  /**
   * The error bind() reports for this address (0 when free): a listener covering it. Sockets
   * that all set SO_REUSEPORT share a port (Linux, same user: every simulated process is one).
   */
  bindConflict(host: Host, local: SocketAddress, ipv6Only: boolean, reusePort = false): number {
    if (local.port === 0) return 0;
    for (const other of this.listeners) {
      if (other.host !== host || other.closed || other.local.port !== local.port) continue;
      if (reusePort && other.reusePort) continue;
      if (addressesConflict(other.local, other.ipv6Only, local, ipv6Only)) return UV.EADDRINUSE;
    }
    return 0;
  }

  /** Starts listening; returns a UV error code or 0. */
  listen(listener: TcpListener): number {
    const err = this.bindConflict(listener.host, listener.local, listener.ipv6Only, listener.reusePort);
    if (err !== 0) return err;
    this.listeners.push(listener);
    listener.chain = this.network.world.newChain();
    return 0;
  }

  /**
   * The listening socket closes. Connections in its accept queue are reset, as close(2) of a
   * listener does (a client whose connect was not reported yet fails it with ECONNRESET); when
   * its host went down (`hostDown`), they go with the host's other sockets.
   */
  unlisten(listener: TcpListener, hostDown = false): void {
    listener.closed = true;
    const list = listener.unix ? this.unixListeners : this.listeners;
    const i = list.indexOf(listener);
    if (i >= 0) list.splice(i, 1);
    const waiting = listener.waiting.splice(0);
    if (!hostDown) for (const server of waiting) server.reset();
  }

  /**
   * Starts a unix domain socket's listening (its file was made at bind: shims/net/unix-names.ts).
   * `backlog`: listen(2)'s, capped as Linux caps it (net.core.somaxconn, 4096).
   */
  listenUnix(listener: TcpListener, backlog: number): void {
    listener.unix = true;
    listener.backlog = Math.min(Math.max(0, backlog), SOMAXCONN);
    this.unixListeners.push(listener);
    listener.chain = this.network.world.newChain();
  }

  /**
   * Connects `endpoint` to the unix domain socket `listener` listens on, found by its file at
   * connect(2). As on TCP loopback, the kernel completes the connection inside connect(2): the
   * server's accept is ready in the poll that reports the client's connect.
   */
  connectUnix(endpoint: TcpEndpoint, listener: TcpListener): void {
    endpoint.unix = true;
    this.endpoints.add(endpoint);
    const world = this.network.world;
    const host = endpoint.host;
    endpoint.chain = world.chainForSocket();
    world.withChain(endpoint.chain, () => {
      if (world.tracing) {
        endpoint.traceConn = world.nextTraceId('conn');
        world.annotate(host, 'conn', { conn: endpoint.traceConn, from: host.name, to: host.name, path: endpoint.remote.address });
      }
      this.connectLocal(endpoint, listener);
    });
  }

  /**
   * Starts a connection from `endpoint` (state syn-sent) to its remote address. The owner
   * hears connected(0) when the SYN-ACK arrives, or an error code.
   */
  connect(endpoint: TcpEndpoint): void {
    this.endpoints.add(endpoint);
    const from = endpoint.host;
    const world = this.network.world;
    endpoint.chain = world.chainForSocket();
    world.withChain(endpoint.chain, () => this.connectInChain(endpoint));
  }

  private connectInChain(endpoint: TcpEndpoint): void {
    const from = endpoint.host;
    const world = this.network.world;
    const startNs = world.nowNs;
    let syn: PacketTrace | undefined;
    if (world.tracing) {
      endpoint.traceConn = world.nextTraceId('conn');
      world.annotate(from, 'conn', {
        conn: endpoint.traceConn,
        from: from.name,
        fromPort: endpoint.local.port,
        to: this.network.hostAt(endpoint.remote.address, from)?.name ?? endpoint.remote.address,
        toPort: endpoint.remote.port,
      });
      syn = { msg: world.nextTraceId(), conn: endpoint.traceConn, seg: 'syn', retry: -1 };
    }
    // The connect fails at exactly its deadline unless the handshake completes first, whatever
    // was lost: the SYN (retransmitted below) or the SYN-ACK (retransmitted by the server).
    endpoint.connectDeadline = world.schedule(from, this.network.tcpConnectTimeoutNs, 'net', () => {
      endpoint.connectDeadline = undefined;
      if (endpoint.state === 'syn-sent') endpoint.timedOut();
    }, undefined, false);
    const attempt = (rtoNs: number) => {
      endpoint.synTimer = undefined;
      if (endpoint.state !== 'syn-sent') return;
      // The machine at the address now (it may have rebooted since the last SYN).
      const to = this.network.hostAt(endpoint.remote.address, from);
      // On loopback the kernel answers the SYN inside connect(2): whether anything listens is
      // decided now, not when the simulated SYN lands (a server listening a moment later, before
      // this process polls again, does not get the connection).
      const listener = to === from ? this.listenerFor(endpoint, to) ?? null : undefined;
      if (listener !== undefined && listener !== null) {
        this.connectLocal(endpoint, listener);
        return;
      }
      if (listener === null) {
        this.refuseLocal(endpoint);
        return;
      }
      if (syn !== undefined) syn.retry!++;
      const sent = to !== undefined && this.network.send(from, to, 'tcp', HEADER_BYTES + 20, () => this.synArrived(endpoint, to, listener), endpoint.flowTo(to), undefined, syn);
      if (sent && to === from) return;
      // The SYN timer stays armed until a SYN-ACK or a reset arrives, whatever became of this
      // SYN (lost on the way, unanswered by a machine that is off, or answered by a reset that
      // was lost): Linux resends it at 1 s, 3 s, 7 s, ... until the deadline.
      if (world.nowNs - startNs + rtoNs >= this.network.tcpConnectTimeoutNs) return;
      endpoint.synTimer = world.schedule(from, rtoNs, 'net', () => attempt(Math.min(rtoNs * 2, RTO_MAX_NS)), undefined, false);
    };
    attempt(SYN_RTO_INITIAL_NS);
  }

  /**
   * The listener of host `to` that a SYN from `client` reaches now, if any. Only SO_REUSEPORT
   * listeners share a port: Linux takes the best match (a listener on the very address before a
   * wildcard one), and spreads connections over a group of equals by a hash of the client's
   * address and port, so one client's connection always reaches the same listener.
   */
  private listenerFor(client: TcpEndpoint, to: Host): TcpListener | undefined {
    if (to.state !== 'running') return undefined;
    const { address, family, port } = client.remote;
    const matches = this.listeners.filter((l) => l.host === to && l.accepts(address, family, port));
    if (matches.length <= 1) return matches[0];
    const exact = matches.filter((l) => !isWildcard(l.local.address));
    const group = exact.length > 0 ? exact : matches;
    if (group.length === 1) return group[0];
    let h = 2166136261;
    const flow = `${unmapped(client.local.address)}:${client.local.port}`;
    for (let i = 0; i < flow.length; i++) h = Math.imul(h ^ flow.charCodeAt(i), 16777619);
    return group[(h >>> 0) % group.length];
  }

  /**
   * A SYN reached host `to`: accept it if something listens, else answer with a reset.
   * `nobody`: on loopback, where nothing listened when the SYN was sent (a listener found then
   * took the connection inside connect(2): connectLocal).
   */
  private synArrived(client: TcpEndpoint, to: Host, nobody?: null): void {
    // A machine that is off answers nothing: the client's SYN timer resends.
    if (this.network.machineOff(to)) return;
    // A duplicated SYN (or one that arrives after the connection broke) opens nothing new.
    if (client.state !== 'syn-sent' || client.peer !== undefined) return;
    const listener = nobody === null ? undefined : this.listenerFor(client, to);
    if (listener === undefined) {
      // The kernel's answer, part of the handshake: on loopback read in the same poll as the SYN.
      this.network.world.kernelReply(() => this.sendReset(to, client));
      return;
    }
    // Between two hosts the server accepts when the client's ACK arrives, one trip after the
    // client's 'connect' (a connection whose SYN-ACKs are lost is never accepted).
    const server = this.serverEndpoint(client, to, listener);
    server.state = 'syn-received';
    server.pendingListener = listener;
    // SYN-ACK is segment 0 of the server's direction: it precedes any data the server sends.
    this.network.world.kernelReply(() =>
      this.reliableSend(server, client, HEADER_BYTES + 20, () => client.arrive({ seq: 0, kind: 'syn-ack' }, server), 'syn-ack'),
    );
    (server as unknown as { sendSeq: number }).sendSeq = 1;
  }

  /** The server's end of `client`'s connection to `listener` on host `to`. */
  private serverEndpoint(client: TcpEndpoint, to: Host, listener: TcpListener): TcpEndpoint {
    // A dual-stack IPv6 listener sees IPv4 peers as IPv4-mapped IPv6 addresses (::ffff:a.b.c.d).
    const mapped = listener.local.family === 6 && client.remote.family === 4;
    const server = mapped
      ? new TcpEndpoint(
          this,
          to,
          { address: `::ffff:${client.remote.address}`, port: client.remote.port, family: 6 },
          { address: `::ffff:${client.local.address}`, port: client.local.port, family: 6 },
        )
      : new TcpEndpoint(this, to, { ...client.remote }, { ...client.local });
    server.peer = client;
    server.unix = client.unix;
    server.traceConn = client.traceConn;
    client.peer = server;
    server.chain = listener.chain;
    this.endpoints.add(server);
    return server;
  }

  /**
   * A connection inside one host (loopback TCP, a unix socket): the kernel runs the whole
   * handshake inside connect(2), so the connection is in the listener's accept queue as
   * connect() returns, in the order the program connected, and the client's side is writable.
   * The poll that follows (this turn's from a timer, the next from an I/O callback or an
   * immediate) accepts the first waiting connection, then reports the clients' connects in
   * connect order; each further connection waits for a poll of its own (accept()).
   */
  private connectLocal(client: TcpEndpoint, listener: TcpListener): void {
    const host = client.host;
    const world = this.network.world;
    const server = this.serverEndpoint(client, host, listener);
    server.state = 'established';
    (server as unknown as { sendSeq: number }).sendSeq = 1;
    listener.waiting.push(server);
    // The handshake takes loopback's latency (handshakeDelayNs): the server's side one trip
    // later, the client's in that same poll, after the accept, in connect order; a slow loopback
    // (loopbackLatency, a latency fault) reports the client's side one trip after the server's.
    const delayNs = this.network.handshakeDelayNs(host, client.protocol);
    if (!listener.acceptScheduled) this.acceptNextPoll(listener, delayNs);
    world.scheduleArrival(host, clientSideNs(delayNs), () => client.arrive({ seq: 0, kind: 'syn-ack' }, server), undefined, undefined, client.chain, true);
  }

  /**
   * A loopback connect to a port nothing listens on: the kernel refuses it inside connect(2)
   * (its reset answers the SYN at once), and the refusal is reported in the poll that reports a
   * loopback connect made beside it, in connect order (the handshakes' one flow). Plainly a
   * refused connect made before a successful one fails first; with the SYN and the reset each
   * crossing the seeded loopback latency, every seed had had the successful one first.
   */
  private refuseLocal(client: TcpEndpoint): void {
    const host = client.host;
    const delayNs = this.network.handshakeDelayNs(host, client.protocol);
    this.network.world.scheduleArrival(host, clientSideNs(delayNs), () => {
      if (!this.network.machineOff(host)) client.resetByPeer();
    }, undefined, undefined, client.chain, true);
  }

  /**
   * Hands an established connection to the listener's application (accept(2)), as libuv does:
   * one connection per poll of the listening socket (libuv 1.45+, PR #3696: uv__server_io
   * accepts once and leaves the rest to level-triggered epoll). So of several clients that
   * connect in one tick, the first is accepted in the poll that reports every client's connect,
   * and each of the others in a poll of its own after that turn's immediates.
   */
  accept(listener: TcpListener, server: TcpEndpoint): void {
    const world = this.network.world;
    const host = listener.host;
    if (listener.waiting.length > 0 || (world.inPoll(host) && listener.acceptTurn === host.loopTurn)) {
      listener.waiting.push(server);
      if (!listener.acceptScheduled) this.acceptNextPoll(listener);
      return;
    }
    this.acceptNow(listener, server);
  }

  /**
   * Accepts the oldest waiting connection of `listener` in a later poll of its host: the next
   * one after this poll's (from an accept), or the one that reads what this host sends itself
   * now (`sentNs`, a connect on this host: its handshake's delay, 0 at once), as a loopback
   * packet would be read.
   */
  private acceptNextPoll(listener: TcpListener, sentNs = -1): void {
    listener.acceptScheduled = true;
    const world = this.network.world;
    const accept = () => {
      listener.acceptScheduled = false;
      const server = listener.waiting.shift();
      if (server === undefined || listener.closed) return;
      if (listener.waiting.length > 0) this.acceptNextPoll(listener);
      this.acceptNow(listener, server);
    };
    if (sentNs >= 0) world.scheduleArrival(listener.host, sentNs, accept, undefined, undefined, listener.chain, true);
    else world.scheduleNextPoll(listener.host, accept, listener.owner.scope);
  }

  private acceptNow(listener: TcpListener, server: TcpEndpoint): void {
    listener.acceptTurn = listener.host.loopTurn;
    // A connection the kernel queued for a listener closed since is reset (the owner does it).
    const owner = listener.owner;
    if (owner.scope !== undefined) owner.scope.runInAsyncScope(() => owner.connection(server));
    else owner.connection(server);
  }

  /**
   * Sends one segment reliably: a dropped packet is retransmitted with exponential backoff
   * until the network's TCP timeout, then the sender's connection fails with ETIMEDOUT.
   */
  reliableSend(from: TcpEndpoint, to: TcpEndpoint, bytes: number, deliver: () => boolean | void, what: Buffer | string, timesOut: TcpEndpoint = from): void {
    const world = this.network.world;
    const startNs = world.nowNs;
    const fifo = from.flowTo(to.host);
    // Traced: one message however often it is retransmitted.
    const traced = world.tracing ? this.traced(from, what) : undefined;
    if (traced !== undefined) traced.retry = -1;
    // Data and FIN segments are acknowledged by the receiver (a window update is itself an ACK;
    // the handshake's segments are followed by the connection's own states).
    const acked = typeof what !== 'string' || what === 'fin';
    const attempt = (rtoNs: number) => {
      if (traced !== undefined) traced.retry!++;
      // A connection that broke stops retransmitting; one the application closed goes on
      // delivering what it sent (the kernel keeps an orphaned socket until its data is out).
      if (from.state === 'closed' && from.closedBy !== 'app') return;
      const sentNs = world.nowNs;
      // Not acknowledged (lost on the way, or at the destination: a machine that is off, a
      // socket that is gone): retransmit at the sender's timeout, or fail at the deadline.
      const unacknowledged = () => {
        if (from.state === 'closed' && from.closedBy !== 'app') return;
        if (sentNs - startNs + rtoNs >= this.network.tcpTimeoutNs) {
          // No retransmission before the deadline: the connection fails AT the deadline (the
          // kernel's timer), not at this last lost attempt.
          world.scheduleArrival(timesOut.host, Math.max(0, startNs + this.network.tcpTimeoutNs - world.nowNs), () => {
            if (from.state === 'closed' && from.closedBy !== 'app') return;
            timesOut.timedOut();
          }, undefined, undefined, timesOut.chain);
          return;
        }
        world.scheduleArrival(from.host, Math.max(0, sentNs + rtoNs - world.nowNs), () => attempt(Math.min(rtoNs * 2, RTO_MAX_NS)), undefined, undefined, from.chain);
      };
      const sent = this.network.send(from.host, to.host, from.protocol, bytes, () => {
        if (deliver() === false) unacknowledged();
        // Taken, but its ACK cannot get back (a one-way partition): the receiver has the data,
        // and the sender retransmits it until the way back opens or its deadline passes, as
        // Linux does. Before, what arrived counted as acknowledged: a server streaming into a
        // one-way partition went on for ever (100 MB in 60 s) and never timed out.
        else if (acked && this.network.partitioned(to.host, from.host)) unacknowledged();
      }, fifo, { fromPort: from.local.port, toPort: to.local.port, carriesData: typeof what !== 'string', reset: () => this.resetPair(from) }, traced, to.chain);
      if (!sent) unacknowledged();
    };
    attempt(RTO_INITIAL_NS);
  }

  /** A keepalive probe from `from` to its peer (unreliable, like a reset: a lost probe is lost). */
  probe(from: TcpEndpoint, to: TcpEndpoint): void {
    this.network.send(from.host, to.host, from.protocol, HEADER_BYTES, () => to.probeArrived(from), from.flowTo(to.host), undefined, this.traced(from, 'probe'), to.chain);
  }

  /** What the trace records of a segment `from` sends (undefined when not tracing). */
  traced(from: TcpEndpoint, what: Buffer | string): PacketTrace | undefined {
    const world = this.network.world;
    if (!world.tracing) return undefined;
    const base = { msg: world.nextTraceId(), conn: from.traceConn };
    if (typeof what === 'string') return { ...base, seg: what };
    // Ciphertext differs per run (OpenSSL's randomness): a preview would make the trace of one
    // seed differ from run to run although the execution is the same.
    // Sticky: the owner goes away at close, while a close_notify may still be on its way.
    if (from.owner?.encrypted === true) from.encrypted = true;
    return from.encrypted ? { ...base, seg: 'data', enc: 'tls' } : { ...base, seg: 'data', data: what };
  }

  /**
   * A reset from `fromHost` to `to` (unreliable: a lost reset is simply lost). On loopback it
   * comes after whatever `to`'s peer sent before it (a SYN-ACK, data), never overtaking them;
   * when `sender`, `to`'s peer resetting its own connection, sent data in this event, the reset
   * arrives together with that data.
   */
  sendReset(fromHost: Host, to: TcpEndpoint, sender?: TcpEndpoint): void {
    if (sender !== undefined && sender.host === to.host) {
      // Loopback: in `to`'s kernel state at once (its process's next write fails with it), and
      // after data the sender wrote in this event, arriving with that data.
      to.resetComing ??= 'yes';
      if (sender.joinBatch({ seq: -1, kind: 'rst' })) return;
    }
    const fifo = to.peer?.host === fromHost ? to.peer.flowTo(to.host) : undefined;
    const traced = this.network.world.tracing ? { msg: this.network.world.nextTraceId(), conn: to.traceConn, seg: 'rst' } : undefined;
    this.network.send(fromHost, to.host, to.protocol, HEADER_BYTES, () => {
      if (!this.network.machineOff(to.host)) to.resetByPeer();
    }, fifo, undefined, traced, to.chain);
  }

  /**
   * The receiver's application has read `readTotalBytes` from `reader` in all: tell the sender
   * its window opened.
   */
  windowUpdate(reader: TcpEndpoint, sender: TcpEndpoint, readTotalBytes: number): void {
    if (!sender.windowFull && sender.unackedBytes <= WINDOW_BYTES / 2) {
      // Nobody waits: account at once, no packet needed.
      sender.windowOpened(readTotalBytes);
      return;
    }
    // A window update is an ACK: Linux never retransmits it, and never times its sender out for
    // it; the writer waiting for the window probes for it (its persist timer) and gives up,
    // ETIMEDOUT, when the probes go unanswered. Modelled as the update retransmitted until it
    // gets through, with the writer timing out at the deadline (before, the reader did: a
    // client that paused reading during a one-way partition got `read ETIMEDOUT`).
    this.reliableSend(reader, sender, HEADER_BYTES, () => sender.windowOpened(readTotalBytes), 'window', sender);
  }

  forget(endpoint: TcpEndpoint): void {
    this.endpoints.delete(endpoint);
  }

  /**
   * A host's process died: the kernel closes its sockets (FIN, or a reset if data was unread).
   * If its machine crashed, they vanish without a word (see TcpEndpoint.vanish).
   */
  hostDown(host: Host): void {
    for (const listener of [...this.listeners, ...this.unixListeners]) if (listener.host === host) this.unlisten(listener, true);
    const silently = this.network.machineOff(host);
    for (const endpoint of [...this.endpoints]) {
      if (endpoint.host !== host) continue;
      if (silently) endpoint.vanish();
      else endpoint.close(true);
    }
  }

  /**
   * Resets the established connections that `matches` picks, as a middlebox (a load balancer, a
   * NAT that forgot the flow, a firewall) does: each endpoint gets a reset from the other's side.
   * Returns how many connections were reset.
   */
  resetConnections(matches: (a: TcpEndpoint, b: TcpEndpoint) => boolean, afterBytes?: number): number {
    let count = 0;
    const seen = new Set<TcpEndpoint>();
    for (const endpoint of [...this.endpoints]) {
      const peer = endpoint.peer;
      // A unix domain socket has no network between its ends: nothing in the middle resets it.
      if (seen.has(endpoint) || peer === undefined || endpoint.state !== 'established' || endpoint.unix) continue;
      seen.add(endpoint);
      seen.add(peer);
      if (!matches(endpoint, peer)) continue;
      count++;
      if (afterBytes !== undefined && afterBytes > 0) {
        const armed = { bytesLeft: afterBytes };
        endpoint.resetAfter = armed;
        peer.resetAfter = armed;
      } else this.resetPair(endpoint);
    }
    return count;
  }

  /** Resets the connection of `endpoint` at both ends (a middlebox's reset): each hears it from the other's side. */
  resetPair(endpoint: TcpEndpoint): void {
    const peer = endpoint.peer;
    if (peer === undefined) return;
    if (endpoint.state !== 'closed') this.sendReset(peer.host, endpoint);
    if (peer.state !== 'closed') this.sendReset(endpoint.host, peer);
  }
}
