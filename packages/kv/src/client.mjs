// The client library: optimistic transactions over the replicated store.
//
//   const kv = new KvClient({ replicas });
//   const r = await kv.transaction(async (tx) => { const v = await tx.get('a'); tx.put('a', v + 1); });
//   // r = { committed: true, ts } | { committed: false, reason }; throws KvUnknownError (code
//   // 'KV_UNKNOWN') when the commit was sent but no outcome arrived before the deadline.
//
// Reads go to the primary and return value + version; writes are buffered; the commit is a VR
// request { reads: [key, version][], writes: [key, value][] } validated in log order. Each
// commit carries (clientId, requestNumber), so retries to other replicas are deduplicated.
import { randomUUID } from 'node:crypto';
import { Link } from './transport.mjs';

/** The outcome of a commit is unknown: it may or may not have committed. */
export class KvUnknownError extends Error {
  constructor(message) {
    super(message);
    this.name = 'KvUnknownError';
    this.code = 'KV_UNKNOWN';
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @typedef {{ id: string, host: string, port: number }} ReplicaAddress
 * @typedef {{ committed: true, ts: number, requestNumber: number, reads: Map<string, any>, writes: Map<string, any> } | { committed: false, reason: string, requestNumber?: number, reads: Map<string, any>, writes: Map<string, any> }} TxnOutcome
 */

export class KvClient {
  /**
   * @param {{ replicas: ReplicaAddress[], clientId?: string, attemptTimeoutMs?: number, deadlineMs?: number, bugs?: { staleReads?: boolean }, tls?: import('./transport.mjs').TlsIdentity }} options
   *   tls: talk TLS to the replicas, with this client certificate (they require one from their CA)
   */
  constructor(options) {
    this.replicas = options.replicas;
    this.n = this.replicas.length;
    this.clientId = options.clientId ?? randomUUID();
    this.attemptTimeoutMs = options.attemptTimeoutMs ?? 250;
    this.deadlineMs = options.deadlineMs ?? 3000;
    this.bugs = { ...(options.bugs ?? {}) };
    this.requestNumber = 0;
    this.nextReqId = 0;
    this.view = 0;
    this.leader = 0;
    /** @type {Map<string, (message: any) => void>} */
    this.waiting = new Map();
    this.links = this.replicas.map((_, i) => new Link(() => this.replicas[i], (message) => this.onMessage(message), { tls: options.tls }));
    this.commitChain = Promise.resolve();
  }

  onMessage(m) {
    const key = m.reqId !== undefined ? `r${m.reqId}` : m.requestNumber !== undefined ? `c${m.requestNumber}` : undefined;
    if (key === undefined) return;
    this.waiting.get(key)?.(m);
  }

  /** Sends to one replica and waits for the answer keyed `key`, at most `ms`; undefined on timeout. */
  call(target, message, key, ms) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.waiting.get(key) === done) this.waiting.delete(key);
        resolve(undefined);
      }, ms);
      const done = (answer) => {
        clearTimeout(timer);
        this.waiting.delete(key);
        resolve(answer);
      };
      this.waiting.set(key, done);
      this.links[target].send(message);
    });
  }

  /** Learns from a notPrimary answer (or a silence) whom to ask next. */
  redirect(target, answer) {
    if (answer?.type === 'notPrimary' && answer.view > this.view) {
      this.view = answer.view;
      this.leader = answer.view % this.n;
    } else if (this.leader === target) {
      this.leader = (target + 1) % this.n;
    }
  }

  /** Reads one key from the primary: { value, version }; undefined if no primary answered by `deadline`. */
  async read(key, deadline) {
    while (performance.now() < deadline) {
      const target = this.leader;
      const reqId = ++this.nextReqId;
      const ms = Math.min(this.attemptTimeoutMs, Math.max(1, deadline - performance.now()));
      const answer = await this.call(target, { type: 'read', reqId, key }, `r${reqId}`, ms);
      if (answer?.type === 'readReply') {
        if (answer.view > this.view) this.view = answer.view;
        return { value: answer.value, version: answer.version };
      }
      this.redirect(target, answer);
      if (answer !== undefined) await sleep(10);
    }
    return undefined;
  }

  /**
   * Runs `fn(tx)` and commits what it read and wrote. tx.get(key) → value (null if absent);
   * tx.put(key, value) buffers a write. Resolves { committed, ts | reason, reads, writes };
   * rejects with KvUnknownError when the commit was sent but its outcome is unknown at the deadline.
   * @param {(tx: { get: (key: string) => Promise<any>, put: (key: string, value: any) => void }) => Promise<unknown> | unknown} fn
   * @param {{ deadlineMs?: number }} [options]
   * @returns {Promise<TxnOutcome>}
   */
  async transaction(fn, options = {}) {
    const deadline = performance.now() + (options.deadlineMs ?? this.deadlineMs);
    /** @type {Map<string, { value: any, version: number }>} */
    const readSet = new Map();
    /** @type {Map<string, any>} */
    const writes = new Map();
    let unavailable;
    const tx = {
      get: async (key) => {
        if (writes.has(key)) return writes.get(key);
        if (readSet.has(key)) return readSet.get(key).value;
        const got = await this.read(key, deadline);
        if (got === undefined) {
          unavailable = `unavailable: no primary answered a read of ${key} before the deadline`;
          throw new KvUnavailable(unavailable);
        }
        readSet.set(key, got);
        return got.value;
      },
      put: (key, value) => {
        writes.set(key, value);
      },
    };
    const reads = () => new Map([...readSet].map(([k, v]) => [k, v.value]));
    try {
      await fn(tx);
    } catch (error) {
      if (error instanceof KvUnavailable) return { committed: false, reason: error.message, reads: reads(), writes };
      throw error;
    }
    // The staleReads bug: "the primary's reads are current, so a read-only transaction needs no commit".
    if (this.bugs.staleReads && writes.size === 0) return { committed: true, ts: undefined, reads: reads(), writes };
    const op = { reads: [...readSet].map(([k, v]) => [k, v.version]), writes: [...writes] };
    const result = await this.commit(op, deadline);
    return { ...result, reads: reads(), writes };
  }

  /** Commits one op through VR, one request at a time per client (VR's rule), retried until `deadline`. */
  commit(op, deadline) {
    const run = this.commitChain.then(() => this.commitNow(op, deadline));
    this.commitChain = run.catch(() => {});
    return run;
  }

  async commitNow(op, deadline) {
    const requestNumber = ++this.requestNumber;
    const message = { type: 'request', clientId: this.clientId, requestNumber, op };
    while (performance.now() < deadline) {
      const target = this.leader;
      const ms = Math.min(this.attemptTimeoutMs, Math.max(1, deadline - performance.now()));
      const answer = await this.call(target, message, `c${requestNumber}`, ms);
      if (answer?.type === 'reply') {
        if (answer.view > this.view) this.view = answer.view;
        return { ...answer.result, requestNumber };
      }
      this.redirect(target, answer);
      if (answer !== undefined) await sleep(10);
    }
    throw new KvUnknownError(`commit of request ${requestNumber} (client ${this.clientId}) has an unknown outcome: no reply before the deadline`);
  }

  close() {
    for (const link of this.links) link.close();
    for (const done of this.waiting.values()) done(undefined);
  }
}

class KvUnavailable extends Error {}
