/**
 * UDP interposition at the level of Node's own handle (internalBinding('udp_wrap').UDP, the
 * object dgram.Socket drives). Node's real dgram.js runs unchanged — its validation, its
 * bind/connect queueing, its errors ("bind EADDRINUSE 0.0.0.0:4000", "send EMSGSIZE
 * 10.0.0.2:9") — and only the handle talks to the simulated network instead of libuv.
 *
 * How (the technique of net-binding.ts): the entry points through which libuv would reach the
 * OS — UDP.prototype.bind/bind6/connect/connect6/send/send6/open and the membership calls,
 * which bind an unbound socket implicitly — are patched. Called from a simulated host, they
 * turn that handle into a simulated one by giving it OWN methods (recvStart, close, getsockname,
 * setTTL, ...) that shadow the native prototype's. A handle never used from a host (the test
 * runner's) never changes, and an unbound handle answers like the native one (EBADF).
 *
 * Node quirks this relies on:
 * - For 'udp6' sockets dgram copies bind6/connect6/send6 into OWN properties bind/connect/send
 *   when it creates the handle (lib/internal/dgram.js newHandle), so the patched prototype
 *   functions are what those copies hold; the family comes from which one is called.
 * - send() returns `bytes + 1` when the datagram left synchronously (the usual case in libuv:
 *   uv_udp_try_send), and dgram then calls the callback on the next tick with the byte count;
 *   a negative return is an error, which dgram passes to the callback only — a send without a
 *   callback fails silently, as in Node (its EMSGSIZE never becomes an 'error' event).
 * - Receive errors arrive as `onmessage(nread < 0, handle)`; dgram emits them as 'error'
 *   events ("recvmsg ECONNREFUSED").
 *
 * The native handle is real (a UDPWrap whose uv_udp_t never gets a descriptor) and, like every
 * open libuv handle, a GC root until closed natively; dgram makes it when the socket is created,
 * before any bind. The program closes it through close(); a handle of a host that goes down,
 * or still open when the run ends, is closed by the world (world.natives.hold) without running
 * any of the program's callbacks and cut off from the simulation, so a finished world is never
 * kept alive by Node's handle list. Node asks every new handle for its async id (getAsyncId, in
 * dgram's Socket constructor): that is where a host's handles are found before they are used.
 */
import { AsyncResource } from 'node:async_hooks';
import { UnsupportedError } from '../../runtime/errors.js';
import { type Family, familyName, familyOf } from '../../runtime/network/addresses.js';
import { UV } from '../../runtime/network/errno.js';
import type { Network } from '../../runtime/network/network.js';
import { RECV_BUFFER_DEFAULT_BYTES, type UdpOwner, type UdpPeer, UdpSocket } from '../../runtime/network/udp.js';
import type { NativeResource } from '../../runtime/hosts/native-resources.js';
import type { World } from '../../runtime/world.js';
import { currentHost, forgetHost, type Host } from '../context.js';
import { completeListed, type ListedHandle, makeSimulated, type NativeHandle, noteClosing, own, released, trackRequest, trackingGetAsyncId } from './native-handles.js';
import type { PatchSet } from '../registry.js';
import { nodeBinding } from '../node-binding.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

const udpWrap = nodeBinding('udp_wrap');
const UDP = udpWrap.UDP as new () => NativeHandle;
const FLAG_IPV6ONLY: number = udpWrap.constants.UV_UDP_IPV6ONLY ?? 1;
const FLAG_REUSEADDR: number = udpWrap.constants.UV_UDP_REUSEADDR ?? 4;
const FLAG_REUSEPORT: number = udpWrap.constants.UV_UDP_REUSEPORT ?? 64;
/** Linux's default SO_SNDBUF (net.core.wmem_default; SO_RCVBUF's is udp.ts'), and the floors it applies. */
const SEND_BUFFER_DEFAULT_BYTES = 212_992;
const RECV_BUFFER_MIN_BYTES = 2_304;
const SEND_BUFFER_MIN_BYTES = 4_608;
/**
 * The simulated machine's net.core.rmem_max and wmem_max: Linux's stock 212,992, whatever this
 * machine is tuned to. Linux sets a buffer to twice what was asked, asked capped at these, so
 * `setRecvBufferSize(8 MiB)` gives 425,984 bytes on a stock kernel: a datagram burst that fits in
 * what was asked for is dropped in production too.
 */
