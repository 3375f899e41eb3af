/**
 * TCP interposition at the level of Node's own handle (internalBinding('tcp_wrap').TCP, the
 * object net.Socket and net.Server drive). Node's real net.js, and everything above it (http,
 * fetch's connector, third-party clients), runs unchanged; only the handle talks to the
 * simulated network instead of libuv. That keeps Node's event order, validation and error
 * objects ("connect ECONNREFUSED 10.0.0.2:80", with code/errno/syscall/address/port) exact.
 *
 * How: the entry points that would reach the OS — TCP.prototype.bind/bind6/connect/connect6/
 * listen/open — are patched. Called from a simulated host, they turn that handle into a
 * simulated one by giving it OWN methods (readStart, writeBuffer, shutdown, close, ...) that
 * shadow the native prototype's; other handles (the test runner's, stdio pipes) never change.
 * Accepted connections are fresh native TCP objects made simulated before net.js sees them.
 *
 * The write protocol differs between versions: Node 20/22 pass a WriteWrap `req` and read
 * streamBaseState[kLastWriteWasAsync]; Node 24 passes null and expects either a number (done)
 * or a WriteWrap object (pending) back. Both are handled (`req === null` tells them apart).
 *
 * libuv behaviours the handle reproduces because programs can observe them:
 * - liveness: a handle keeps its host alive while active (reading or listening) and ref'd;
 *   requests (a connect, writes waiting for the window, a shutdown, a close) count even when
 *   the handle is unref'd; an idle connected socket that does not read counts for nothing;
 * - bind() reports EADDRINUSE late, from listen(), connect() or getsockname();
 * - reads stop by themselves after EOF or a read error; at most 64 KiB (or the onread
 *   buffer's size) per read callback;
 * - writes still queued when the handle closes complete with ECANCELED before the close
 *   callback (libuv's closing phase).
 *
 * The native handle behind a socket is real (a TCPWrap, with a uv_tcp_t that never gets a
 * descriptor) and, like every open libuv handle, a GC root until it is closed natively. The
 * program closes it through close(); when its host goes down, or when the run ends with the
 * socket still open, the world closes it (SimTcp.release, via world.natives.hold), without
 * running any of the program's callbacks, and the handle is cut off from the simulation, so a
 * finished world is never kept alive by Node's handle list. Handles made by a host that never
 * turned simulated (net.connect(port, name) while the name resolves) are tracked as well: Node
 * asks every new handle for its async id (getAsyncId), which is where they are found.
 */
import { AsyncResource } from 'node:async_hooks';
import { UnsupportedError } from '../../runtime/errors.js';
import { type Family, familyOf, unmapped, unspecifiedAsLoopback } from '../../runtime/network/addresses.js';
import { UV } from '../../runtime/network/errno.js';
import type { Network } from '../../runtime/network/network.js';
import { type ListenerOwner, READ_CHUNK_BYTES, type SocketAddress, TcpEndpoint, TcpListener, type TcpOwner, WINDOW_BYTES } from '../../runtime/network/tcp.js';
import type { NativeResource } from '../../runtime/hosts/native-resources.js';
import type { World } from '../../runtime/world.js';
import { outsideDomain } from '../../runtime/driver/outside-domain.js';
import { captureContext } from '../async-hooks/async-context.js';
import { currentHost, forgetHost, type Host } from '../context.js';
import { adoptAttemptTimers, noteConnectAttempt } from './net-attempt-timer.js';
import { abandonName, bindName, chmodName, closeName, findName, type SocketFile, socketName, unlinkedName } from './unix-names.js';
import { completeListed, type ListedHandle, makeSimulated, type NativeHandle, noteClosing, own, released, trackingGetAsyncId, trackRequest } from './native-handles.js';
import type { PatchSet } from '../registry.js';
import { nodeBinding } from '../node-binding.js';
import { nodeError } from '../node-errors.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

const tcpWrap = nodeBinding('tcp_wrap');
const pipeWrap = nodeBinding('pipe_wrap');
const streamWrap = nodeBinding('stream_wrap');
const TCP = tcpWrap.TCP as new (type: number) => NativeHandle;
const TCP_SOCKET: number = tcpWrap.constants.SOCKET;
const UV_TCP_IPV6ONLY: number = tcpWrap.constants.UV_TCP_IPV6ONLY ?? 1;
/** listen({ reusePort: true }) on Node 22.12+ (Node 20 has no such flag: 0 never matches). */
const UV_TCP_REUSEPORT: number = tcpWrap.constants.UV_TCP_REUSEPORT ?? 0;
const streamBaseState: Int32Array = streamWrap.streamBaseState;
const kReadBytesOrError: number = streamWrap.kReadBytesOrError;
const kArrayBufferOffset: number = streamWrap.kArrayBufferOffset;
const kBytesWritten: number = streamWrap.kBytesWritten;
const kLastWriteWasAsync: number = streamWrap.kLastWriteWasAsync;
const kLastWriteErr: number | undefined = streamWrap.kLastWriteErr;
const WriteWrap = streamWrap.WriteWrap as new () => NativeHandle;
const Pipe = pipeWrap.Pipe as new (type: number) => NativeHandle;
const PIPE_SOCKET: number = pipeWrap.constants.SOCKET;
const UV_READABLE: number = pipeWrap.constants.UV_READABLE;
const UV_WRITABLE: number = pipeWrap.constants.UV_WRITABLE;
const realPipe = {
  bind: Pipe.prototype.bind as (name: string) => number,
  listen: Pipe.prototype.listen as (backlog: number) => number,
  connect: Pipe.prototype.connect as (...args: unknown[]) => number,
  open: Pipe.prototype.open as (fd: number) => number,
  fchmod: Pipe.prototype.fchmod as (mode: number) => number,
};

const realTcp = {
  bind: TCP.prototype.bind,
  bind6: TCP.prototype.bind6,
  connect: TCP.prototype.connect,
  connect6: TCP.prototype.connect6,
  listen: TCP.prototype.listen,
  open: TCP.prototype.open,
  close: Object.getPrototypeOf(Object.getPrototypeOf(TCP.prototype)).close as (cb?: () => void) => void,
  hasRef: Object.getPrototypeOf(Object.getPrototypeOf(TCP.prototype)).hasRef as () => boolean,
  useUserBuffer: TCP.prototype.useUserBuffer as (buffer: Uint8Array) => void,
  getAsyncId: TCP.prototype.getAsyncId as () => number,
  getProviderType: TCP.prototype.getProviderType as () => number,
  listedAs(this: NativeHandle): string | undefined {
    return realTcp.hasRef.call(this) ? tcpListedAs(this) : undefined;
  },
};

