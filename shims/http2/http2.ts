/**
 * node:http2 between simulated hosts: Node's own HTTP/2 (nghttp2) over the simulated network.
 *
 * - h2 over TLS needs nothing here: Http2Session consumes the TLSWrap natively, and the TLSWrap
 *   sits on a bridge to the simulated socket (shims/tls/tls.ts).
 * - h2c: `Http2Session#consume(handle)` hands the socket's native handle to nghttp2, which reads
 *   and writes it from C++. A simulated TCP handle goes behind the same JSStream bridge
 *   (shims/net/stream-bridge.ts) instead.
 * - Http2Session sends every frame it queued from a native immediate (MaybeScheduleWrite): the
 *   world watches for those once a host made a session (shims/timers/native-immediates.ts).
 * - `session.setTimeout` and `stream.setTimeout` are net's setStreamTimeout on Node's private
 *   timer list: replaced by the virtual one (net-timeouts.ts), which uses the same kTimeout slot.
 * - `session.ping(cb)` measures its duration natively with uv_hrtime (real time): inside a host
 *   the callback gets the virtual duration instead.
 */
import { createRequire } from 'node:module';
import { originals } from '../../runtime/originals.js';
import { currentHost } from '../context.js';
import { tcpOnSimulatedNetwork } from '../net/net-binding.js';
import type { NativeHandle } from '../net/native-handles.js';
import { setStreamTimeout } from '../net/net-timeouts.js';
import { bridgeTcp } from '../net/stream-bridge.js';
import { mirrorFunction, type PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';
import { expectingNativeImmediates, watchNativeImmediates } from '../timers/native-immediates.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

type Methods = Record<string, (...args: any[]) => any>;

interface Prototypes {
  /** The native Http2Session's (consume). */
  native: Methods;
  /** node:http2's JavaScript Http2Session's and Http2Stream's (setTimeout, ping). */
  session: Methods;
  stream: Methods;
}

let prototypes: Prototypes | undefined;

/**
 * The prototypes, none of them exported: from a client session over a Duplex of our own, with
 * one request, destroyed at once. Node queues native immediates while it does (the session's
 * first SETTINGS): the tripwire is told they are expected.
 */
function http2Prototypes(http2: typeof import('node:http2'), load: NodeJS.Require): Prototypes {
  if (prototypes !== undefined) return prototypes;
  const { Duplex } = load('node:stream') as typeof import('node:stream');
  prototypes = expectingNativeImmediates(() => {
    const duplex = new Duplex({
      read() {},
      write(_chunk, _encoding, callback) {
        callback();
      },
    });
    const session = http2.connect('http://prototype.invalid', { createConnection: () => duplex });
    session.on('error', () => {});
    const stream = session.request({});
    stream.on('error', () => {});
    const kHandle = Object.getOwnPropertySymbols(session).find((s) => s.description === 'kHandle');
    const handle = kHandle === undefined ? undefined : (session as unknown as Record<symbol, object>)[kHandle];
    if (handle === undefined) throw new Error("Failed to find the native Http2Session: node:http2's kHandle is not on the session");
    const found: Prototypes = {
      native: Object.getPrototypeOf(handle) as Methods,
      session: Object.getPrototypeOf(Object.getPrototypeOf(session)) as Methods,
      stream: Object.getPrototypeOf(Object.getPrototypeOf(stream)) as Methods,
    };
    session.destroy();
    duplex.destroy();
    return found;
  });
  return prototypes;
}

/** The PatchSet the prototypes were patched in (they are patched once per install, lazily). */
let patchedIn: PatchSet | undefined;

/**
 * Patches the session and stream prototypes, finding them first. The probe that finds them makes
 * a session (native immediates, and immediates of its own close, pending for two loop turns), so
 * it runs only when the program first makes an HTTP/2 session or server, never at install: a
 * program that does not use HTTP/2 sees nothing of it.
 */
function patchPrototypes(patches: PatchSet, http2: typeof import('node:http2'), load: NodeJS.Require): void {
  if (patchedIn === patches) return;
  patchedIn = patches;
  // The probe's session closes over two loop turns, and expectingNativeImmediates expects only
  // the first's immediates: the world watches for the rest. (A first server made from a callback,
  // not at the top level, left two unclaimed, and strict mode took them for escapes: every
  // @grpc/grpc-js server, which binds from an immediate, stopped with exit 74.)
  const host = currentHost();
  if (host !== undefined && prototypes === undefined) watchNativeImmediates(host.world);
  const { native, session, stream } = http2Prototypes(http2, load);

  const realConsume = native.consume!;
  patches.replace(native, 'consume', function consume(this: unknown, handle: unknown) {
    const host = currentHost();
    if (host !== undefined) watchNativeImmediates(host.world);
    if (!tcpOnSimulatedNetwork(handle)) return Reflect.apply(realConsume, this, [handle]);
    return Reflect.apply(realConsume, this, [bridgeTcp(handle as NativeHandle, 'http2').js]);
  });

  // Node assigns its setStreamTimeout to both, as to net.Socket's.
  patches.replace(session, 'setTimeout', setStreamTimeout);
  patches.replace(stream, 'setTimeout', setStreamTimeout);

  const realPing = session.ping!;
  const ping = function ping(this: unknown, ...args: any[]) {
    const host = currentHost();
    let at = args.findIndex((a) => typeof a === 'function');
    if (host === undefined || at === -1) return Reflect.apply(realPing, this, args);
    const callback = args[at] as (...result: unknown[]) => unknown;
    const startNs = host.world.nowNs;
    // Without a payload Node sends its uv_hrtime start (real time) as the PING's 8 bytes: the
    // virtual instant instead, so the bytes on the simulated wire are the seed's.
    if (at === 0) {
      const payload = Buffer.alloc(8);
      payload.writeBigUInt64LE(BigInt(Math.round(startNs)));
      args.unshift(payload);
      at++;
    }
    // Node calls back with (err, duration, payload); the argument count is kept.
    args[at] = function (this: unknown, ...result: unknown[]) {
      if (result.length >= 2 && !result[0]) result[1] = (host.world.nowNs - startNs) / 1e6;
      return Reflect.apply(callback, this, result);
    };
    return Reflect.apply(realPing, this, args);
  };
  patches.replace(session, 'ping', mirrorFunction(ping, realPing));
}

/**
 * ServerHttp2Stream's respond, which adds a `date` header from internal/http's utcDate(): a cache
 * of the REAL date (primordials' Date) kept for up to a second, so its bytes on the wire would
 * differ from run to run. Inside a host the header is given beforehand, from the host's clock, as
 * Node would write it. ServerHttp2Stream is not exported: its prototype is patched from the first
 * stream a server made by node:http2 emits.
 */
function patchServerStream(stream: unknown): void {
  const proto = typeof stream === 'object' && stream !== null ? (Object.getPrototypeOf(stream) as Methods) : undefined;
  if (proto === undefined || typeof proto.respond !== 'function' || patchedIn === undefined || done(proto, 'respond')) return;
  const realRespond = proto.respond;
  const respond = function respond(this: unknown, ...args: any[]) {
    const host = currentHost();
    const headers = args[0] as Record<PropertyKey, unknown> | undefined | null;
    const options = args[1] as { sendDate?: boolean } | undefined;
    const plain = headers === undefined || headers === null || (typeof headers === 'object' && !Array.isArray(headers));
    if (host === undefined || !plain || options?.sendDate === false) return Reflect.apply(realRespond, this, args);
    if (headers != null && Object.keys(headers).some((k) => k.toLowerCase() === 'date')) return Reflect.apply(realRespond, this, args);
    args[0] = { ...(headers ?? {}), date: new originals.Date(host.dateNowMs()).toUTCString() };
    return Reflect.apply(realRespond, this, args);
  };
  patchedIn.replace(proto, 'respond', mirrorFunction(respond, realRespond));
}

/**
 * Whether `proto`'s `name` was patched in the current PatchSet already (marks it if not): a
 * patch lasts one install, so a later run in the same process patches again.
 */
const patchedProtos = new WeakMap<PatchSet, WeakMap<object, Set<string>>>();
function done(proto: object, name: string): boolean {
  let protos = patchedProtos.get(patchedIn!);
  if (protos === undefined) patchedProtos.set(patchedIn!, (protos = new WeakMap()));
  let names = protos.get(proto);
  if (names === undefined) protos.set(proto, (names = new Set()));
  if (names.has(name)) return true;
  names.add(name);
  return false;
}

/** Servers' prototypes: their emit looks at 'stream' events (patchServerStream). */
function watchServerStreams(server: unknown): void {
  const proto = typeof server === 'object' && server !== null ? (Object.getPrototypeOf(server) as Methods) : undefined;
  if (proto === undefined || patchedIn === undefined || done(proto, 'emit')) return;
  const realEmit = proto.emit!;
  const emit = function emit(this: unknown, ...args: any[]) {
    if (args[0] === 'stream') patchServerStream(args[1]);
    return Reflect.apply(realEmit, this, args);
  };
  patchedIn.replace(proto, 'emit', mirrorFunction(emit, realEmit));
}

/** The functions of node:http2 that make sessions or servers: each patches the prototypes first. */
const ENTRY_POINTS = ['connect', 'createServer', 'createSecureServer', 'performServerHandshake'] as const;

export const http2Shim: Shim = {
  name: 'http2',
  // node:http2 loads node:tls first (and so the tls shim).
  builtins: ['http2'],
  install(patches: PatchSet) {
    const load = createRequire(__filename);
    const http2 = load('node:http2') as typeof import('node:http2');
    const module = http2 as unknown as Methods;
    for (const name of ENTRY_POINTS) {
      const original = module[name];
      if (typeof original !== 'function') continue; // performServerHandshake: Node 20.12 and later
      const entry = function (this: unknown, ...args: unknown[]) {
        patchPrototypes(patches, http2, load);
        const made = Reflect.apply(original, this, args) as unknown;
        if (name === 'createServer' || name === 'createSecureServer') watchServerStreams(made);
        return made;
      };
      patches.replace(module, name, mirrorFunction(entry, original));
    }
  },
};