const BUFFER_MAX_BYTES = 212_992;
/** The largest buffer size the binding accepts (it must be an int). */
const INT32_MAX = 2 ** 31 - 1;
/**
 * Node's `--test-udp-no-try-send` (a flag of its own tests): sends skip uv_udp_try_send and go
 * through libuv's send queue, so getSendQueueSize/Count count them until they complete.
 */
const NO_TRY_SEND = process.execArgv.includes('--test-udp-no-try-send');

/** A send in libuv's queue (NO_TRY_SEND): sent (status set) at once or at the queue's flush. */
interface QueuedSend {
  req: NativeHandle;
  data: Buffer;
  address: string | undefined;
  port: number | undefined;
  hasCallback: boolean;
  /** The send's result once it left (0 or a UV error), undefined while it waits. */
  status: number | undefined;
  listed: () => void;
}

const proto = UDP.prototype;
const realUdp = {
  bind: proto.bind,
  bind6: proto.bind6,
  connect: proto.connect,
  connect6: proto.connect6,
  send: proto.send,
  send6: proto.send6,
  open: proto.open,
  addMembership: proto.addMembership,
  dropMembership: proto.dropMembership,
  addSourceSpecificMembership: proto.addSourceSpecificMembership,
  dropSourceSpecificMembership: proto.dropSourceSpecificMembership,
  close: Object.getPrototypeOf(proto).close as (cb?: () => void) => void,
  getAsyncId: proto.getAsyncId as () => number,
  hasRef: Object.getPrototypeOf(proto).hasRef as () => boolean,
  listedAs(this: NativeHandle): string | undefined {
    return realUdp.hasRef.call(this) ? 'UDPWrap' : undefined;
  },
};

const kSim = Symbol('dst.simulatedUdpHandle');
/** A handle a host created that has not turned simulated yet (see native-handles.ts). */
const kRaw = Symbol('dst.rawUdpHandle');

/** Simulation state of one UDP handle. */
class SimUdp implements UdpOwner, ListedHandle {
  readonly handle: NativeHandle;
  readonly host: Host;
  readonly network: Network;
  readonly scope: AsyncResource;
  readonly socket: UdpSocket;
  refed = true;
  holdsRef = false;
  closed = false;
  recvBufferBytes = RECV_BUFFER_DEFAULT_BYTES;
  sendBufferBytes = SEND_BUFFER_DEFAULT_BYTES;
  /** libuv's send queue (only with NO_TRY_SEND), oldest first, and its bytes. */
  readonly sendQueue: QueuedSend[] = [];
  sendQueueBytes = 0;

  constructor(handle: NativeHandle, host: Host, family: Family) {
    this.handle = handle;
    this.host = host;
    this.network = host.world.network;
    this.scope = new AsyncResource('UDPWRAP', { requireManualDestroy: true });
    this.socket = new UdpSocket(this.network.udp, host, family);
    this.socket.owner = this;
  }

  listedAs(): string | undefined {
    return this.refed ? 'UDPWrap' : undefined;
  }

  /** A receiving socket keeps its host alive (libuv: the handle is active), unless unref'd. */
  active(): void {
    const want = this.socket.receiving && this.refed && !this.closed;
    if (want === this.holdsRef) return;
    this.holdsRef = want;
    if (want) this.host.world.refHandle(this.host);
    else this.host.world.unrefHandle(this.host);
  }

  /**
   * Its host went down, or the run is over, with the handle still open: frees the native
   * handle and cuts it off from the simulation, running nothing of the program (the network,
   * on hostDown, already closed the socket as the kernel would).
   */
  release(): void {
    this.closed = true;
    this.active();
    this.socket.owner = undefined;
    releaseHandle(this.handle);
    realUdp.close.call(this.handle);
  }

  message(data: Buffer, from: UdpPeer): void {
    if (this.closed || typeof this.handle.onmessage !== 'function') return;
    this.handle.onmessage(data.length, this.handle, data, { address: from.address, family: familyName(from.family), port: from.port });
  }