/**
 * The async provider of server handles (`new TCP(SERVER)`, made by net's createServerHandle),
 * whose number differs between Node versions: taken from a handle made, unref'd and closed at
 * load, so it never shows as an active resource.
 */
const serverProvider: number = (() => {
  const probe = new TCP(tcpWrap.constants.SERVER as number);
  probe.unref();
  const type = realTcp.getProviderType.call(probe);
  realTcp.close.call(probe);
  return type;
})();

/** What Node's getActiveResourcesInfo() calls a TCP handle (TCPWrap's MemoryInfoName). */
function tcpListedAs(handle: NativeHandle): string {
  return realTcp.getProviderType.call(handle) === serverProvider ? 'TCPServerWrap' : 'TCPSocketWrap';
}

const kSim = Symbol('dst.simulatedHandle');
/** On a write request waiting for the window: ends its listing as an active request. */
const kListed = Symbol('dst.listedRequest');
/** The onread buffer Node gave a handle before it turned simulated (initSocketHandle). */
const kUserBuffer = Symbol('dst.userBuffer');
/** A handle a host created that has not turned simulated yet (see native-handles.ts). */
const kRaw = Symbol('dst.rawHandle');

/** The network of the active world; created on first use. */
let networkOf: (host: Host) => Network = () => {
  throw new Error('dst-runtime: the network is not initialised');
};
export function setNetworkResolver(resolver: (host: Host) => Network): void {
  networkOf = resolver;
}

/** What keeps a run alive: one ref'd handle, described for a report. */
export interface KeepAlive {
  /** How many of the world's refs this handle holds. */
  refs: number;
  what: string;
  /** "listen() at app.js:3:8": where the program made it (register mode records it). */
  site: string | undefined;
}

/**
 * Where the program created a net/dgram object: recorded by register mode for the net.Server,
 * net.Socket or dgram.Socket when listen(), connect() or bind() is called (shims/register-mode.ts).
 * Kept beside the object, not on it: a property would show in console.log and Object.assign.
 */
export const creationSites = new WeakMap<object, string>();

let ownerSymbol: symbol | undefined;

/** The JS object (net.Socket, net.Server, dgram.Socket) of a native handle: Node's owner_symbol. */
export function ownerOf(handle: NativeHandle): object | undefined {
  ownerSymbol ??= Object.getOwnPropertySymbols(handle).find((s) => s.description === 'owner_symbol');
  const owner = ownerSymbol === undefined ? undefined : handle[ownerSymbol];
  return typeof owner === 'object' && owner !== null ? owner : undefined;
}

export function siteOf(owner: unknown, call: string): string | undefined {
  const site = typeof owner === 'object' && owner !== null ? creationSites.get(owner) : undefined;
  return site === undefined ? undefined : `${call} at ${site}`;
}

export function formatAddress(address: { address: string; port: number; family: Family }): string {
  return address.family === 6 ? `[${address.address}]:${address.port}` : `${address.address}:${address.port}`;
}

/**
 * Called with the JS owner (the net.Socket or net.Server) of every handle the world releases
 * (SimTcp.release): native objects of layers above a socket that Node frees when the socket
 * closes, and that would otherwise stay GC roots holding it (an HTTP parser), are freed there.
 */
const releaseListeners: Array<(owner: Record<PropertyKey, unknown>) => void> = [];

export function onSocketReleased(listener: (owner: Record<PropertyKey, unknown>) => void): void {
  releaseListeners.push(listener);
}

/**
 * Holds the reads of a simulated socket (TcpEndpoint.holdReads) until the returned function is
 * called; undefined when the socket is not a simulated, connected one.
 */
export function holdSocketReads(socket: { _handle?: unknown }): (() => void) | undefined {
  return simOfSocket(socket)?.endpoint?.holdReads();
}

/** Whether `socket` (a net.Socket) runs over a simulated TCP handle. */
export function isSimulatedSocket(socket: { _handle?: unknown }): boolean {
  return simOfSocket(socket) !== undefined;
}

function simOfSocket(socket: { _handle?: unknown }): SimTcp | undefined {
  const handle = socket._handle;
  return handle === null || typeof handle !== 'object' ? undefined : simOf(handle as NativeHandle);
}

/**
 * The native Pipe handles of simulated unix sockets. Unlike TCP handles (a program has no real
 * ones), Node's own list of handles also holds real pipes (stdio), so the simulated ones it
 * counts are told apart: each is listed natively until libuv has closed it, which the prototype's
 * hasRef() says (HandleWrap::HasRef: alive and ref'd natively; the simulated ref is its own).
 */
const simulatedPipes = new Set<NativeHandle>();

/** How many of the 'PipeWrap' entries in Node's own getActiveResourcesInfo() are simulated sockets. */
export function simulatedPipesListed(): number {
  let listed = 0;
  for (const handle of simulatedPipes) {
    if (realTcp.hasRef.call(handle) === true) listed++;
    else simulatedPipes.delete(handle);
  }
  return listed;
}

/** Simulated TCP handles that hold a ref of their host, per world. */
const keepers = new WeakMap<World, Set<SimTcp>>();

/** The simulated TCP handles that keep `world` alive, in the order they started to. */
export function tcpKeepAlive(world: World): KeepAlive[] {
  const out: KeepAlive[] = [];
  for (const sim of keepers.get(world) ?? []) {
    const keeper = sim.keepAlive();
    if (keeper !== undefined) out.push(keeper);
  }
  return out;
}

/** Simulation state of one TCP handle. */
class SimTcp implements TcpOwner, ListenerOwner, ListedHandle {
  readonly handle: NativeHandle;
  readonly host: Host;
  readonly network: Network;
  readonly scope: AsyncResource;
  bound: SocketAddress | undefined;
  /** A unix domain socket's handle (a Pipe): its name and file once bound (unix-names.ts). */
  readonly pipe: boolean;
  pipeName: string | undefined;
  /** The name libuv unlinks at close (unix-names.ts, unlinkedName). */
  pipeUnlinks: string | undefined;
  socketFile: SocketFile | undefined;
  ipv6Only = false;
  reusePort = false;
  /**
   * libuv's delayed_error: bind() reports EADDRINUSE late, from listen(), connect() or
   * getsockname() (uv__tcp_bind), which is why Node's errors say "listen EADDRINUSE".
   */
  delayedError = 0;
  endpoint: TcpEndpoint | undefined;
  listener: TcpListener | undefined;
  connectReq: NativeHandle | undefined;
  /** Ends the connect request's listing in getActiveResourcesInfo(). */
  connectListed: (() => void) | undefined;
  /** Write requests waiting for window space, in order. */
  readonly pendingWrites: NativeHandle[] = [];
  /** libuv's UV_HANDLE_READING: between readStart and readStop, EOF or a read error. */
  reading = false;
  /** The buffer of `net.Socket({ onread: { buffer } })` (useUserBuffer): reads fill it. */
  userBuffer: Uint8Array | undefined;
  /** setKeepAlive(enable, seconds) made before the connection existed: applied to its endpoint. */
  keepAliveSetting: { enable: boolean; delaySeconds: number } | undefined;
  refed: boolean;
  closed = false;
  /** A shutdown request not yet completed (libuv's shutdown_req): reset() is refused meanwhile. */
  shuttingDown = false;
  /**
   * A reset refused (EINVAL) while Node destroyed the socket: its handle stays open with nobody
   * to close it, and plainly keeps the process from exiting (at full CPU on Linux). Here it keeps
   * the run alive, so a run that has nothing else to do is reported idle, naming it.
   */
  orphaned = false;
  /** TcpOwner.encrypted: a TLS layer sits on the handle (markEncrypted). */
  get encrypted(): boolean {
    return this.handle[kEncrypted] === true;
  }
  private holdsHandleRef = false;
  private holdsReqRef = false;
  /** In keepers (holds a ref of its host). */
  private registered = false;

