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
 */
import type { AsyncResource } from 'node:async_hooks';
import type { Host } from '../hosts/host.js';
import { type Family, isWildcard, unmapped } from './addresses.js';
import { UV } from './errno.js';
import type { Network } from './network.js';

export const WINDOW_BYTES = 256 * 1024;
const RTO_INITIAL_NS = 200_000_000;
const RTO_MAX_NS = 60_000_000_000;
const SYN_RTO_INITIAL_NS = 1_000_000_000;

/** What the shim's handle implements to hear from its endpoint. */
export interface TcpOwner {
  /** The async context of the handle: callbacks run inside it. */
  readonly scope: AsyncResource | undefined;
  /** Client side: the handshake finished (0) or failed (a UV error code). */
  connected(status: number): void;
  data(chunk: Buffer): void;
  /** The peer sent FIN and every byte before it was delivered. */
  end(): void;
  /** The connection broke: ECONNRESET, ETIMEDOUT. */
  failed(code: number): void;
  /** Writes that waited for window space may complete. */
  writable(): void;
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
  | { seq: number; kind: 'fin' };

export class TcpListener {
  constructor(
    readonly host: Host,
    readonly local: SocketAddress,
    readonly owner: ListenerOwner,
    /** '::' without ipv6Only accepts IPv4 too (dual stack). */
    readonly ipv6Only: boolean,
  ) {}
  closed = false;

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
  state: 'syn-sent' | 'established' | 'closed' = 'syn-sent';
  /** The application wants data (readStart) — otherwise data waits in `unread`. */
  reading = false;
  private sendSeq = 0;
  private recvSeq = 0;
  private readonly outOfOrder = new Map<number, Segment>();
  /** Delivered by the network, not yet handed to the application, in order. */
  private readonly unread: Array<Buffer | 'eof'> = [];
  private flushScheduled = false;
  finSent = false;
  finReceived = false;
  /** Bytes this endpoint sent that the peer's application has not read yet. */
  unackedBytes = 0;
  /** Bytes written by the application, waiting for window space. */
  blockedBytes = 0;
  bytesRead = 0;
  bytesWritten = 0;

  constructor(stack: TcpStack, host: Host, local: SocketAddress, remote: SocketAddress) {
    this.stack = stack;
    this.host = host;
    this.local = local;
    this.remote = remote;
  }

  get network(): Network {
    return this.stack.network;
  }

  // ---- sending ----------------------------------------------------------------------------

  /**
   * Queues `data` for the peer. Returns true when the write completed at once (window space),
   * false when it waits: the owner's writable() then says when to retry completion.
   */
  write(data: Buffer): number {
    if (this.state !== 'established' || this.finSent) return UV.EPIPE;
    this.bytesWritten += data.length;
    if (data.length > 0) this.transmit({ seq: this.sendSeq++, kind: 'data', data });
    this.unackedBytes += data.length;
    return 0;
  }

  /** True when the window is full: further write completions must wait for writable(). */
  get windowFull(): boolean {
    return this.unackedBytes >= WINDOW_BYTES;
  }

  /** Sends FIN after everything written so far (shutdown, or a graceful close). */
  finish(): void {
    if (this.state !== 'established' || this.finSent) return;
    this.finSent = true;
    this.transmit({ seq: this.sendSeq++, kind: 'fin' });
  }

  /** Sends a reset and closes (socket.resetAndDestroy, or close with unread data). */
  reset(): void {
    if (this.state === 'established' && this.peer !== undefined) this.stack.sendReset(this.host, this.peer);
    this.close(false);
  }

  /**
   * The application closed its handle. Like close(2): a FIN if everything was read, a reset if
   * unread data remains; afterwards the kernel answers the peer's segments with resets.
   */
  close(graceful = true): void {
    if (this.state === 'closed') {
      this.owner = undefined;
      return;
    }
    if (graceful && this.state === 'established') {
      if (this.unread.some((item) => item !== 'eof')) {
        if (this.peer !== undefined) this.stack.sendReset(this.host, this.peer);
      } else {
        this.finish();
      }
    }
    this.state = 'closed';
    this.owner = undefined;
    this.stack.forget(this);
  }

  private transmit(segment: Segment): void {
    const peer = this.peer;
    if (peer === undefined) return;
    const bytes = segment.kind === 'data' ? segment.data.length + 40 : 40;
    this.stack.reliableSend(this, peer, bytes, () => peer.arrive(segment, this));
  }

  // ---- receiving (arrival events on this endpoint's host) ------------------------------------