  error(code: number): void {
    if (this.closed || typeof this.handle.onmessage !== 'function') return;
    this.handle.onmessage(code, this.handle, undefined, undefined);
  }
}

function simOf(handle: NativeHandle): SimUdp | undefined {
  return handle[kSim] as SimUdp | undefined;
}

/** Gives a native UDP handle the simulated methods, shadowing the prototype's. */
function simulate(handle: NativeHandle, host: Host, family: Family): SimUdp {
  const sim = new SimUdp(handle, host, family);
  // An unref() made before the handle turned simulated (socket.unref() before bind) went to the
  // native handle: carry it over.
  sim.refed = realUdp.hasRef.call(handle);
  makeSimulated(handle, { kSim, kRaw }, host, sim);
  own(handle, 'recvStart', recvStart);
  own(handle, 'recvStop', recvStop);
  own(handle, 'close', close);
  own(handle, 'ref', ref);
  own(handle, 'unref', unref);
  own(handle, 'hasRef', hasRef);
  own(handle, 'getsockname', getsockname);
  own(handle, 'getpeername', getpeername);
  own(handle, 'disconnect', disconnect);
  own(handle, 'setBroadcast', setBroadcast);
  own(handle, 'setTTL', setTTL);
  own(handle, 'setMulticastTTL', setMulticastTTL);
  own(handle, 'setMulticastLoopback', setMulticastLoopback);
  own(handle, 'setMulticastInterface', setMulticastInterface);
  own(handle, 'bufferSize', bufferSize);
  own(handle, 'getSendQueueSize', () => sim.sendQueueBytes);
  own(handle, 'getSendQueueCount', () => sim.sendQueue.length);
  own(handle, 'fd', -1);
  return sim;
}

/** A released handle's bufferSize (see SimUdp.release): fails as on a closed descriptor. */
function releasedBufferSize(_size: number, isReceive: boolean, ctx: Record<string, unknown>): undefined {
  ctx.errno = UV.EBADF;
  ctx.code = 'EBADF';
  ctx.message = 'bad file descriptor';
  ctx.syscall = isReceive ? 'uv_recv_buffer_size' : 'uv_send_buffer_size';
  return undefined;
}

/**
 * Turns a simulated handle into an inert one that references nothing of the simulation (its
 * SimUdp holds the host, the network, the world): a program object still holding the socket
 * then holds no world, and a call that still reaches the handle finds a closed descriptor.
 */
function releaseHandle(handle: NativeHandle): void {
  delete handle[kSim];
  forgetHost(handle);
  const badf = ['recvStart', 'getsockname', 'getpeername', 'disconnect', 'setBroadcast', 'setTTL', 'setMulticastTTL', 'setMulticastLoopback', 'setMulticastInterface'];
  for (const name of badf) own(handle, name, released.badf);
  for (const name of ['close', 'ref', 'unref']) own(handle, name, released.nothing);
  for (const name of ['recvStop', 'getSendQueueSize', 'getSendQueueCount']) own(handle, name, released.zero);
  own(handle, 'hasRef', released.no);
  own(handle, 'bufferSize', releasedBufferSize);
}

/**
 * The simulated state of `handle` for a call from the current host, converting it on first use;
 * undefined when the caller is outside every host and the handle is a native one.
 */
function simFor(handle: NativeHandle, family: Family): SimUdp | undefined {
  const existing = simOf(handle);
  if (existing !== undefined) return existing;
  const host = currentHost();
  return host === undefined ? undefined : simulate(handle, host, family);
}

function bindOptions(flags: number) {
  return {
    ipv6Only: (flags & FLAG_IPV6ONLY) !== 0,
    reuseAddr: (flags & FLAG_REUSEADDR) !== 0,
    reusePort: (flags & FLAG_REUSEPORT) !== 0,
  };
}

// ---- the entry points (patched on UDP.prototype) -------------------------------------------

function patchedBind(this: NativeHandle, address: string, port: number, flags: number): number {
  const sim = simFor(this, 4);
  if (sim === undefined) return realUdp.bind.call(this, address, port, flags) as number;
  return sim.network.udp.bind(sim.socket, String(address), port >>> 0, bindOptions(flags ?? 0));
}

