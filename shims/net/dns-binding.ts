/**
 * dns.lookup / dns.lookupService (and their promise forms) on the simulated network, at the
 * level of Node's binding (internalBinding('cares_wrap').getaddrinfo / getnameinfo): node:dns
 * keeps its own validation and builds its own errors ("getaddrinfo ENOTFOUND kv-9"), and net,
 * http and fetch reach it through dns.lookup. Host names resolve to their host's address;
 * 'localhost' to loopback; anything else is unknown (ENOTFOUND), never asked of a real DNS.
 *
 * node:dns/promises captures the binding functions when it loads: the patch is installed
 * before any simulated code can load it, and the patched functions fall back to the real ones
 * outside hosts, so a module that captured them mid-run still works after uninstall.
 */
import dns from 'node:dns';
import dnsPromises from 'node:dns/promises';
import { isIP } from 'node:net';
import { familyOf } from '../../runtime/network/addresses.js';
import { UV } from '../../runtime/network/errno.js';
import type { World, WorldHost } from '../../runtime/world.js';
import { captureContextOf, thenDestroyed } from '../async-hooks/async-context.js';
import { currentHost } from '../context.js';
import { completeListed, trackRequest } from './native-handles.js';
import type { PatchSet } from '../registry.js';
import { nodeBinding } from '../node-binding.js';
import { nodeError } from '../node-errors.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const cares = nodeBinding('cares_wrap');
const real = { getaddrinfo: cares.getaddrinfo, getnameinfo: cares.getnameinfo };
/** Node's DNS_ORDER_* constants (verbatim 0, ipv4first 1, ipv6first 2) where exported. */
const ORDER_IPV4_FIRST: number = cares.DNS_ORDER_IPV4_FIRST ?? 1;
const ORDER_IPV6_FIRST: number = cares.DNS_ORDER_IPV6_FIRST ?? 2;

const SERVICES: Record<number, string> = { 21: 'ftp', 22: 'ssh', 25: 'smtp', 53: 'domain', 80: 'http', 443: 'https' };

/**
 * getaddrinfo's AI_V4MAPPED for an IPv6 lookup (dns.lookup's `hints: dns.V4MAPPED`): with no
 * IPv6 address, the IPv4 ones as IPv4-mapped IPv6 addresses (::ffff:127.0.0.1); with AI_ALL
 * too, both. Before, the hint was ignored and a name with IPv4 addresses only was ENOTFOUND.
 */
function withV4Mapped(v6: string[] | undefined, v4: string[] | undefined, all: boolean): string[] | undefined {
  const mapped = (v4 ?? []).map((address) => `::ffff:${address}`);
  if (v6 !== undefined && v6.length > 0) return all ? [...v6, ...mapped] : v6;
  return mapped.length > 0 ? mapped : v6;
}

function getaddrinfo(req: any, hostname: string, family: number, hints: number, order: number | boolean): number {
  const host = currentHost();
  if (host === undefined) return real.getaddrinfo.call(cares, req, hostname, family, hints, order);
  const network = host.world.network;
  let addresses = network.resolve(String(hostname), host, (family === 4 || family === 6 ? family : 0) as 0 | 4 | 6);
  if (family === 6 && (hints & dns.V4MAPPED) !== 0) addresses = withV4Mapped(addresses, network.resolve(String(hostname), host, 4), (hints & dns.ALL) !== 0);
  if (addresses !== undefined) {
    // Node 20.0-20.x passes a boolean "verbatim"; later versions pass an order constant.
    const o = typeof order === 'boolean' ? (order ? 0 : ORDER_IPV4_FIRST) : order;
    if (o === ORDER_IPV4_FIRST) addresses = [...addresses].sort((a, b) => familyOf(a) - familyOf(b));
    else if (o === ORDER_IPV6_FIRST) addresses = [...addresses].sort((a, b) => familyOf(b) - familyOf(a));
  }
  const result = addresses;
  const listed = trackRequest(host, 'GetAddrInfoReqWrap');
  // getaddrinfo runs on libuv's threadpool: the answer comes in a later event, in the async
  // context of the call (Node's request wrap enters the one it was made in), so a connect by
  // name and everything it starts keep the caller's AsyncLocalStorage stores.
  // Taken by the loop's poll phase, never between two immediates the calling code queued.
  const scope = captureContextOf(req, 'GETADDRINFOREQWRAP', true);
  (host.world as World).scheduleAfterEvent(host as WorldHost, thenDestroyed(scope, () => completeListed(listed, () => {
    if (result === undefined || result.length === 0) req.oncomplete(UV.EAI_NONAME, []);
    else req.oncomplete(0, result);
  })), undefined, true, scope);
  return 0;
}

