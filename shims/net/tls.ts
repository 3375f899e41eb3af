/**
 * TLS is not simulated yet. Node's TLSSocket wraps the socket's native handle in a native
 * TLSWrap (internalBinding('tls_wrap').wrap), which reads and writes that handle from C++: over a
 * simulated TCP handle (net-binding.ts), whose methods are JavaScript shadowing the native ones,
 * it can do neither, and the program got a misleading `read ENOTCONN` on its first request. So
 * TLS over the simulated network is refused, when the program asks for it, with an
 * UnsupportedError that names the API and what to do instead:
 *
 * - `tls_wrap.wrap` is the one place every TLS socket passes through (tls.connect, https's
 *   agent, http2.connect with an https: URL, fetch's undici, `new tls.TLSSocket(socket)`, a
 *   tls.Server's accepted connections), on Node 20, 22 and 24 alike: _tls_wrap.js (Node 20) and
 *   internal/tls/wrap.js (22, 24) call it through the binding object at call time. It refuses a
 *   TCP handle of the simulated network: a simulated one, or any TCP handle wrapped from inside a
 *   host (tls.connect makes a fresh one, which would turn simulated at its connect). Nothing is
 *   made before it throws, except that fresh handle, which is closed. TLS over a stream of the
 *   program's own (a Duplex, which Node wraps in a JSStreamSocket) is left alone: TLSWrap then
 *   reads and writes through JavaScript, which works over simulated sockets.
 * - The public entry points (tls.connect, https.request/get, http2.connect) only name
 *   themselves: the refusal comes from the wrap inside their synchronous call, so the message
 *   names what the program called.
 * - A TLS server (tls.Server, and so https.Server and http2's secure server) refuses listen()
 *   inside a host: every connection it could accept would be refused, so the call that cannot
 *   work is the listen itself (synchronously, before any address lookup).
 *
 * `tls.createSecureContext` touches no socket and stays available. Outside the hosts (the test
 * runner in library mode) everything is the real TLS.
 *
 * Plain-text HTTP/2 (h2c) is refused the same way: Node's Http2Session consumes the socket's
 * native handle (it reads and writes it from C++), which a simulated handle cannot serve, so
 * no frame was ever exchanged and strict mode stopped the run over Node's own immediates.
 * `http2.connect` to an http: URL (without a `createConnection` of the program's) and listen()
 * of an `http2.createServer()` server throw inside a host.
 */