function patchedBind6(this: NativeHandle, address: string, port: number, flags: number): number {
  const sim = simFor(this, 6);
  if (sim === undefined) return realUdp.bind6.call(this, address, port, flags) as number;
  return sim.network.udp.bind(sim.socket, String(address), port >>> 0, bindOptions(flags ?? 0));
}

function connectAny(sim: SimUdp, address: string, port: number): number {
  return sim.network.udp.connect(sim.socket, String(address), port >>> 0);
}

function patchedConnect(this: NativeHandle, address: string, port: number): number {
  const sim = simFor(this, 4);
  if (sim === undefined) return realUdp.connect.call(this, address, port) as number;
  return connectAny(sim, address, port);
}

function patchedConnect6(this: NativeHandle, address: string, port: number): number {
  const sim = simFor(this, 6);
  if (sim === undefined) return realUdp.connect6.call(this, address, port) as number;
  return connectAny(sim, address, port);
}

/**
 * send(req, list, count, port, address, hasCallback) on an unconnected socket, or
 * send(req, list, count, hasCallback) on a connected one. Returns bytes + 1 (sent at once) or
 * a UV error code.
 */
function sendAny(sim: SimUdp, args: unknown[]): number {
  const list = args[1] as Uint8Array[];
  const count = args[2] as number;
  const unconnected = args.length > 4;
  const parts: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const chunk = list[i]!;
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  const data = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  const address = unconnected ? String(args[4]) : undefined;
  const port = unconnected ? (args[3] as number) >>> 0 : undefined;
  if (NO_TRY_SEND) return queueSend(sim, args[0] as NativeHandle, data, address, port, Boolean(args[args.length - 1]));
  const err = sim.network.udp.send(sim.socket, address, port, data);
  return err !== 0 ? err : data.length + 1;
}

/**
 * uv_udp_send (NO_TRY_SEND): the request joins the queue; into an empty queue it is sent at once
 * and the queue is flushed in the next turn's pending phase (uv__io_feed), where what waits is
 * sent and then every request completes in order (size and count drop, then its callback:
 * `oncomplete(status, bytes)`, a send error included). Returns 0: nothing is reported now.
 * Measured on Node 20, 22 and 24.
 */
function queueSend(sim: SimUdp, req: NativeHandle, data: Buffer, address: string | undefined, port: number | undefined, hasCallback: boolean): number {
  const entry: QueuedSend = { req, data, address, port, hasCallback, status: undefined, listed: trackRequest(sim.host, 'SendWrap') };
  sim.sendQueue.push(entry);
  sim.sendQueueBytes += data.length;
  if (sim.sendQueue.length > 1) return 0;
  entry.status = sim.network.udp.send(sim.socket, address, port, data);
  const world = sim.host.world as World;
  world.pendingPhase(world.schedule(sim.host, 0, 'io', () => {
    if (sim.closed) return; // completed by close, in its closing phase
    for (const waiting of sim.sendQueue) {
      waiting.status ??= sim.network.udp.send(sim.socket, waiting.address, waiting.port, waiting.data);
    }
    completeSends(sim);
  }, undefined, true, sim.scope), sim.host);
  return 0;
}

/** uv__udp_run_completed: each queued request leaves the queue, then gets its callback. */
function completeSends(sim: SimUdp): void {
  while (sim.sendQueue.length > 0) {
    const entry = sim.sendQueue.shift()!;
    sim.sendQueueBytes -= entry.data.length;
    completeListed(entry.listed, () => {
      if (entry.hasCallback) entry.req.oncomplete(entry.status ?? UV.ECANCELED, entry.data.length);
    });
  }
}

function patchedSend(this: NativeHandle, ...args: unknown[]): number {
  const sim = simFor(this, 4);
  if (sim === undefined) return Reflect.apply(realUdp.send, this, args) as number;
  return sendAny(sim, args);
}

function patchedSend6(this: NativeHandle, ...args: unknown[]): number {
  const sim = simFor(this, 6);
  if (sim === undefined) return Reflect.apply(realUdp.send6, this, args) as number;
  return sendAny(sim, args);
}

function patchedOpen(this: NativeHandle, fd: number): number {
  if (currentHost() === undefined && simOf(this) === undefined) return realUdp.open.call(this, fd) as number;
  throw new UnsupportedError(
    `dgram socket.bind({ fd: ${fd} }) (a real file descriptor)`,
    'simulated hosts have no real descriptors; bind to a port of the host instead',
  );
}

