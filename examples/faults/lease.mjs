// A lease outlived by a slow worker (the "GC pause outlives the lease" bug), as one plain program:
// a lock service, a storage service and two workers on 127.0.0.1. Each worker takes the lease,
// reads the counter, checks that its lease is still valid, does a slow step (20 ms) and writes the
// counter + 1. If the worker is late — its timer fires late, it stalls, its write is slow on the
// wire — the lease expires meanwhile, the other worker takes it and reads the same value: one
// increment is lost. The storage service notices (a write based on a version it no longer has)
// and the program crashes.
//
// The fix (lease-fixed.mjs) is a fencing token: the lock service numbers its leases, and storage
// refuses a read or a write whose token is older than one it has seen; the late worker then
// starts over. Run: dst explore examples/faults/lease.mjs --seeds 300 --swarm
import { Client, serve, sleep } from './rpc.mjs';

const LEASE_MS = 100;
const INCREMENTS = 5;

export async function main({ fenced }) {
  const servers = [];
  // The lock service: one lease at a time, for LEASE_MS by the service's own clock.
  let holder;
  let expiresAtMs = 0;
  let tokens = 0;
  servers.push(await serve(7101, (request) => {
    const now = performance.now();
    if (request.op === 'acquire') {
      if (holder !== undefined && holder !== request.who && now < expiresAtMs) return { ok: false };
      holder = request.who;
      expiresAtMs = now + LEASE_MS;
      return { ok: true, token: ++tokens, ttlMs: LEASE_MS };
    }
    if (request.op === 'release' && holder === request.who && request.token === tokens) holder = undefined;
    return { ok: true };
  }));
  // The storage service: a counter with a version. A write names the version it was based on.
  let value = 0;
  let version = 0;
  let highestToken = 0;
  servers.push(await serve(7102, (request) => {
    if (fenced) {
      if (request.token < highestToken) return { ok: false, stale: true };
      highestToken = request.token;
    }
    if (request.op === 'read') return { ok: true, value, version };
    if (request.base !== version) {
      throw new Error(`lost update: ${request.who} wrote ${request.value} based on version ${request.base}, but the counter is at version ${version}`);
    }
    value = request.value;
    version++;
    return { ok: true };
  }));

  const worker = async (who) => {
    const lock = new Client(who, 7101);
    const storage = new Client(who, 7102);
    let done = 0;
    while (done < INCREMENTS) {
      const lease = await lock.call({ op: 'acquire', who });
      if (!lease.ok) {
        await sleep(5);
        continue;
      }
      const acquiredAt = performance.now();
      const read = await storage.call({ op: 'read', who, token: lease.token });
      if (read.ok && performance.now() - acquiredAt < lease.ttlMs / 2) {
        await sleep(20); // the slow step: compute, call a third party, write a file...
        const write = await storage.call({ op: 'write', who, token: lease.token, value: read.value + 1, base: read.version });
        if (write.ok) done++;
      }
      await lock.call({ op: 'release', who, token: lease.token });
    }
    lock.close();
    storage.close();
    return done;
  };
  const counts = await Promise.all([worker('A'), worker('B')]);
  for (const server of servers) server.close();
  const expected = counts.reduce((a, b) => a + b, 0);
  if (value !== expected) throw new Error(`the counter is ${value}, but ${expected} increments were acknowledged`);
  console.log(`counter ${value} after ${expected} increments`);
}