  constructor(handle: NativeHandle, host: Host, scope: AsyncResource, refed: boolean, pipe: boolean) {
    this.handle = handle;
    this.pipe = pipe;
    this.host = host;
    this.network = networkOf(host);
    this.scope = scope;
    this.refed = refed;
  }

  /**
   * What keeps the host alive, as in libuv: a handle counts while it is active (reading or
   * listening) unless it is unref'd; requests (a connect, writes waiting for the window) count
   * whatever the handle's ref. An idle connected socket that is not reading counts for nothing.
   */
  updateRefs(): void {
    const handleRef = this.refed && !this.closed && (this.reading || this.listener !== undefined || this.orphaned);
    const reqRef = !this.closed && (this.connectReq !== undefined || this.pendingWrites.length > 0);
    const world = this.host.world;
    if (handleRef !== this.holdsHandleRef) {
      this.holdsHandleRef = handleRef;
      if (handleRef) world.refHandle(this.host);
      else world.unrefHandle(this.host);
    }
    if (reqRef !== this.holdsReqRef) {
      this.holdsReqRef = reqRef;
      if (reqRef) world.refHandle(this.host);
      else world.unrefHandle(this.host);
    }
    const holding = handleRef || reqRef;
    if (holding !== this.registered) {
      this.registered = holding;
      let set = keepers.get(world);
      if (set === undefined) keepers.set(world, (set = new Set()));
      if (holding) set.add(this);
      else set.delete(this);
    }
  }

  listedAs(): string | undefined {
    if (!this.refed) return undefined;
    return this.pipe ? 'PipeWrap' : tcpListedAs(this.handle);
  }

  /** What this handle is doing that keeps its host alive, for the idle report. */
  keepAlive(): KeepAlive | undefined {
    if (this.host.state !== 'running') return undefined;
    const refs = (this.holdsHandleRef ? 1 : 0) + (this.holdsReqRef ? 1 : 0);
    if (refs === 0) return undefined;
    const owner = ownerOf(this.handle);
    if (this.listener !== undefined) {
      const on = this.pipe ? `unix socket server listening on ${printableName(this.listener.local.address)}` : `TCP server listening on ${formatAddress(this.listener.local)}`;
      return { refs, what: on, site: siteOf(owner, 'listen()') };
    }
    const endpoint = this.endpoint;
    const doing: string[] = [];
    if (this.connectReq !== undefined) doing.push('connecting');
    if (this.pendingWrites.length > 0) doing.push(`${this.pendingBytes()} bytes of writes waiting for the peer to read`);
    if (this.reading && this.holdsHandleRef) doing.push('reading, and no data can arrive');
    const path = endpoint === undefined ? '' : this.pipe ? ` ${printableName(endpoint.remote.address || endpoint.local.address)}` : ` ${formatAddress(endpoint.local)} -> ${formatAddress(endpoint.remote)}`;
    const server = (owner as { server?: unknown } | undefined)?.server;
    const serverSite = siteOf(server, 'listen()');
    const site = siteOf(owner, 'connect()') ?? (serverSite === undefined ? undefined : `accepted by the server of ${serverSite}`);
    return { refs, what: `${this.pipe ? 'unix socket' : 'TCP socket'}${path}${doing.length > 0 ? ` (${doing.join('; ')})` : ''}`, site };
  }

  /**
   * Its host went down, or the run is over, with the handle still open: frees the native
   * handle and cuts the handle off from the simulation. Nothing of the program runs — no
   * close callback, no write completion — since a crashed host's code never runs again (the
   * network, on hostDown, already did what the kernel does to the connection).
   */
  release(): void {
    const handle = this.handle;
    const bytesRead = (handle.bytesRead as number | undefined) ?? 0;
    const bytesWritten = (handle.bytesWritten as number | undefined) ?? 0;
    this.closed = true;
    this.reading = false;
    this.connectReq = undefined;
    this.pendingWrites.length = 0;
    this.updateRefs();
    if (this.endpoint !== undefined && this.endpoint.owner === this) this.endpoint.owner = undefined;
    this.endpoint = undefined;
    this.listener = undefined;
    this.userBuffer = undefined;
    if (this.socketFile !== undefined) abandonName(this.host, this.pipeName!, this.socketFile);
    this.socketFile = undefined;
    releaseHandle(handle, bytesRead, bytesWritten, this.pipe);
    realTcp.close.call(handle);
    const owner = ownerOf(handle);
    if (owner !== undefined) for (const listener of releaseListeners) listener(owner as Record<PropertyKey, unknown>);
  }

  // ---- TcpOwner: events from the endpoint -------------------------------------------------

  connected(status: number): void {
    const req = this.connectReq;
    const listed = this.connectListed;
    this.connectReq = undefined;
    this.connectListed = undefined;
    this.updateRefs();
    completeListed(listed, () => {
      if (req !== undefined && !this.closed) req.oncomplete(status, this.handle, req, true, true);
    });
  }

  data(chunk: Buffer): void {
    if (this.closed) return;
    // readSizeMax keeps chunks within the user's buffer, if there is one.
    this.userBuffer = deliverRead(this.handle, chunk, this.userBuffer);
  }

  end(): void {
    this.reading = false;
    this.updateRefs();
    if (this.closed) return;
    deliverReadStatus(this.handle, UV.EOF);
  }

  readError(code: number): void {
    this.reading = false;
    this.updateRefs();
    if (this.closed) return;
    deliverReadStatus(this.handle, code);
  }

  writeFailed(code: number): void {
    const req = this.pendingWrites.shift();
    if (req === undefined || this.closed) return;
    this.updateRefs();
    completeWrite(req, code, this.handle);
  }