/** The family an implicit bind gets: libuv binds to the family of the address given. */
function familyFor(address: unknown): Family {
  return familyOf(String(address)) === 6 ? 6 : 4;
}

function patchedAddMembership(this: NativeHandle, group: string, iface?: string): number {
  const sim = simFor(this, familyFor(group));
  if (sim === undefined) return realUdp.addMembership.call(this, group, iface) as number;
  return sim.network.udp.addMembership(sim.socket, String(group), iface === undefined ? undefined : String(iface));
}

function patchedDropMembership(this: NativeHandle, group: string, iface?: string): number {
  const sim = simFor(this, familyFor(group));
  if (sim === undefined) return realUdp.dropMembership.call(this, group, iface) as number;
  return sim.network.udp.dropMembership(sim.socket, String(group), iface === undefined ? undefined : String(iface));
}

function patchedAddSourceSpecificMembership(this: NativeHandle, source: string, group: string, iface?: string): number {
  const sim = simFor(this, familyFor(group));
  if (sim === undefined) return realUdp.addSourceSpecificMembership.call(this, source, group, iface) as number;
  return sim.network.udp.addMembership(sim.socket, String(group), iface === undefined ? undefined : String(iface), String(source));
}

function patchedDropSourceSpecificMembership(this: NativeHandle, source: string, group: string, iface?: string): number {
  const sim = simFor(this, familyFor(group));
  if (sim === undefined) return realUdp.dropSourceSpecificMembership.call(this, source, group, iface) as number;
  return sim.network.udp.dropMembership(sim.socket, String(group), iface === undefined ? undefined : String(iface), String(source));
}

// ---- the simulated methods (own properties of simulated handles) ----------------------------

function recvStart(this: NativeHandle): number {
  const sim = simOf(this)!;
  if (sim.closed) return UV.EBADF;
  if (!sim.socket.bound) {
    const err = sim.network.udp.ensureBound(sim.socket);
    if (err !== 0) return err;
  }
  sim.socket.receiving = true;
  sim.active();
  return 0;
}

function recvStop(this: NativeHandle): number {
  const sim = simOf(this)!;
  sim.socket.receiving = false;
  sim.active();
  return 0;
}

function close(this: NativeHandle, callback?: () => void): void {
  const sim = simOf(this)!;
  if (sim.closed) return;
  noteClosing(sim.host, sim);
  sim.closed = true;
  sim.socket.close();
  sim.active();
  if (typeof callback === 'function' || sim.sendQueue.length > 0) {
    // A closing handle keeps the loop alive until its close callback has run (libuv), and its
    // queued sends complete there first: those still waiting with ECANCELED.
    (sim.host.world as World).scheduleClose(sim.host, () => {
      completeSends(sim);
      if (typeof callback === 'function') callback.call(this);
    }, undefined, sim.scope);
  }
  // Free the native handle (it never touched the OS).
  sim.host.world.natives.drop(sim.host, sim);
  realUdp.close.call(this);
}

function ref(this: NativeHandle): void {
  const sim = simOf(this)!;
  sim.refed = true;
  sim.active();
}

function unref(this: NativeHandle): void {
  const sim = simOf(this)!;
  sim.refed = false;
  sim.active();
}

function hasRef(this: NativeHandle): boolean {
  return simOf(this)!.refed;
}

function fill(out: Record<string, unknown>, address: string, family: Family, port: number): number {
  out.address = address;
  out.family = familyName(family);
  out.port = port;
  return 0;
}

function getsockname(this: NativeHandle, out: Record<string, unknown>): number {
  const socket = simOf(this)!.socket;
  // An unbound socket has no descriptor yet in libuv.
  if (!socket.bound || socket.closed) return UV.EBADF;
  return fill(out, socket.address, socket.family, socket.port);
}

function getpeername(this: NativeHandle, out: Record<string, unknown>): number {
  const socket = simOf(this)!.socket;
  if (socket.remote === undefined) return UV.ENOTCONN;
  return fill(out, socket.remote.address, socket.family, socket.remote.port);
}

