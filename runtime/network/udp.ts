/**
 * UDP on the simulated network: bound sockets per host and port; datagrams cross the rule chain
 * and may be lost, duplicated or reordered (each copy has its own latency). A datagram to a
 * port nobody bound, or to a host whose process is down, disappears, as on a real network.
 */
import type { AsyncResource } from 'node:async_hooks';
import type { Host } from '../hosts/host.js';
import { type Family, isWildcard, unmapped } from './addresses.js';
import { UV } from './errno.js';
import type { Network } from './network.js';

/** Linux's limit for a UDP payload over IPv4 (65535 - 8 - 20). */
export const UDP_PAYLOAD_MAX = 65_507;

export interface UdpOwner {
  readonly scope: AsyncResource | undefined;
  message(data: Buffer, from: { address: string; family: Family; port: number }): void;
}

export class UdpSocket {
  owner: UdpOwner | undefined;
  receiving = false;
  closed = false;
  broadcast = false;
  constructor(
    readonly stack: UdpStack,
    readonly host: Host,
    public address: string,
    public port: number,
    readonly family: Family,
  ) {}

  accepts(address: string, port: number): boolean {
    if (this.closed || port !== this.port) return false;
    return isWildcard(this.address) || unmapped(this.address) === unmapped(address);
  }

  close(): void {
    this.closed = true;
    this.owner = undefined;
    this.stack.unbind(this);
  }
}

export class UdpStack {
  readonly network: Network;
  private readonly sockets: UdpSocket[] = [];
  private readonly nextEphemeral = new Map<Host, number>();

  constructor(network: Network) {
    this.network = network;
  }

  /** Binds a socket; port 0 picks an ephemeral port. Returns a UV code or 0. */
  bind(socket: UdpSocket, reuseAddr: boolean): number {
    if (socket.port === 0) {
      let port = this.nextEphemeral.get(socket.host);
      if (port === undefined) port = 32768 + socket.host.stream('udp-ports').int(0, 28232);
      for (let tries = 0; tries < 28232; tries++, port = 32768 + ((port - 32768 + 1) % 28232)) {
        if (!this.sockets.some((s) => s.host === socket.host && s.port === port)) break;
      }
      socket.port = port;
      this.nextEphemeral.set(socket.host, 32768 + ((port - 32768 + 1) % 28232));
    } else if (!reuseAddr) {
      for (const other of this.sockets) {
        if (other.host !== socket.host || other.port !== socket.port || other.family !== socket.family) continue;
        if (other.address === socket.address || isWildcard(other.address) || isWildcard(socket.address)) return UV.EADDRINUSE;
      }
    }
    this.sockets.push(socket);
    return 0;
  }

  unbind(socket: UdpSocket): void {
    const i = this.sockets.indexOf(socket);
    if (i >= 0) this.sockets.splice(i, 1);
  }

  /** Sends one datagram; returns a UV code (EMSGSIZE) or 0. Delivery is never confirmed. */
  send(from: UdpSocket, address: string, port: number, data: Buffer): number {
    if (data.length > UDP_PAYLOAD_MAX) return UV.EMSGSIZE;
    const to = this.network.hostAt(address, from.host);
    if (to === undefined) return 0; // outside the simulation: lost in the network
    const source = { address: this.sourceAddress(from, address), family: from.family, port: from.port };
    const payload = Buffer.from(data);
    this.network.send(from.host, to, 'udp', payload.length + 28, () => {
      if (to.state !== 'running') return;
      const target = this.sockets.find((s) => s.host === to && s.receiving && s.accepts(address, port));
      const owner = target?.owner;
      if (owner === undefined) return;
      const copy = Buffer.from(payload);
      if (owner.scope !== undefined) owner.scope.runInAsyncScope(() => owner.message(copy, source));
      else owner.message(copy, source);
    });
    return 0;
  }

  /** The address a datagram appears to come from. */
  private sourceAddress(from: UdpSocket, destination: string): string {
    const dest = unmapped(destination);
    if (dest === '::1' || dest.startsWith('127.')) return from.family === 6 ? '::1' : '127.0.0.1';
    if (!isWildcard(from.address)) return from.address;
    const own = this.network.addressesOf(from.host);
    return from.family === 6 ? own.ipv6 : own.ipv4;
  }

  hostDown(host: Host): void {
    for (const socket of [...this.sockets]) if (socket.host === host) socket.close();
  }
}
