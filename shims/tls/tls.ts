/**
 * node:tls (and so https, wss, fetch of https: URLs, h2 over TLS) between simulated hosts:
 * Node's own TLS engine over the simulated network.
 *
 * Every TLS socket passes through `tls_wrap.wrap(handle, context, isServer, ...)`: tls.connect,
 * https's agent, http2.connect to an https: URL, undici, `new tls.TLSSocket(socket)` over an
 * existing socket (STARTTLS), a tls.Server's accepted connections; _tls_wrap.js (Node 20) and
 * internal/tls/wrap.js (22, 24) call it through the binding object at call time. Native
 * TLSWrap reads and writes its underlying stream from C++, and a simulated TCP handle is
 * JavaScript (net-binding.ts), so a handle of the simulated network is handed to TLSWrap behind
 * a native JSStream that reads and writes it (shims/net/stream-bridge.ts). TLSWrap and OpenSSL
 * then run unchanged: certificates, verification errors with Node's codes, SNI, ALPN, sessions,
 * alerts are Node's own. The TLSSocket's `_parent` stays the TCP handle, so remoteAddress,
 * address(), setNoDelay and close go where they went.
 *
 * The handshake timeout (`handshakeTimeout`) is socket.setTimeout, on virtual time
 * (net-timeouts.ts). TLSWrap completes some work from native immediates (Node 24 defers a
 * write issued from an OpenSSL callback to one): the world watches for them
 * (shims/timers/native-immediates.ts) once a host made a TLS socket.
 *
 * Randomness: OpenSSL draws from its own generator, which JavaScript cannot seed (handshake
 * randoms, key shares, session ids, ticket encryption). Of what a program can observe, the
 * session ticket keys of a server made in a host come from the host's seeded stream
 * (`server.getTicketKeys()`, and so the key name at the start of every ticket); the rest is
 * listed in the guide (§ TLS): bytes that differ per run and cannot change how many reads,
 * writes or events there are.
 */
import { createRequire } from 'node:module';
import type { Server as TlsServer } from 'node:tls';
import type { RandomStream } from '../../runtime/random/stream.js';
import { builtinLoaded } from '../builtin-loads.js';
import { currentHost, type Host } from '../context.js';
import { tcpOnSimulatedNetwork } from '../net/net-binding.js';
import type { NativeHandle } from '../net/native-handles.js';
import { bridgeTcp } from '../net/stream-bridge.js';
import { nodeBinding } from '../node-binding.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';
import { watchNativeImmediates } from '../timers/native-immediates.js';

type TlsWrapBinding = { wrap: (...args: unknown[]) => unknown };

/** Node's tls_wrap binding and its own wrap, taken at the first install (the shim is lazy). */
let tlsWrap: TlsWrapBinding | undefined;
let realWrap: TlsWrapBinding['wrap'] | undefined;

/** tls_wrap.wrap(handle, context, isServer, ...): a simulated TCP handle goes behind a bridge. */
function wrap(this: unknown, ...args: unknown[]): unknown {
  const handle = args[0];
  const host = currentHost();
  // TLS over a stream of the program's own (a Duplex in a JSStreamSocket) may defer writes too.
  if (host !== undefined) watchNativeImmediates(host.world);
  if (!tcpOnSimulatedNetwork(handle)) return Reflect.apply(realWrap!, this, args);
  const bridge = bridgeTcp(handle as NativeHandle, 'tls');
  const wrapped = Reflect.apply(realWrap!, this, [bridge.js, ...args.slice(1)]) as NativeHandle;
  bridge.upper = wrapped;
  return wrapped;
}

/** Each host incarnation's stream for its servers' ticket keys. */
const ticketStreams = new WeakMap<Host, RandomStream>();

/** 48 bytes of ticket keys (name, HMAC secret, AES key) from the host's `tls:ticketKeys` stream. */
function ticketKeys(host: Host): Buffer {
  let stream = ticketStreams.get(host);
  if (stream === undefined) {
    stream = host.stream('tls:ticketKeys');
    ticketStreams.set(host, stream);
  }
  const keys = Buffer.alloc(48);
  stream.fill(keys);
  return keys;
}

/**
 * The module whose `Server` is complete: _tls_wrap's or node:tls's, whichever has finished
 * loading and has it. They require each other: at _tls_wrap's first load on 20 and 22, node:tls
 * is still running its top level; a program that requires `_tls_wrap` before tls makes node:tls
 * finish first, with `Server` undefined (plain Node too: the shim then waits for _tls_wrap's
 * load to end). undefined while neither has.
 */
function serverModule(): typeof import('node:tls') | undefined {
  const load = createRequire(__filename);
  for (const id of ['_tls_wrap', 'tls']) {
    if (!builtinLoaded(id)) continue;
    const module = load(`node:${id}`) as typeof import('node:tls');
    if (typeof module.Server === 'function') return module;
  }
  return undefined;
}

export const tlsShim: Shim = {
  name: 'tls',
  // Every TLS socket is made by _tls_wrap (Node 20's, and 22's shell over internal/tls/wrap),
  // which node:tls loads first on 20 and 22, or by node:tls (24): https, http2 and undici all
  // load node:tls. Node's JSStreamSocket, loaded with tls, holds Node's own setImmediate whenever
  // it loads (builtin-captures.ts); its immediates inside a host are waited for by the
  // native-immediate hold.
  builtins: ['_tls_wrap', 'tls'],
  ready: () => serverModule() !== undefined,
  install(patches: PatchSet) {
    // Neither loaded: installed at once where builtin loads cannot be watched (install.ts).
    const tls = serverModule() ?? (createRequire(__filename)('node:tls') as typeof import('node:tls'));
    tlsWrap ??= nodeBinding('tls_wrap') as TlsWrapBinding;
    realWrap ??= tlsWrap.wrap;
    patches.replace(tlsWrap, 'wrap', wrap);
    // A server's ticket keys: OpenSSL's random bytes when its secure context is made, unless the
    // program gives its own. Inside a host they are drawn from the host's stream instead, after
    // Node's call (which validates the options), through the public setTicketKeys.
    const proto = tls.Server.prototype as unknown as {
      setSecureContext: (this: TlsServer, options?: { ticketKeys?: unknown }) => void;
      setTicketKeys: (this: TlsServer, keys: Buffer) => void;
    };
    const realSetSecureContext = proto.setSecureContext;
    const realSetTicketKeys = proto.setTicketKeys;
    patches.replace(proto, 'setSecureContext', function setSecureContext(this: TlsServer, ...args: unknown[]) {
      const result = Reflect.apply(realSetSecureContext, this, args) as void;
      const host = currentHost();
      const options = args[0] as { ticketKeys?: unknown } | undefined;
      if (host !== undefined && !options?.ticketKeys && !(this as { ticketKeys?: unknown }).ticketKeys) {
        Reflect.apply(realSetTicketKeys, this, [ticketKeys(host)]);
      }
      return result;
    });
  },
};
