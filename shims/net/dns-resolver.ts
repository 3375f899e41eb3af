/**
 * dns.resolve*, dns.reverse, dns.Resolver and dns.promises.Resolver on the simulated network, at
 * the level of Node's c-ares channel (internalBinding('cares_wrap').ChannelWrap, one per
 * Resolver). Node's dns code keeps its validation and builds its own errors
 * ("queryA ENOTFOUND kv-9", with code/syscall/hostname); only the channel answers from the
 * simulation: a host's name (or alias) has an A record (its IPv4 address) and an AAAA record
 * (its IPv6 address); every other name is unknown (ENOTFOUND), never asked of a real server.
 *
 * How: the query methods of ChannelWrap.prototype are patched. Called from a simulated host
 * they answer from the network; called from outside every host they are the real ones, so the
 * test runner's own lookups still work. setServers from a host is remembered per channel and
 * run (see patchedSetServers); setLocalAddress stays real (no query leaves the channel).
 *
 * The binding protocol (lib/internal/dns/callback_resolver.js and promises.js, 20/22/24):
 * `channel.queryA(req, name)` returns 0 or a UV error (thrown at once as a DNSException), and
 * later calls `req.oncomplete(0, records, ttls)` (ttls for A/AAAA only) or
 * `req.oncomplete('ENOTFOUND')` with a c-ares error NAME. Node defers every c-ares answer to
 * an immediate, so an answer is never synchronous; channel.cancel() fails the pending queries
 * with ECANCELLED, also asynchronously.
 */
import { AsyncResource } from 'node:async_hooks';
import { familyOf } from '../../runtime/network/addresses.js';
import { UV } from '../../runtime/network/errno.js';
import { canonicalAddress } from '../../runtime/network/udp.js';
import type { SimEvent } from '../../runtime/scheduler/event.js';
import type { World } from '../../runtime/world.js';
import { currentHost, type Host } from '../context.js';
import type { PatchSet } from '../registry.js';
import { nodeBinding } from '../node-binding.js';
import type { Shim } from '../shim.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type NativeChannel = Record<PropertyKey, any>;
type QueryReq = { oncomplete: (...args: unknown[]) => void } & Record<PropertyKey, unknown>;

const cares = nodeBinding('cares_wrap');
const ChannelWrap = cares.ChannelWrap as new (...args: unknown[]) => NativeChannel;
const proto = ChannelWrap.prototype as NativeChannel;

/** The TTL (seconds) of every simulated record: names and addresses never change during a run. */
export const DNS_TTL_S = 300;

/** The query methods a channel has on this Node version (queryTlsa is newer). */
const QUERY_METHODS = [
  'queryAny', 'queryA', 'queryAaaa', 'queryCaa', 'queryCname', 'queryMx', 'queryNs', 'queryTlsa',
  'queryTxt', 'querySrv', 'queryPtr', 'queryNaptr', 'querySoa', 'getHostByAddr',
].filter((name) => typeof proto[name] === 'function');

const real: Record<string, (...args: unknown[]) => unknown> = {};
for (const name of [...QUERY_METHODS, 'cancel', 'getServers', 'setServers']) real[name] = proto[name];

/** The answer of one query: records (and ttls), or a c-ares error name. */
type Answer = { records: unknown[]; ttls?: number[] } | { error: string };

interface PendingQuery {
  req: QueryReq;
  event: SimEvent;
  host: Host;
  scope: AsyncResource;
}

/** Queries answered later, per channel, so cancel() can fail them. */
const pending = new WeakMap<NativeChannel, Set<PendingQuery>>();

/** The addresses of a name of the simulation, or undefined when the name is unknown. */
function addressesOf(host: Host, name: string, family: 4 | 6): string[] | undefined {
  const lower = name.toLowerCase().replace(/\.$/, '');
  // c-ares sends even 'localhost' and address literals to the DNS server, which knows neither.
  if (lower === '' || familyOf(lower) !== 0 || lower === 'localhost' || lower.endsWith('.localhost')) return undefined;
  return host.world.network.resolve(lower, host, family);
}

/** 1.0.0.10.in-addr.arpa -> 10.0.0.1; the nibble form of ip6.arpa -> an IPv6 address. */
function addressOfPtrName(name: string): string | undefined {
  const lower = name.toLowerCase().replace(/\.$/, '');
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\.in-addr\.arpa$/.exec(lower);
  if (v4) return `${v4[4]}.${v4[3]}.${v4[2]}.${v4[1]}`;
  const v6 = /^((?:[0-9a-f]\.){32})ip6\.arpa$/.exec(lower);
  if (v6) {
    const nibbles = v6[1]!.split('.').filter(Boolean).reverse().join('');
    const groups = nibbles.match(/.{4}/g)!;
    return canonicalAddress(groups.join(':'));
  }
  return undefined;
}