  readSizeMax(): number {
    return this.userBuffer === undefined ? READ_CHUNK_BYTES : Math.max(1, this.userBuffer.byteLength);
  }

  /** The bytes of the writes waiting for window space. */
  pendingBytes(): number {
    let bytes = 0;
    for (const req of this.pendingWrites) bytes += (req.bytes as number) ?? 0;
    return bytes;
  }

  /**
   * The handle's writeQueueSize: what libuv still holds of the waiting writes, the bytes the
   * kernel has not taken. The kernel takes up to a window of bytes the peer has not read, so a
   * large write to a slow reader is partly taken at once, and its queue shrinks as the reader
   * reads (net.Socket's timeout stays quiet while it moves, as in Node).
   */
  writeQueueSize(): number {
    const pending = this.pendingWrites.length === 0 ? 0 : this.pendingBytes();
    const endpoint = this.endpoint;
    if (pending === 0 || endpoint === undefined) return pending;
    return Math.min(pending, Math.max(0, endpoint.unackedBytes - WINDOW_BYTES));
  }

  hasPendingWrites(): boolean {
    return this.pendingWrites.length > 0;
  }

  writable(): void {
    const endpoint = this.endpoint;
    while (this.pendingWrites.length > 0 && endpoint !== undefined && !endpoint.windowFull && !this.closed) {
      const req = this.pendingWrites.shift()!;
      this.updateRefs();
      completeWrite(req, 0, this.handle);
    }
  }

  // ---- ListenerOwner: a connection was accepted --------------------------------------------

  connection(endpoint: TcpEndpoint): void {
    if (this.closed) {
      endpoint.reset();
      return;
    }
    // Node makes the accepted socket's wrap before it calls onconnection, outside the server's
    // context: its callbacks see no store of the program's (the server's 'connection' does), and
    // not the server's node:domain either (its init hook runs before onconnection enters it).
    const { client, scope } = outsideDomain(() => ({
      client: this.pipe ? new Pipe(PIPE_SOCKET) : new TCP(TCP_SOCKET),
      scope: (this.host.world as World).freshScope(this.host, this.pipe ? 'PIPEWRAP' : 'TCPWRAP', this.scope.asyncId()),
    }));
    const sim = simulate(client, this.host, scope, this.pipe);
    sim.bound = endpoint.local;
    sim.endpoint = endpoint;
    endpoint.owner = sim;
    // Accepted sockets inherit SO_KEEPALIVE from the listening socket in Linux; Node sets it
    // per socket (server keepAlive option) after 'connection', through setKeepAlive.
    this.handle.onconnection(0, client);
  }
}

// ---- StreamBase's protocol with its JavaScript side (what a native stream's reads and writes
// tell net.js), shared by every simulated stream handle: sockets here, a child's stdio pipes
// (shims/process/child-processes.ts) ------------------------------------------------------------

/**
 * Hands `chunk` to the handle's onread as one read. With a user's buffer (`net.Socket({ onread:
 * { buffer } })`, useUserBuffer) the C++ side reads into it and passes only the length, and the
 * callback may return the buffer for the next read: returned here (the chunk must fit in it).
 */
export function deliverRead(handle: NativeHandle, chunk: Buffer, userBuffer: Uint8Array | undefined): Uint8Array | undefined {
  if (userBuffer !== undefined) {
    userBuffer.set(chunk, 0);
    streamBaseState[kReadBytesOrError] = chunk.length;
    const next = handle.onread(undefined);
    return next instanceof Uint8Array ? next : userBuffer;
  }
  streamBaseState[kReadBytesOrError] = chunk.length;
  streamBaseState[kArrayBufferOffset] = chunk.byteOffset;
  handle.onread(chunk.buffer);
  return undefined;
}

/** Ends the handle's reads: its onread with end of file (UV.EOF) or a read error. */
export function deliverReadStatus(handle: NativeHandle, code: number): void {
  streamBaseState[kReadBytesOrError] = code;
  handle.onread(undefined);
}

/** What a write of `bytes` bytes tells net.js before it returns: done now, or (`async`) pending. */
export function noteWrite(bytes: number, async: boolean): void {
  streamBaseState[kBytesWritten] = bytes;
  if (kLastWriteErr !== undefined) streamBaseState[kLastWriteErr] = 0;
  streamBaseState[kLastWriteWasAsync] = async ? 1 : 0;
}

/**
 * The request a pending write completes through (req.oncomplete): Node 20/22's own WriteWrap, or
 * on Node 24 (`req` null) a new one, which the write method returns for Node to keep.
 */
export function pendingWriteRequest(req: NativeHandle | null): NativeHandle {
  return req ?? new WriteWrap();
}

/** On a TCP handle: a TLS layer reads and writes it (its bytes are ciphertext). */
const kEncrypted = Symbol('dst.encrypted');

/** Marks `handle` as carrying ciphertext (shims/net/stream-bridge.ts): the trace shows no preview of its bytes. */
export function markEncrypted(handle: NativeHandle): void {
  Object.defineProperty(handle, kEncrypted, { value: true, configurable: true });
}

function simOf(handle: NativeHandle): SimTcp | undefined {
  return handle[kSim] as SimTcp | undefined;
}

/** own(), unless the program already put a property of that name on the handle itself. */
function ownUnlessSet(handle: NativeHandle, name: string, value: unknown): void {
  if (!Object.prototype.hasOwnProperty.call(handle, name)) own(handle, name, value);
}