  arrive(segment: Segment, from: TcpEndpoint): void {
    if (this.state === 'closed' || this.host.state !== 'running') {
      // The kernel has no socket for this segment any more: it answers with a reset.
      this.stack.sendReset(this.host, from);
      return;
    }
    if (segment.seq < this.recvSeq || this.outOfOrder.has(segment.seq)) return; // a duplicate
    this.outOfOrder.set(segment.seq, segment);
    while (this.outOfOrder.has(this.recvSeq)) {
      const next = this.outOfOrder.get(this.recvSeq)!;
      this.outOfOrder.delete(this.recvSeq);
      this.recvSeq++;
      this.accept(next);
      if ((this.state as string) === 'closed') return;
    }
  }

  private accept(segment: Segment): void {
    switch (segment.kind) {
      case 'syn-ack':
        this.state = 'established';
        this.notify((owner) => owner.connected(0));
        return;
      case 'data':
        this.unread.push(segment.data);
        this.flush();
        return;
      case 'fin':
        this.finReceived = true;
        this.unread.push('eof');
        this.flush();
        return;
    }
  }

  /** A reset arrived from the peer. */
  resetByPeer(): void {
    if (this.state === 'closed') return;
    const wasConnecting = this.state === 'syn-sent';
    this.state = 'closed';
    this.unread.length = 0;
    this.stack.forget(this);
    this.notify((owner) => (wasConnecting ? owner.connected(UV.ECONNREFUSED) : owner.failed(UV.ECONNRESET)));
    this.owner = undefined;
  }

  /** Retransmission gave up (a long partition, or a peer that vanished). */
  timedOut(): void {
    if (this.state === 'closed') return;
    const wasConnecting = this.state === 'syn-sent';
    this.state = 'closed';
    this.stack.forget(this);
    this.notify((owner) => (wasConnecting ? owner.connected(UV.ETIMEDOUT) : owner.failed(UV.ETIMEDOUT)));
    this.owner = undefined;
  }

  /** The application started (or resumed) reading. */
  startReading(): void {
    this.reading = true;
    if (this.unread.length > 0) this.scheduleFlush();
  }

  stopReading(): void {
    this.reading = false;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // Like libuv, data already buffered is delivered on a later turn, not inside readStart().
    this.stack.network.world.schedule(this.host, 0, 'net', () => {
      this.flushScheduled = false;
      this.flush();
    }, undefined, false, this.owner?.scope);
  }

  /** Hands buffered data to the application while it is reading. */
  private flush(): void {
    let consumed = 0;
    while (this.reading && this.unread.length > 0 && this.owner !== undefined && this.host.state === 'running') {
      const item = this.unread.shift()!;
      if (item === 'eof') {
        this.notify((owner) => owner.end());
      } else {
        consumed += item.length;
        this.bytesRead += item.length;
        this.notify((owner) => owner.data(item));
      }
    }
    if (consumed > 0 && this.peer !== undefined) this.stack.windowUpdate(this, this.peer, consumed);
  }

  notify(fn: (owner: TcpOwner) => void): void {
    const owner = this.owner;
    if (owner === undefined || this.host.state !== 'running') return;
    if (owner.scope !== undefined) owner.scope.runInAsyncScope(fn, undefined, owner);
    else fn(owner);
  }

  /** The peer's application read `bytes`: our window reopens. */
  windowOpened(bytes: number): void {
    const wasFull = this.windowFull;
    this.unackedBytes = Math.max(0, this.unackedBytes - bytes);
    if (wasFull && !this.windowFull) this.notify((owner) => owner.writable());
  }

  /** True while data waits for the application: closing now sends a reset, not a FIN. */
  get hasUnread(): boolean {
    return this.unread.length > 0;
  }
}

/** All TCP state of the simulation: listeners, connections, ephemeral ports. */
export class TcpStack {
  readonly network: Network;
  private readonly listeners: TcpListener[] = [];
  private readonly endpoints = new Set<TcpEndpoint>();
  private readonly nextEphemeral = new Map<Host, number>();

  constructor(network: Network) {
    this.network = network;
  }

  /** An ephemeral port for a host: sequential from a seeded start, like Linux's range. */
  ephemeralPort(host: Host): number {
    let port = this.nextEphemeral.get(host);
    if (port === undefined) port = 32768 + host.stream('ports').int(0, 28232);
    for (let tries = 0; tries < 28232; tries++) {
      const candidate = 32768 + ((port - 32768 + tries) % 28232);
      if (!this.portInUse(host, candidate)) {
        this.nextEphemeral.set(host, candidate + 1);
        return candidate;
      }
    }
    return 0;
  }

  portInUse(host: Host, port: number): boolean {
    return this.listeners.some((l) => l.host === host && !l.closed && l.local.port === port);
  }

  /** Binds a listener; returns a UV error code or 0. */
  listen(listener: TcpListener): number {
    for (const other of this.listeners) {
      if (other.host !== listener.host || other.closed || other.local.port !== listener.local.port) continue;
      const a = other.local.address;
      const b = listener.local.address;
      if (a === b || isWildcard(a) || isWildcard(b)) return UV.EADDRINUSE;
    }
    this.listeners.push(listener);
    return 0;
  }