function disconnect(this: NativeHandle): number {
  const sim = simOf(this)!;
  return sim.network.udp.disconnect(sim.socket);
}

function setBroadcast(this: NativeHandle, on: number): number {
  const socket = simOf(this)!.socket;
  if (!socket.bound) return UV.EBADF;
  socket.broadcast = Boolean(on);
  return 0;
}

/** libuv's checks: a unicast TTL is 1..255, a multicast TTL 0..255. */
function setTTL(this: NativeHandle, ttl: number): number {
  const socket = simOf(this)!.socket;
  if (!socket.bound) return UV.EBADF;
  const value = Math.trunc(Number(ttl));
  if (!(value >= 1 && value <= 255)) return UV.EINVAL;
  socket.ttl = value;
  return 0;
}

function setMulticastTTL(this: NativeHandle, ttl: number): number {
  const socket = simOf(this)!.socket;
  if (!socket.bound) return UV.EBADF;
  const value = Math.trunc(Number(ttl));
  if (!(value >= 0 && value <= 255)) return UV.EINVAL;
  socket.multicastTtl = value;
  return 0;
}

function setMulticastLoopback(this: NativeHandle, on: number): number {
  const socket = simOf(this)!.socket;
  if (!socket.bound) return UV.EBADF;
  socket.multicastLoopback = Boolean(on);
  return 0;
}

function setMulticastInterface(this: NativeHandle, iface: string): number {
  const sim = simOf(this)!;
  if (!sim.socket.bound) return UV.EBADF;
  return sim.network.udp.setMulticastInterface(sim.socket, String(iface));
}

/**
 * bufferSize(size, isReceive, ctx): 0 reads, otherwise sets. Linux doubles the value asked for
 * (room for its bookkeeping) and applies a floor; reads report the doubled value. dgram.js
 * passes only uint32 sizes; Node's binding answers EINVAL for one above 2^31-1 (not an int)
 * without asking libuv, so before the socket's state matters; then an unbound socket's
 * descriptor does not exist yet (EBADF).
 */
function bufferSize(this: NativeHandle, size: number, isReceive: boolean, ctx: Record<string, unknown>): number | undefined {
  const sim = simOf(this)!;
  const errno = !Number.isInteger(size) || size < 0 || size > INT32_MAX ? UV.EINVAL : !sim.socket.bound ? UV.EBADF : 0;
  if (errno !== 0) {
    ctx.errno = errno;
    ctx.code = errno === UV.EBADF ? 'EBADF' : 'EINVAL';
    ctx.message = errno === UV.EBADF ? 'bad file descriptor' : 'invalid argument';
    ctx.syscall = isReceive ? 'uv_recv_buffer_size' : 'uv_send_buffer_size';
    return undefined;
  }
  if (size === 0) return isReceive ? sim.recvBufferBytes : sim.sendBufferBytes;
  // sock_setsockopt: min(asked, rmem_max or wmem_max) × 2, at least the floor.
  const bytes = Math.min(size, BUFFER_MAX_BYTES) * 2;
  if (isReceive) sim.recvBufferBytes = Math.max(RECV_BUFFER_MIN_BYTES, bytes);
  else sim.sendBufferBytes = Math.max(SEND_BUFFER_MIN_BYTES, bytes);
  return size;
}

export const dgramShim: Shim = {
  name: 'dgram-binding',
  install(patches: PatchSet) {
    patches.replace(proto, 'bind', patchedBind);
    patches.replace(proto, 'bind6', patchedBind6);
    patches.replace(proto, 'connect', patchedConnect);
    patches.replace(proto, 'connect6', patchedConnect6);
    patches.replace(proto, 'send', patchedSend);
    patches.replace(proto, 'send6', patchedSend6);
    patches.replace(proto, 'open', patchedOpen);
    patches.replace(proto, 'getAsyncId', trackingGetAsyncId(UDP, { kSim, kRaw }, realUdp));
    patches.replace(proto, 'addMembership', patchedAddMembership);
    patches.replace(proto, 'dropMembership', patchedDropMembership);
    patches.replace(proto, 'addSourceSpecificMembership', patchedAddSourceSpecificMembership);
    patches.replace(proto, 'dropSourceSpecificMembership', patchedDropSourceSpecificMembership);
  },
};