/** Gives a native TCP handle the simulated methods, shadowing the prototype's. */
function simulate(handle: NativeHandle, host: Host, scope?: AsyncResource, pipe = false): SimTcp {
  // An unref() made before the handle turned simulated (net.connect(...).unref() on a fresh
  // socket) went to the native handle: carry it over.
  const refed = realTcp.hasRef.call(handle) as boolean;
  const sim = new SimTcp(handle, host, scope ?? new AsyncResource(pipe ? 'PIPEWRAP' : 'TCPWRAP', { requireManualDestroy: true }), refed, pipe);
  sim.userBuffer = handle[kUserBuffer] as Uint8Array | undefined;
  makeSimulated(handle, { kSim, kRaw }, host, sim);
  if (pipe) {
    // Those libuv closed since the last listing are forgotten here too, so the set stays small.
    if (simulatedPipes.size >= 64) simulatedPipesListed();
    simulatedPipes.add(handle);
  }
  own(handle, 'readStart', readStart);
  own(handle, 'readStop', readStop);
  own(handle, 'shutdown', shutdown);
  own(handle, 'writeBuffer', writeBuffer);
  own(handle, 'writev', writev);
  own(handle, 'writeUtf8String', (req: NativeHandle | null, s: string) => write(handle, req, Buffer.from(s, 'utf8')));
  own(handle, 'writeAsciiString', (req: NativeHandle | null, s: string) => write(handle, req, Buffer.from(s, 'ascii')));
  own(handle, 'writeLatin1String', (req: NativeHandle | null, s: string) => write(handle, req, Buffer.from(s, 'latin1')));
  own(handle, 'writeUcs2String', (req: NativeHandle | null, s: string) => write(handle, req, Buffer.from(s, 'ucs2')));
  own(handle, 'close', close);
  own(handle, 'ref', ref);
  own(handle, 'unref', unref);
  own(handle, 'hasRef', hasRef);
  ownUnlessSet(handle, 'setBlocking', () => 0);
  own(handle, 'useUserBuffer', (buffer: Uint8Array) => {
    sim.userBuffer = buffer;
  });
  // Node's is a getter on LibuvStreamWrap.prototype (no setter), reading libuv's queue.
  Object.defineProperty(handle, 'writeQueueSize', { get: () => sim.writeQueueSize(), configurable: true });
  own(handle, 'fd', -1);
  own(handle, '_externalStream', undefined);
  // node:http would hand a native stream to its C++ parser ("consume"); ours is not native.
  own(handle, '_consumed', true);
  Object.defineProperty(handle, 'bytesRead', { get: () => sim.endpoint?.bytesRead ?? 0, configurable: true });
  Object.defineProperty(handle, 'bytesWritten', { get: () => sim.endpoint?.bytesWritten ?? 0, configurable: true });
  // A Pipe has none of a TCP handle's own methods: net.js takes their absence for a pipe's
  // (no remoteAddress, address() is {}, no keepalive or Nagle).
  if (pipe) return sim;
  own(handle, 'reset', reset);
  own(handle, 'getsockname', getsockname);
  own(handle, 'getpeername', getpeername);
  // setNoDelay is the native one, from the prototype: libuv only records the option on a handle
  // without a descriptor (uv_tcp_nodelay returns 0), and the program's own setNoDelay, put on the
  // handle (Node's test-net-connect-nodelay) or on TCP.prototype (test-net-persistent-nodelay),
  // is called as in Node. Nagle's delay is not simulated. Options a program put on the handle
  // itself before it turned simulated stay the program's.
  // setKeepAlive is simulated (the probes of a connection whose peer vanished), and then the
  // prototype's is called too, as net.js's call would reach it in Node: native, it only records
  // the option on a handle without a descriptor; a program's own (on TCP.prototype) sees it.
  ownUnlessSet(handle, 'setKeepAlive', function setKeepAlive(this: NativeHandle, enable: unknown, delaySeconds: unknown) {
    const setting = { enable: Boolean(enable), delaySeconds: Number(delaySeconds) || 0 };
    if (sim.endpoint === undefined) sim.keepAliveSetting = setting;
    else sim.endpoint.setKeepAlive(setting.enable, setting.delaySeconds);
    return Reflect.apply((Object.getPrototypeOf(handle) as { setKeepAlive: (...args: unknown[]) => unknown }).setKeepAlive, this, [enable, delaySeconds]);
  });
  return sim;
}

/** A released handle's write methods (see SimTcp.release): no bytes, a closed descriptor. */
function releasedWrite(): number {
  noteWrite(0, false);
  return UV.EBADF;
}

/**
 * Turns a simulated handle into an inert one that references nothing of the simulation: its
 * methods were closures over its SimTcp (the host, the network, the world). A program object
 * still holding the socket then holds no world; the few calls that could still reach the
 * handle (code outside the hosts touching a dead host's socket) find a closed descriptor.
 */
function releaseHandle(handle: NativeHandle, bytesRead: number, bytesWritten: number, pipe: boolean): void {
  delete handle[kSim];
  delete handle[kUserBuffer];
  forgetHost(handle);
  for (const name of pipe ? ['readStart', 'shutdown'] : ['readStart', 'shutdown', 'getsockname', 'getpeername']) own(handle, name, released.badf);
  for (const name of ['writeBuffer', 'writev', 'writeUtf8String', 'writeAsciiString', 'writeLatin1String', 'writeUcs2String']) {
    own(handle, name, releasedWrite);
  }
  for (const name of ['close', 'ref', 'unref', 'useUserBuffer']) own(handle, name, released.nothing);
  for (const name of pipe ? ['readStop', 'setBlocking'] : ['readStop', 'reset', 'setNoDelay', 'setKeepAlive', 'setBlocking']) own(handle, name, released.zero);
  own(handle, 'hasRef', released.no);
  own(handle, 'writeQueueSize', 0);
  own(handle, 'bytesRead', bytesRead);
  own(handle, 'bytesWritten', bytesWritten);
}

/** The simulated state of `handle` for a call from `host`, converting it on first use. */
function simFor(handle: NativeHandle, host: Host, pipe = false): SimTcp {
  return simOf(handle) ?? simulate(handle, host, undefined, pipe);
}

// ---- the entry points (patched on TCP.prototype) -------------------------------------------

function bindAny(handle: NativeHandle, host: Host, address: string, port: number, family: Family, flags: number): number {
  const sim = simFor(handle, host);
  const network = sim.network;
  const addr = unmapped(address);
  if (!network.isLocal(host, addr)) return UV.EADDRNOTAVAIL;
  const local: SocketAddress = { address: family === 6 ? address : addr, port, family };
  const ipv6Only = (flags & UV_TCP_IPV6ONLY) !== 0;
  const reusePort = (flags & UV_TCP_REUSEPORT) !== 0;
  // libuv swallows EADDRINUSE from bind(2) and reports it from the next listen or connect.
  const conflict = network.tcp.bindConflict(host, local, ipv6Only, reusePort);
  if (conflict !== 0) {
    sim.delayedError = conflict;
    return 0;
  }
  sim.bound = local;
  sim.ipv6Only = ipv6Only;
  sim.reusePort = reusePort;
  return 0;
}

function patchedBind(this: NativeHandle, address: string, port: number, flags?: number): number {
  const host = currentHost();
  if (host === undefined && simOf(this) === undefined) return realTcp.bind.apply(this, arguments as unknown as unknown[]) as number;
  // Node 22.12+ passes flags (UV_TCP_REUSEPORT) to bind too; IPV6ONLY means nothing for IPv4.
  return bindAny(this, (simOf(this)?.host ?? host)!, address, port, 4, (flags ?? 0) & ~UV_TCP_IPV6ONLY);
}

function patchedBind6(this: NativeHandle, address: string, port: number, flags: number): number {
  const host = currentHost();
  if (host === undefined && simOf(this) === undefined) return realTcp.bind6.call(this, address, port, flags) as number;
  return bindAny(this, (simOf(this)?.host ?? host)!, address, port, 6, flags ?? 0);
}