  unlisten(listener: TcpListener): void {
    listener.closed = true;
    const i = this.listeners.indexOf(listener);
    if (i >= 0) this.listeners.splice(i, 1);
  }

  /**
   * Starts a connection from `endpoint` (state syn-sent) to its remote address. The owner
   * hears connected(0) when the SYN-ACK arrives, or an error code.
   */
  connect(endpoint: TcpEndpoint): void {
    this.endpoints.add(endpoint);
    const from = endpoint.host;
    const to = this.network.hostAt(endpoint.remote.address, from);
    const startNs = this.network.world.nowNs;
    const attempt = (rtoNs: number) => {
      if (endpoint.state !== 'syn-sent') return;
      const sent = to !== undefined && this.network.send(from, to, 'tcp', 60, () => this.synArrived(endpoint, to));
      if (sent) return;
      // Lost (or nobody owns the address): retransmit the SYN with backoff, then give up.
      if (this.network.world.nowNs - startNs + rtoNs > this.network.tcpTimeoutNs) {
        this.network.world.schedule(from, Math.max(0, startNs + this.network.tcpTimeoutNs - this.network.world.nowNs), 'net', () => endpoint.timedOut(), undefined, false);
        return;
      }
      this.network.world.schedule(from, rtoNs, 'net', () => attempt(Math.min(rtoNs * 2, RTO_MAX_NS)), undefined, false);
    };
    attempt(SYN_RTO_INITIAL_NS);
  }

  /** A SYN reached host `to`: accept it if something listens, else answer with a reset. */
  private synArrived(client: TcpEndpoint, to: Host): void {
    if (client.state !== 'syn-sent') return;
    const family = client.remote.family;
    const listener =
      to.state === 'running'
        ? this.listeners.find((l) => l.host === to && l.accepts(client.remote.address, family, client.remote.port))
        : undefined;
    if (listener === undefined) {
      this.sendReset(to, client);
      return;
    }
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
    server.state = 'established';
    server.peer = client;
    client.peer = server;
    this.endpoints.add(server);
    // SYN-ACK is segment 0 of the server's direction: it precedes any data the server sends.
    this.reliableSend(server, client, 60, () => client.arrive({ seq: 0, kind: 'syn-ack' }, server));
    (server as unknown as { sendSeq: number }).sendSeq = 1;
    const owner = listener.owner;
    if (owner.scope !== undefined) owner.scope.runInAsyncScope(() => owner.connection(server));
    else owner.connection(server);
  }

  /**
   * Sends one segment reliably: a dropped packet is retransmitted with exponential backoff
   * until the network's TCP timeout, then the sender's connection fails with ETIMEDOUT.
   */
  reliableSend(from: TcpEndpoint, to: TcpEndpoint, bytes: number, deliver: () => void): void {
    const world = this.network.world;
    const startNs = world.nowNs;
    const attempt = (rtoNs: number) => {
      if (from.state === 'closed' && !from.finSent) return;
      if (this.network.send(from.host, to.host, 'tcp', bytes, deliver)) return;
      if (world.nowNs - startNs + rtoNs > this.network.tcpTimeoutNs) {
        from.timedOut();
        return;
      }
      world.scheduleArrival(from.host, rtoNs, () => attempt(Math.min(rtoNs * 2, RTO_MAX_NS)), undefined);
    };
    attempt(RTO_INITIAL_NS);
  }

  /** A reset from `fromHost` to `to` (unreliable: a lost reset is simply lost). */
  sendReset(fromHost: Host, to: TcpEndpoint): void {
    this.network.send(fromHost, to.host, 'tcp', 40, () => to.resetByPeer());
  }

  /** The receiver's application read `bytes` from `reader`: tell the sender its window opened. */
  windowUpdate(reader: TcpEndpoint, sender: TcpEndpoint, bytes: number): void {
    if (!sender.windowFull && sender.unackedBytes <= WINDOW_BYTES / 2) {
      // Nobody waits: account at once, no packet needed.
      sender.unackedBytes = Math.max(0, sender.unackedBytes - bytes);
      return;
    }
    this.reliableSend(reader, sender, 40, () => sender.windowOpened(bytes));
  }

  forget(endpoint: TcpEndpoint): void {
    this.endpoints.delete(endpoint);
  }

  /** A host's process died: the kernel closes its sockets (FIN, or a reset if data was unread). */
  hostDown(host: Host): void {
    for (const listener of [...this.listeners]) if (listener.host === host) this.unlisten(listener);
    for (const endpoint of [...this.endpoints]) {
      if (endpoint.host !== host) continue;
      if (endpoint.state === 'established' && endpoint.peer !== undefined) {
        if (endpoint.hasUnread) endpoint.reset();
        else endpoint.close(true);
      } else {
        endpoint.close(false);
      }
    }
  }
}