function getnameinfo(req: any, address: string, port: number): number {
  const host = currentHost();
  if (host === undefined) return real.getnameinfo.call(cares, req, address, port);
  const name = host.world.network.reverse(address, host);
  const listed = trackRequest(host, 'GetNameInfoReqWrap');
  const scope = captureContextOf(req, 'GETNAMEINFOREQWRAP', true);
  (host.world as World).scheduleAfterEvent(host as WorldHost, thenDestroyed(scope, () => completeListed(listed, () => {
    if (name === undefined) req.oncomplete(UV.EAI_NONAME);
    else req.oncomplete(0, name, SERVICES[port] ?? String(port));
  })), undefined, true, scope);
  return 0;
}

// node:dns/promises captured the binding's getaddrinfo when it loaded — often before the
// simulation (importing node:dns loads it) — so inside hosts its lookup and lookupService are
// replaced. What the replacements keep of Node's promise API (which differs from the callback
// API's):
// - Every call that never reaches getaddrinfo goes to Node's own promise `lookup`: a falsy name
//   or an address literal is answered inside the Promise executor, so `await` on it continues
//   before a nextTick queued earlier (the callback API answers through process.nextTick), with
//   Node's DEP0118 warning for a falsy name; a hostname that is not a string throws there.
// - A name is looked up through the callback API, which calls the (patched) binding
//   synchronously, as the promise API does, and settles when its request completes, with Node's
//   own result and error objects. Its options are validated first by Node's promise `lookup`
//   applied to an address literal (answered at once, without any request): the promise API's
//   rules and messages on each Node version ({family: 'IPv4'} and a function as options are
//   refused, ERR_INVALID_ARG_VALUE / ERR_INVALID_ARG_TYPE; the callback API accepts them).
// - lookupService takes exactly two arguments (ERR_MISSING_ARGS otherwise); the callback API
//   then validates address and port as the promise API does on 20, 22 and 24.
const realPromises = { lookup: dnsPromises.lookup, lookupService: dnsPromises.lookupService };
const callbackApi = { lookup: dns.lookup, lookupService: dns.lookupService };
/** Any address literal: Node's promise lookup answers it without a request. */
const LITERAL = '0.0.0.0';

/**
 * The lookup options read once, in the order Node reads them (hints, family, all, verbatim,
 * order), so that getters run once although two functions read the options.
 */
function readLookupOptions(options: unknown): unknown {
  if (typeof options !== 'object' || options === null) return options;
  const o = options as Record<string, unknown>;
  return { hints: o.hints, family: o.family, all: o.all, verbatim: o.verbatim, order: o.order };
}

function lookupPromise(this: unknown, hostname: unknown, options?: unknown): Promise<unknown> {
  if (currentHost() === undefined || !hostname || typeof hostname !== 'string' || isIP(hostname) !== 0) {
    return Reflect.apply(realPromises.lookup, this, arguments);
  }
  const read = readLookupOptions(options);
  // Throws Node's promise-API validation errors; the promise it returns otherwise is resolved.
  Reflect.apply(realPromises.lookup, this, [LITERAL, read]);
  const all = typeof read === 'object' && read !== null && (read as { all?: unknown }).all === true;
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, address?: unknown, family?: number) => {
      if (error) reject(error);
      else resolve(all ? address : { address, family });
    };
    Reflect.apply(callbackApi.lookup, dns, [hostname, read ?? {}, done]);
  });
}
Object.defineProperty(lookupPromise, 'name', { value: 'lookup' });

function lookupServicePromise(this: unknown, address: unknown, port: unknown): Promise<unknown> {
  if (currentHost() === undefined) return Reflect.apply(realPromises.lookupService, this, arguments);
  if (arguments.length !== 2) {
    throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "address" and "port" arguments must be specified', lookupServicePromise);
  }
  let settle!: (error: Error | null, value?: unknown) => void;
  const promise = new Promise((resolve, reject) => {
    settle = (error, value) => (error ? reject(error) : resolve(value));
  });
  try {
    Reflect.apply(callbackApi.lookupService, dns, [
      address,
      port,
      (error: Error | null, hostname?: string, service?: string) => (error ? settle(error) : settle(null, { hostname, service })),
    ]);
  } catch (error) {
    // Argument errors throw, as in the promise API; an error of the binding itself (only a
    // stubbed binding fails at once) rejects the promise there, where the callback API throws.
    if ((error as { syscall?: unknown } | null)?.syscall !== 'getnameinfo') throw error;
    settle(error as Error);
  }
  return promise;
}
Object.defineProperty(lookupServicePromise, 'name', { value: 'lookupService' });

export const dnsShim: Shim = {
  name: 'dns',
  install(patches: PatchSet) {
    patches.replace(cares, 'getaddrinfo', getaddrinfo);
    patches.replace(cares, 'getnameinfo', getnameinfo);
    patches.replace(dnsPromises, 'lookup', lookupPromise as typeof dnsPromises.lookup);
    patches.replace(dnsPromises, 'lookupService', lookupServicePromise as typeof dnsPromises.lookupService);
  },
};