function patchedListen(this: NativeHandle, backlog: number): number {
  const host = currentHost();
  const existing = simOf(this);
  if (host === undefined && existing === undefined) return realTcp.listen.call(this, backlog) as number;
  const sim = existing ?? simulate(this, host!);
  if (sim.delayedError !== 0) return sim.delayedError;
  const network = sim.network;
  const bound = sim.bound ?? { address: '::', port: 0, family: 6 as Family };
  if (bound.port === 0) bound.port = network.tcp.ephemeralPort(sim.host);
  sim.bound = bound;
  const listener = new TcpListener(sim.host, bound, sim, sim.ipv6Only, sim.reusePort);
  const err = network.tcp.listen(listener);
  if (err !== 0) return err;
  sim.listener = listener;
  sim.updateRefs();
  return 0;
}

function connectAny(handle: NativeHandle, req: NativeHandle, to: string, port: number, family: Family): number {
  const address = unspecifiedAsLoopback(to);
  const host = (simOf(handle)?.host ?? currentHost())!;
  const sim = simFor(handle, host);
  const network = sim.network;
  sim.connectReq = req;
  sim.connectListed = trackRequest(host, 'ConnectWrap');
  noteConnectAttempt(host, req);
  sim.updateRefs();
  if (sim.delayedError !== 0) {
    // uv__tcp_connect: a delayed bind error completes the connect request with that error.
    failConnectLater(sim, sim.delayedError);
    return 0;
  }
  const remoteAddress = unmapped(address);
  let local = sim.bound;
  if (local === undefined || local.port === 0) {
    const localAddress = local?.address && !['0.0.0.0', '::'].includes(local.address)
      ? local.address
      : network.sourceAddressTo(host, remoteAddress, family);
    local = { address: localAddress, port: network.tcp.ephemeralPort(host), family };
    sim.bound = local;
  }
  const endpoint = new TcpEndpoint(network.tcp, host, local, { address: family === 6 ? address : remoteAddress, port, family });
  endpoint.owner = sim;
  sim.endpoint = endpoint;
  if (sim.keepAliveSetting !== undefined) endpoint.setKeepAlive(sim.keepAliveSetting.enable, sim.keepAliveSetting.delaySeconds);
  network.tcp.connect(endpoint);
  return 0;
}

/** Completes a connect request with `err` in the next turn's pending phase (libuv's uv__io_feed). */
function failConnectLater(sim: SimTcp, err: number): void {
  const world = sim.host.world as World;
  world.pendingPhase(world.schedule(sim.host, 0, 'io', () => sim.connected(err), undefined, false, sim.scope), sim.host);
}

function patchedConnect(this: NativeHandle, req: NativeHandle, address: string, port: number): number {
  if (currentHost() === undefined && simOf(this) === undefined) return realTcp.connect.call(this, req, address, port) as number;
  return connectAny(this, req, address, port, familyOf(address) === 6 ? 6 : 4);
}

function patchedConnect6(this: NativeHandle, req: NativeHandle, address: string, port: number): number {
  if (currentHost() === undefined && simOf(this) === undefined) return realTcp.connect6.call(this, req, address, port) as number;
  return connectAny(this, req, address, port, 6);
}

function patchedUseUserBuffer(this: NativeHandle, buffer: Uint8Array): void {
  // net.Socket({ onread }) hands its buffer over when the handle is created, before connect
  // makes it simulated: remember it for the simulated reads (TCP and Pipe share the native one).
  if (simOf(this) === undefined) Object.defineProperty(this, kUserBuffer, { value: buffer, configurable: true, writable: true });
  realTcp.useUserBuffer.call(this, buffer);
}

function patchedOpen(this: NativeHandle, fd: number): number {
  if (currentHost() === undefined) return realTcp.open.call(this, fd) as number;
  throw new UnsupportedError(
    `net.Socket({ fd: ${fd} }) / server.listen({ fd }) (a real file descriptor)`,
    'simulated hosts have no real descriptors; connect or listen on a host address and port instead',
  );
}

// ---- the simulated methods (own properties of simulated handles) ----------------------------

function readStart(this: NativeHandle): number {
  const sim = simOf(this)!;
  if (sim.closed) return UV.EINVAL;
  const endpoint = sim.endpoint;
  // A connection whose read side is over (EOF or an error was delivered) has nothing to read:
  // libuv would get EOF again at once; Node never asks.
  if (endpoint === undefined) return UV.ENOTCONN;
  sim.reading = true;
  sim.updateRefs();
  endpoint.startReading();
  return 0;
}

function readStop(this: NativeHandle): number {
  const sim = simOf(this)!;
  sim.reading = false;
  sim.updateRefs();
  sim.endpoint?.stopReading();
  return 0;
}

function write(handle: NativeHandle, req: NativeHandle | null, data: Buffer): number | NativeHandle {
  const sim = simOf(handle)!;
  const endpoint = sim.endpoint;
  const err = endpoint === undefined ? UV.EPIPE : endpoint.write(Buffer.from(data));
  // The window is full: this write completes when the reader catches up (backpressure).
  const waits = err === 0 && endpoint!.windowFull;
  noteWrite(data.length, waits);
  if (!waits) return err;
  const pending = pendingWriteRequest(req);
  pending.bytes = data.length;
  pending[kListed] = trackRequest(sim.host, 'WriteWrap');
  sim.pendingWrites.push(pending);
  sim.updateRefs();
  return req === null ? pending : 0;
}

/** Runs a waiting write's completion; it is listed as a request until that returns. */
function completeWrite(req: NativeHandle, status: number, handle: NativeHandle): void {
  const listed = req[kListed] as (() => void) | undefined;
  delete req[kListed];
  completeListed(listed, () => req.oncomplete(status, handle, undefined));
}