import { createRequire } from 'node:module';
import { UnsupportedError } from '../../runtime/errors.js';
import { currentHost } from '../context.js';
import { closeUnusedTcp, tcpOnSimulatedNetwork } from './net-binding.js';
import type { NativeHandle } from './native-handles.js';
import { nodeBinding } from '../node-binding.js';
import { mirrorSignature, type PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

const tlsWrap = nodeBinding('tls_wrap') as { wrap: (...args: unknown[]) => unknown };

const OVER_SIMULATED_NETWORK = '(TLS over the simulated network)';
const CLIENT_INSTEAD =
  'TLS is not simulated yet; inside the simulation request over plain http or net instead ' +
  '(http.request, fetch of an http: URL, net.connect), and keep TLS outside the hosts';
const SERVER_INSTEAD =
  'TLS is not simulated yet; inside the simulation serve plain http or net instead ' +
  '(http.createServer, net.createServer), and keep TLS outside the hosts';

/** The public API the program called, while its synchronous call runs inside a host. */
let calling: string | undefined;

/** `original`, naming itself to a refusal made during its synchronous call from a host. */
function naming<T extends (...args: any[]) => any>(original: T, api: string): T {
  const named = function (this: unknown, ...args: unknown[]) {
    if (calling !== undefined || currentHost() === undefined) return Reflect.apply(original, this, args);
    calling = api;
    try {
      return Reflect.apply(original, this, args);
    } finally {
      calling = undefined;
    }
  };
  mirrorSignature(named, original);
  return named as unknown as T;
}

const realWrap = tlsWrap.wrap;

/** tls_wrap.wrap(handle, context, isServer, hasActiveWrite): refused on the simulated network. */
function wrap(this: unknown, ...args: unknown[]): unknown {
  const handle = args[0];
  if (tcpOnSimulatedNetwork(handle)) {
    closeUnusedTcp(handle as NativeHandle);
    throw new UnsupportedError(
      `${calling ?? 'new tls.TLSSocket(socket)'} ${OVER_SIMULATED_NETWORK}`,
      args[2] === true ? SERVER_INSTEAD : CLIENT_INSTEAD,
    );
  }
  return Reflect.apply(realWrap, this, args);
}

const H2C = '(HTTP/2 over the simulated network)';
const H2C_INSTEAD =
  "HTTP/2 is not simulated yet (Node's HTTP/2 session reads and writes the socket natively); inside the " +
  'simulation use HTTP/1.1 (http.request, http.createServer, fetch of an http: URL), and keep HTTP/2 outside the hosts';

/** http2.connect: an http: authority (h2c) is refused inside a host; https: meets the TLS refusal. */
function http2Connect(original: (...args: any[]) => any): (...args: any[]) => any {
  const named = naming(original, 'http2.connect()');
  const connect = function (this: unknown, ...args: unknown[]) {
    const [authority, options] = args;
    const ownConnection = typeof options === 'object' && options !== null && typeof (options as { createConnection?: unknown }).createConnection === 'function';
    if (currentHost() !== undefined && !ownConnection) {
      let protocol: string | undefined;
      try {
        protocol = (authority instanceof URL ? authority : new URL(String(authority))).protocol;
      } catch {
        protocol = undefined; // Node reports the bad authority itself
      }
      if (protocol === 'http:') throw new UnsupportedError(`http2.connect() to an http: URL ${H2C}`, H2C_INSTEAD);
    }
    return Reflect.apply(named, this, args);
  };
  mirrorSignature(connect, original);
  return connect;
}

function serverKind(server: object, https: typeof import('node:https')): string {
  if (server instanceof https.Server) return 'an https.Server';
  if (server.constructor?.name === 'Http2SecureServer') return 'an http2 secure server (http2.createSecureServer)';
  return 'a tls.Server';
}

let h2cServerPrototype: object | undefined;

/**
 * An own listen() on a server class's prototype that refuses inside a host and otherwise calls
 * the one it inherits (looked up at call time: register mode wraps net.Server.prototype.listen
 * for its reports).
 */
function refuseListen(patches: PatchSet, prototype: object, api: (server: object) => string, instead: string): void {
  const parent = Object.getPrototypeOf(prototype) as { listen: (...args: unknown[]) => unknown };
  patches.replace(prototype as { listen: (...args: unknown[]) => unknown }, 'listen', function listen(this: object, ...args: unknown[]) {
    if (currentHost() !== undefined) throw new UnsupportedError(api(this), instead);
    return Reflect.apply(parent.listen, this, args);
  });
}

export const tlsShim: Shim = {
  name: 'tls',
  install(patches: PatchSet) {
    // Loaded here, after the timer shims, not when dst-runtime loads: Node's JSStreamSocket
    // (loaded with tls) captures setImmediate when it loads, and must capture the simulated one.
    const load = createRequire(__filename);
    const tls = load('node:tls') as typeof import('node:tls');
    const https = load('node:https') as typeof import('node:https');
    const http2 = load('node:http2') as typeof import('node:http2');
    patches.replace(tlsWrap, 'wrap', wrap);
    const tlsModule = tls as unknown as Record<string, (...args: any[]) => any>;
    patches.replace(tlsModule, 'connect', naming(tlsModule.connect!, 'tls.connect()'));
    const httpsModule = https as unknown as Record<string, (...args: any[]) => any>;
    patches.replace(httpsModule, 'request', naming(httpsModule.request!, 'https.request()'));
    patches.replace(httpsModule, 'get', naming(httpsModule.get!, 'https.get()'));
    const http2Module = http2 as unknown as Record<string, (...args: any[]) => any>;
    patches.replace(http2Module, 'connect', http2Connect(http2Module.connect!));
    // tls.Server inherits listen from net.Server: an own one on tls.Server.prototype, which
    // https.Server and http2's secure server inherit in turn.
    refuseListen(patches, tls.Server.prototype, (server) => `server.listen() of ${serverKind(server, https)} ${OVER_SIMULATED_NETWORK}`, SERVER_INSTEAD);
    // http2.createServer()'s class is not exported: its prototype, from a server never listened on.
    h2cServerPrototype ??= Object.getPrototypeOf(http2.createServer()) as object;
    refuseListen(patches, h2cServerPrototype, () => `server.listen() of an http2 server (http2.createServer) ${H2C}`, H2C_INSTEAD);
  },
};