function answer(host: Host, method: string, name: string): Answer {
  const ipv4 = addressesOf(host, name, 4);
  const ipv6 = addressesOf(host, name, 6);
  const known = ipv4 !== undefined || ipv6 !== undefined;
  switch (method) {
    case 'queryA':
    case 'queryAaaa': {
      const records = (method === 'queryA' ? ipv4 : ipv6) ?? [];
      if (!known) return { error: 'ENOTFOUND' };
      if (records.length === 0) return { error: 'ENODATA' };
      return { records, ttls: records.map(() => DNS_TTL_S) };
    }
    case 'queryAny': {
      if (!known) return { error: 'ENOTFOUND' };
      const records = [
        ...(ipv4 ?? []).map((address) => ({ address, ttl: DNS_TTL_S, type: 'A' })),
        ...(ipv6 ?? []).map((address) => ({ address, ttl: DNS_TTL_S, type: 'AAAA' })),
      ];
      return { records };
    }
    case 'queryPtr': {
      const address = addressOfPtrName(name);
      const target = address === undefined ? undefined : reverseName(host, address);
      if (target !== undefined) return { records: [target] };
      return { error: known ? 'ENODATA' : 'ENOTFOUND' };
    }
    default:
      // The simulation's names carry address records only.
      return { error: known ? 'ENODATA' : 'ENOTFOUND' };
  }
}

/**
 * The host name of a simulated address. Loopback answers 'localhost' (c-ares reverses through
 * the hosts file first, where real machines list it), never the real machine's names.
 */
function reverseName(host: Host, address: string): string | undefined {
  return host.world.network.reverse(canonicalAddress(address), host);
}

/** Queues the completion of `req` on the calling host: the answer comes in a later event. */
function complete(channel: NativeChannel, host: Host, req: QueryReq, result: Answer): void {
  const scope = new AsyncResource('QUERYWRAP');
  let set = pending.get(channel);
  if (set === undefined) pending.set(channel, (set = new Set()));
  const entry: PendingQuery = { req, host, scope, event: undefined as unknown as SimEvent };
  const queries = set;
  entry.event = host.world.schedule(host, 0, 'io', () => {
    queries.delete(entry);
    if ('error' in result) req.oncomplete(result.error);
    else if (result.ttls !== undefined) req.oncomplete(0, result.records, result.ttls);
    else req.oncomplete(0, result.records);
  }, undefined, true, scope);
  if (!entry.event.cancelled) queries.add(entry);
}

function patchedQuery(method: string) {
  const original = real[method]!;
  const patched = function (this: NativeChannel, req: QueryReq, name: string): number {
    const host = currentHost();
    if (host === undefined) return original.call(this, req, name) as number;
    const text = String(name);
    if (method === 'getHostByAddr') {
      // c-ares accepts address literals only; anything else fails at once (EINVAL).
      if (familyOf(text) === 0) return UV.EINVAL;
      const target = reverseName(host, text);
      complete(this, host, req, target === undefined ? { error: 'ENOTFOUND' } : { records: [target] });
      return 0;
    }
    complete(this, host, req, answer(host, method, text));
    return 0;
  };
  Object.defineProperty(patched, 'name', { value: method });
  return patched;
}

/**
 * Servers set from a host are the simulation's business: the real channel keeps the machine's
 * configuration, so a Resolver (or the default resolver dns.setServers installs, which outlives
 * the run inside Node) never carries a host's settings into the test runner or the next run.
 * Without a setting of its own, a channel reports the real configuration, as in plain Node.
 */
const simServers = new WeakMap<NativeChannel, { world: WeakRef<World>; servers: Array<[string, number]> }>();

function patchedSetServers(this: NativeChannel, servers: Array<[number, string, number]>): number {
  const host = currentHost();
  if (host === undefined) return real.setServers!.call(this, servers) as number;
  // The world by WeakRef: the default resolver's channel lives as long as the process, and
  // its setting must not keep a finished world alive.
  simServers.set(this, { world: new WeakRef(host.world), servers: servers.map(([, address, port]) => [address, port]) });
  return 0;
}

function patchedGetServers(this: NativeChannel): unknown {
  const host = currentHost();
  const own = simServers.get(this);
  if (host === undefined || own === undefined || own.world.deref() !== host.world) return real.getServers!.call(this);
  return own.servers.map(([address, port]) => [address, port]);
}

/** cancel(): pending simulated queries fail with ECANCELLED (in a later event, as in Node). */
function patchedCancel(this: NativeChannel): void {
  const queries = pending.get(this);
  if (queries !== undefined && queries.size > 0) {
    for (const entry of [...queries]) {
      queries.delete(entry);
      entry.host.world.cancel(entry.event);
      entry.host.world.schedule(entry.host, 0, 'io', () => entry.req.oncomplete('ECANCELLED'), undefined, true, entry.scope);
    }
  }
  // Real queries made from outside every host, if any, are the real channel's to cancel.
  real.cancel!.call(this);
}

export const dnsResolverShim: Shim = {
  name: 'dns-resolver',
  install(patches: PatchSet) {
    for (const method of QUERY_METHODS) patches.replace(proto, method, patchedQuery(method));
    patches.replace(proto, 'cancel', patchedCancel);
    patches.replace(proto, 'getServers', patchedGetServers);
    patches.replace(proto, 'setServers', patchedSetServers);
  },
};
