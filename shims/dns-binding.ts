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
import { familyOf } from '../runtime/network/addresses.js';
import { UV } from '../runtime/network/errno.js';
import { currentHost } from './context.js';
import { trackRequest } from './native-handles.js';
import type { PatchSet } from './registry.js';
import { nodeBinding } from './node-binding.js';
import type { Shim } from './shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const cares = nodeBinding('cares_wrap');
const real = { getaddrinfo: cares.getaddrinfo, getnameinfo: cares.getnameinfo };
/** Node's DNS_ORDER_* constants (verbatim 0, ipv4first 1, ipv6first 2) where exported. */
const ORDER_IPV4_FIRST: number = cares.DNS_ORDER_IPV4_FIRST ?? 1;
const ORDER_IPV6_FIRST: number = cares.DNS_ORDER_IPV6_FIRST ?? 2;

const SERVICES: Record<number, string> = { 21: 'ftp', 22: 'ssh', 25: 'smtp', 53: 'domain', 80: 'http', 443: 'https' };

function getaddrinfo(req: any, hostname: string, family: number, hints: number, order: number | boolean): number {
  const host = currentHost();
  if (host === undefined) return real.getaddrinfo.call(cares, req, hostname, family, hints, order);
  const network = host.world.network;
  let addresses = network.resolve(String(hostname), host, (family === 4 || family === 6 ? family : 0) as 0 | 4 | 6);
  if (addresses !== undefined) {
    // Node 20.0-20.x passes a boolean "verbatim"; later versions pass an order constant.
    const o = typeof order === 'boolean' ? (order ? 0 : ORDER_IPV4_FIRST) : order;
    if (o === ORDER_IPV4_FIRST) addresses = [...addresses].sort((a, b) => familyOf(a) - familyOf(b));
    else if (o === ORDER_IPV6_FIRST) addresses = [...addresses].sort((a, b) => familyOf(b) - familyOf(a));
  }
  const result = addresses;
  const listed = trackRequest(host, 'GetAddrInfoReqWrap');
  // getaddrinfo runs on libuv's threadpool: the answer comes in a later event.
  host.world.schedule(host, 0, 'io', () => {
    try {
      if (result === undefined || result.length === 0) req.oncomplete(UV.EAI_NONAME, []);
      else req.oncomplete(0, result);
    } finally {
      listed();
    }
  }, undefined, true);
  return 0;
}

function getnameinfo(req: any, address: string, port: number): number {
  const host = currentHost();
  if (host === undefined) return real.getnameinfo.call(cares, req, address, port);
  const name = host.world.network.reverse(address, host);
  const listed = trackRequest(host, 'GetNameInfoReqWrap');
  host.world.schedule(host, 0, 'io', () => {
    try {
      if (name === undefined) req.oncomplete(UV.EAI_NONAME);
      else req.oncomplete(0, name, SERVICES[port] ?? String(port));
    } finally {
      listed();
    }
  }, undefined, true);
  return 0;
}

// node:dns/promises captured the binding's getaddrinfo when it loaded — often before the
// simulation (importing node:dns loads it). Inside hosts its lookup/lookupService go through
// the callback API, which reads the (patched) binding on every call; Node's validation runs
// there, synchronously, as in the promise API.
const realPromises = { lookup: dnsPromises.lookup, lookupService: dnsPromises.lookupService };

function lookupPromise(this: unknown, hostname: string, options?: unknown): Promise<unknown> {
  if (currentHost() === undefined) return Reflect.apply(realPromises.lookup, this, arguments);
  let settle!: (error: Error | null, value?: unknown) => void;
  const promise = new Promise((resolve, reject) => {
    settle = (error, value) => (error ? reject(error) : resolve(value));
  });
  const all = typeof options === 'object' && options !== null && (options as { all?: unknown }).all === true;
  dns.lookup(hostname, (options ?? {}) as dns.LookupOptions, (error: Error | null, address: unknown, family?: number) => {
    if (error) settle(error);
    else settle(null, all ? address : { address, family });
  });
  return promise;
}
Object.defineProperty(lookupPromise, 'name', { value: 'lookup' });

function lookupServicePromise(this: unknown, address: string, port: number): Promise<unknown> {
  if (currentHost() === undefined) return Reflect.apply(realPromises.lookupService, this, arguments);
  let settle!: (error: Error | null, value?: unknown) => void;
  const promise = new Promise((resolve, reject) => {
    settle = (error, value) => (error ? reject(error) : resolve(value));
  });
  dns.lookupService(address, port, (error, hostname, service) => (error ? settle(error) : settle(null, { hostname, service })));
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