function writeBuffer(this: NativeHandle, req: NativeHandle | null, data: Uint8Array): number | NativeHandle {
  // StreamBase::WriteBuffer's own check (a string written with encoding 'buffer' gets here).
  if (!(data instanceof Uint8Array)) throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', 'Second argument must be a buffer', writeBuffer);
  return write(this, req, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
}

/**
 * The encoding StreamBase::Writev encodes a string chunk with (ParseEncoding, then
 * StringBytes::Write): 'buffer' is written as latin1, and a name it does not know as utf8.
 */
function writevEncoding(encoding: unknown): BufferEncoding {
  const name = typeof encoding === 'string' ? encoding.toLowerCase() : '';
  if (name === 'buffer') return 'latin1';
  return Buffer.isEncoding(name) ? (name as BufferEncoding) : 'utf8';
}

/** The bytes of a writev() call: its chunks (buffers, or string and encoding pairs), joined. */
export function joinWritev(chunks: unknown[], allBuffers: boolean): Buffer {
  const parts: Buffer[] = [];
  if (allBuffers) {
    for (const chunk of chunks) parts.push(Buffer.from(chunk as Uint8Array));
  } else {
    for (let i = 0; i < chunks.length; i += 2) {
      const chunk = chunks[i];
      parts.push(typeof chunk === 'string' ? Buffer.from(chunk, writevEncoding(chunks[i + 1])) : Buffer.from(chunk as Uint8Array));
    }
  }
  return Buffer.concat(parts);
}

function writev(this: NativeHandle, req: NativeHandle | null, chunks: unknown[], allBuffers: boolean): number | NativeHandle {
  return write(this, req, joinWritev(chunks, allBuffers));
}

function shutdown(this: NativeHandle, req: NativeHandle): number {
  const sim = simOf(this)!;
  sim.endpoint?.finish();
  sim.shuttingDown = true;
  const listed = trackRequest(sim.host, 'SimpleShutdownWrap');
  // Completion is asynchronous, as with libuv; the request keeps the loop alive meanwhile.
  const world = sim.host.world as World;
  world.pendingPhase(world.schedule(sim.host, 0, 'io', () => {
    sim.shuttingDown = false;
    completeListed(listed, () => req.oncomplete(0));
  }, undefined, true, sim.scope), sim.host);
  return 0;
}

function closeSim(handle: NativeHandle, callback: (() => void) | undefined, graceful: boolean): void {
  const sim = simOf(handle)!;
  if (sim.closed) return;
  noteClosing(sim.host, sim);
  sim.closed = true;
  sim.reading = false;
  if (sim.endpoint !== undefined) {
    if (graceful) sim.endpoint.close(true);
    else sim.endpoint.reset();
  }
  if (sim.listener !== undefined) sim.network.tcp.unlisten(sim.listener);
  if (sim.socketFile !== undefined) closeName(sim.host, sim.pipeUnlinks!, sim.socketFile);
  sim.socketFile = undefined;
  sim.connectListed?.();
  sim.connectListed = undefined;
  sim.updateRefs();
  const cancelled = sim.pendingWrites.splice(0);
  if (typeof callback === 'function' || cancelled.length > 0) {
    // libuv finishes a close in its closing phase: writes still queued complete with
    // ECANCELED, then the close callback runs. A closing handle keeps the loop alive.
    (sim.host.world as World).scheduleClose(sim.host, () => {
      for (const req of cancelled) completeWrite(req, UV.ECANCELED, handle);
      if (typeof callback === 'function') callback.call(handle);
    }, undefined, sim.scope);
  }
  // Free the native handle (it never touched the OS). No callback: the close callback is the
  // event above, in virtual time.
  sim.host.world.natives.drop(sim.host, sim);
  realTcp.close.call(handle);
}

function close(this: NativeHandle, callback?: () => void): void {
  closeSim(this, callback, true);
}

/**
 * close() of a TCP handle a host made that never became simulated (net.connect('localhost')
 * destroyed during its DNS lookup: Node made the handle before the lookup). Its close callback
 * would come from libuv's closing phase on the real loop, at a real moment: a request aborted in
 * its 'socket' event got its 'error' and 'close' thousands of virtual seconds later, when the
 * driver next let the loop turn. The native handle is freed now and the callback runs in an
 * event of the host at this instant, as closeSim's does.
 */
function patchedClose(this: NativeHandle, callback?: () => void): void {
  const host = currentHost();
  if (host === undefined || simOf(this) !== undefined) {
    realTcp.close.call(this, callback);
    return;
  }
  realTcp.close.call(this);
  if (typeof callback === 'function') {
    (host.world as World).scheduleClose(host, () => callback.call(this), undefined, captureContext('TCPWRAP'));
  }
}

/**
 * socket.resetAndDestroy(): uv_tcp_close_reset, which refuses (EINVAL, the handle stays open)
 * while a shutdown request is pending (an end() whose FIN went out in this turn): Node then emits
 * 'error' (reset EINVAL) and the connection ends with that FIN.
 */
function reset(this: NativeHandle, callback?: () => void): number {
  const sim = simOf(this)!;
  if (sim.shuttingDown) {
    sim.orphaned = true;
    sim.updateRefs();
    return UV.EINVAL;
  }
  closeSim(this, callback, false);
  return 0;
}

function ref(this: NativeHandle): void {
  const sim = simOf(this)!;
  sim.refed = true;
  sim.updateRefs();
}

function unref(this: NativeHandle): void {
  const sim = simOf(this)!;
  sim.refed = false;
  sim.updateRefs();
}

function hasRef(this: NativeHandle): boolean {
  return simOf(this)!.refed;
}

function fill(out: Record<string, unknown>, address: SocketAddress): number {
  out.address = address.address;
  out.family = address.family === 6 ? 'IPv6' : 'IPv4';
  out.port = address.port;
  return 0;
}

function getsockname(this: NativeHandle, out: Record<string, unknown>): number {
  const sim = simOf(this)!;
  // uv_tcp_getsockname reports the delayed bind error (Node's checkBindError relies on it).
  if (sim.delayedError !== 0) return sim.delayedError;
  const local = sim.endpoint?.local ?? sim.bound;
  if (local === undefined) return UV.EBADF;
  return fill(out, local);
}

function getpeername(this: NativeHandle, out: Record<string, unknown>): number {
  const sim = simOf(this)!;
  if (sim.endpoint === undefined || sim.endpoint.state === 'syn-sent') return UV.ENOTCONN;
  return fill(out, sim.endpoint.remote);
}

// ---- for shims/net/stream-bridge.ts (TLS and HTTP/2 over simulated sockets) -----------------

/**
 * Schedules `fn` as an 'io' event of the host owning simulated TCP `handle`, at the current
 * instant, in that handle's async scope: for completions a layer above delivers later, as
 * libuv's would come in a later loop phase. Returns false when the handle is not simulated or
 * its host is down.
 */
export function scheduleOnHandle(handle: NativeHandle, fn: () => void): boolean {
  const sim = simOf(handle);
  if (sim === undefined || sim.host.state !== 'running') return false;
  sim.host.world.schedule(sim.host, 0, 'io', fn, undefined, true, sim.scope);
  return true;
}

/**
 * Runs `fn` as what libuv does next in this poll for `handle`'s socket: straight after the running
 * event, before anything else of the loop (World.continuePoll). False when `handle` is not a
 * simulated handle of a running host.
 */
export function continuePollOnHandle(handle: NativeHandle, fn: () => void): boolean {
  const sim = simOf(handle);
  if (sim === undefined || sim.host.state !== 'running') return false;
  sim.host.world.continuePoll(sim.host, fn, sim.scope);
  return true;
}

/**
 * Whether native code wrapping `handle` (TLSWrap, Http2Session) would sit on the simulated
 * network, and so needs the bridge: a simulated TCP or unix socket handle, or, from inside a
 * host, any TCP or Pipe handle (one not connected yet turns simulated at its first bind or connect, which the bridge
 * follows since it calls the handle's methods).
 */
export function tcpOnSimulatedNetwork(handle: unknown): boolean {
  // A Pipe too: tls.connect({ path }) and https with socketPath wrap a unix socket's handle.
  if (typeof handle !== 'object' || handle === null || !(handle instanceof TCP || handle instanceof Pipe)) return false;
  return simOf(handle as NativeHandle) !== undefined || currentHost() !== undefined;
}

// ---- unix domain sockets (patched on Pipe.prototype) -----------------------------------------

/** A name as a report shows it (an abstract name's NUL as '@', as ss(8) shows it). */
function printableName(name: string): string {
  return name.startsWith('\0') ? `@${name.slice(1)}` : name;
}

/** Whether a Pipe call is the program's on the simulated network (else it goes to libuv). */
function pipeSimulated(handle: NativeHandle): Host | undefined {
  return simOf(handle)?.host ?? currentHost();
}

/**
 * bind(2) of a unix domain socket: its file is made now (unix-names.ts), and libuv reports a
 * failure at once (net.js says "listen EADDRINUSE", as it calls bind from listen).
 */
function patchedPipeBind(this: NativeHandle, name: string): number {
  const host = pipeSimulated(this);
  if (host === undefined) return realPipe.bind.call(this, name);
  const sim = simFor(this, host, true);
  if (sim.socketFile !== undefined || sim.endpoint !== undefined) return UV.EINVAL;
  const named = socketName(String(name));
  if (typeof named === 'number') return named;
  const file = bindName(sim.host, named);
  if (typeof file === 'number') return file;
  sim.pipeName = named;
  sim.pipeUnlinks = unlinkedName(String(name), named, file);
  sim.socketFile = file;
  return 0;
}

function patchedPipeListen(this: NativeHandle, backlog: number): number {
  const host = pipeSimulated(this);
  if (host === undefined) return realPipe.listen.call(this, backlog);
  const sim = simFor(this, host, true);
  const file = sim.socketFile;
  // uv_pipe_listen of a socket never bound: EINVAL.
  if (file === undefined || sim.closed) return UV.EINVAL;
  if (sim.listener !== undefined) return 0;
  const listener = new TcpListener(sim.host, { address: sim.pipeName!, port: 0, family: 4 }, sim, false);
  sim.network.tcp.listenUnix(listener, Number(backlog));
  file.listener = listener;
  sim.listener = listener;
  sim.updateRefs();
  return 0;
}

/**
 * connect(2) of a unix domain socket: the kernel finds the socket through its file at once. A
 * failure (no file: ENOENT; no socket listening through it: ECONNREFUSED) completes the request
 * in the next turn's pending phase; a name too long for Node 24 fails the call itself.
 */
function patchedPipeConnect(this: NativeHandle, req: NativeHandle, name: string, ...rest: unknown[]): number {
  const host = pipeSimulated(this);
  if (host === undefined) return realPipe.connect.call(this, req, name, ...rest);
  const named = socketName(String(name));
  if (typeof named === 'number') return named;
  const sim = simFor(this, host, true);
  sim.connectReq = req;
  sim.connectListed = trackRequest(sim.host, 'ConnectWrap');
  sim.updateRefs();
  const file = findName(sim.host, named);
  const listener = typeof file === 'number' ? undefined : file.listener;
  if (listener === undefined || listener.closed) {
    failConnectLater(sim, typeof file === 'number' ? file : UV.ECONNREFUSED);
    return 0;
  }
  // A full accept queue refuses a non-blocking connect at once (unix_stream_connect): Linux
  // lets backlog + 1 connections wait to be accepted.
  if (listener.waiting.length > listener.backlog) {
    failConnectLater(sim, UV.EAGAIN);
    return 0;
  }
  const network = sim.network;
  const endpoint = new TcpEndpoint(network.tcp, sim.host, { address: '', port: 0, family: 4 }, { address: named, port: 0, family: 4 });
  endpoint.owner = sim;
  sim.endpoint = endpoint;
  network.tcp.connectUnix(endpoint, listener);
  return 0;
}

/** listen({ path, readableAll, writableAll }): uv_pipe_chmod of the bound socket's file. */
function patchedPipeFchmod(this: NativeHandle, mode: number): number {
  const host = pipeSimulated(this);
  if (host === undefined) return realPipe.fchmod.call(this, mode);
  const sim = simFor(this, host, true);
  if (mode !== UV_READABLE && mode !== UV_WRITABLE && mode !== (UV_READABLE | UV_WRITABLE)) return UV.EINVAL;
  if (sim.socketFile === undefined) return UV.EBADF;
  const bits = ((mode & UV_READABLE) !== 0 ? 0o444 : 0) | ((mode & UV_WRITABLE) !== 0 ? 0o222 : 0);
  return chmodName(sim.host, sim.pipeName!, sim.socketFile, bits);
}

function patchedPipeOpen(this: NativeHandle, fd: number): number {
  if (currentHost() === undefined) return realPipe.open.call(this, fd);
  throw new UnsupportedError(
    `new net.Socket({ fd: ${fd} }) on a pipe (a real file descriptor)`,
    'simulated hosts have no real descriptors; listen and connect on a unix socket path, or a host address and port, instead',
  );
}

export const netShim: Shim = {
  name: 'net',
  install(patches: PatchSet) {
    const proto = TCP.prototype;
    patches.replace(proto, 'bind', patchedBind);
    patches.replace(proto, 'bind6', patchedBind6);
    patches.replace(proto, 'listen', patchedListen);
    patches.replace(proto, 'connect', patchedConnect);
    patches.replace(proto, 'connect6', patchedConnect6);
    patches.replace(proto, 'open', patchedOpen);
    patches.replace(proto, 'useUserBuffer', patchedUseUserBuffer);
    patches.replace(proto, 'close', patchedClose);
    patches.replace(proto, 'getAsyncId', trackingGetAsyncId(TCP, { kSim, kRaw }, realTcp));
    adoptAttemptTimers(patches);
    const pipe = Pipe.prototype;
    patches.replace(pipe, 'bind', patchedPipeBind);
    patches.replace(pipe, 'listen', patchedPipeListen);
    patches.replace(pipe, 'connect', patchedPipeConnect);
    patches.replace(pipe, 'fchmod', patchedPipeFchmod);
    patches.replace(pipe, 'open', patchedPipeOpen);
    patches.replace(pipe, 'useUserBuffer', patchedUseUserBuffer);
  },
};
