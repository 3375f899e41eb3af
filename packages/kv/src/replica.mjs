// One replica of the store: Viewstamped Replication Revisited (Liskov & Cowling 2012) without a
// disk, executing optimistic multi-key transactions in log order.
//
// State layout. Everything up to commitNumber has been executed into `store` / `clientTable`;
// `pending` holds the prepared-but-not-yet-committed suffix (op commitNumber+1 .. opNumber).
// A "snapshot" (the executed state at commitNumber) plus that suffix stands for the VR log in
// every message that carries a log (DoViewChange, StartView, NewState, RecoveryResponse):
// the committed prefix is identical on every replica, so it is shipped as its (small) result.
//
// No module-level mutable state: several replicas can run in one process.
import { randomUUID } from 'node:crypto';
import { Link, listen } from './transport.mjs';

/**
 * @typedef {{ id: string, host: string, port: number }} ReplicaAddress
 * @typedef {{ ackBeforeQuorum?: boolean, noLongestLog?: boolean, noDedup?: boolean, staleReads?: boolean }} Bugs
 * @typedef {{ reads: [string, number][], writes: [string, any][] }} TxnOp
 * @typedef {{ clientId: string, requestNumber: number, op: TxnOp }} Entry
 * @typedef {{ committed: true, ts: number } | { committed: false, reason: string }} TxnResult
 * @typedef {{ store: [string, { value: any, version: number }][], clientTable: [string, { requestNumber: number, result: TxnResult }][], commitNumber: number, committedTs: number, commits: number }} Snapshot
 * @typedef {{ id: string, status: 'normal'|'view-change'|'recovering', view: number, opNumber: number, commitNumber: number, committedTs: number, commits: number, incarnation: string }} ReplicaStatus
 * @typedef {{
 *   id: string, index: number, replicas: ReplicaAddress[], port?: number, listenHost?: string,
 *   bugs?: Bugs, recover?: boolean,
 *   tls?: import('./transport.mjs').TlsIdentity,
 *   heartbeatMs?: number, viewTimeoutMs?: number, tickMs?: number,
 *   observer?: {
 *     onExecute?: (replicaId: string, opNumber: number, entry: Entry, result: TxnResult) => void,
 *     onEvent?: (replicaId: string, event: string, detail: object) => void,
 *   },
 * }} ReplicaOptions
 */

export const BUG_NAMES = ['ackBeforeQuorum', 'noLongestLog', 'noDedup', 'staleReads'];

/** Bugs from a list like "noDedup,staleReads" (env KV_BUG / DST_KV_BUG). */
export function bugsFromEnv(text) {
  /** @type {Bugs} */
  const bugs = {};
  for (const name of String(text ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!BUG_NAMES.includes(name)) throw new Error(`Unknown KV bug "${name}": expected one of ${BUG_NAMES.join(', ')}`);
    bugs[name] = true;
  }
  return bugs;
}

/** Runs a transaction's validation and writes against a store; mutates it on commit. */
function executeTxn(store, op, opNumber) {
  for (const [key, version] of op.reads) {
    const current = store.get(key)?.version ?? 0;
    if (current !== version) return { committed: false, reason: `conflict: ${key} is at version ${current}, read at ${version}` };
  }
  for (const [key, value] of op.writes) store.set(key, { value, version: opNumber });
  return { committed: true, ts: opNumber };
}

export class Replica {
  /** @param {ReplicaOptions} options */
  constructor(options) {
    this.id = options.id;
    this.index = options.index;
    this.replicas = options.replicas;
    this.n = this.replicas.length;
    this.f = Math.floor((this.n - 1) / 2);
    this.bugs = { ...(options.bugs ?? {}) };
    this.observer = options.observer ?? {};
    this.heartbeatMs = options.heartbeatMs ?? 50;
    this.viewTimeoutMs = options.viewTimeoutMs ?? 400;
    this.tickMs = options.tickMs ?? 20;
    this.incarnation = randomUUID();

    /** @type {'normal'|'view-change'|'recovering'} */
    this.status = options.recover ? 'recovering' : 'normal';
    this.view = 0;
    this.lastNormalView = 0;
    this.commitNumber = 0;
    /** @type {Entry[]} op commitNumber+1+i */
    this.pending = [];
    /** @type {Map<string, { value: any, version: number }>} */
    this.store = new Map();
    /** @type {Map<string, { requestNumber: number, result: TxnResult }>} */
    this.clientTable = new Map();
    this.committedTs = 0;
    this.commits = 0;

    // Primary: the highest op each replica has acknowledged; how to answer each client.
    this.acked = new Array(this.n).fill(0);
    // Primary: when each backup last acknowledged anything in this view (serving reads needs f recent ones).
    this.heardAt = new Array(this.n).fill(-Infinity);
    /** @type {Map<string, (message: any) => void>} */
    this.routes = new Map();
    this.lastSent = 0;
    // Backup: when the primary was last heard, and the current timeout (jittered).
    this.lastHeard = performance.now();
    this.timeout = this.jitteredTimeout();
    this.lastStateRequest = -Infinity;
    // View change.
    this.viewChangeStarted = 0;
    this.lastViewChangeSend = 0;
    /** @type {Set<number>} */
    this.svcVotes = new Set();
    /** @type {Map<number, any>} */
    this.dvcs = new Map();
    this.dvcSent = undefined;
    // Recovery.
    this.nonce = undefined;
    /** @type {Map<number, any>} */
    this.recoveryResponses = new Map();
    this.lastRecoverySend = -Infinity;

    this.links = this.replicas.map((_, i) =>
      i === this.index ? undefined : new Link(() => this.replicas[i], (message) => this.onMessage(message, undefined), { tls: options.tls }),
    );
    this.endpoint = listen(options.port ?? this.replicas[this.index].port, options.listenHost, (message, reply) => this.onMessage(message, reply), options.tls);
    /** Resolves with the port once the replica listens. */
    this.listening = this.endpoint.listening;
    this.timer = setInterval(() => this.tick(), this.tickMs);
    if (this.status === 'recovering') this.startRecovery();
  }

  get opNumber() {
    return this.commitNumber + this.pending.length;
  }

  primaryOf(view) {
    return view % this.n;
  }

  isPrimary() {
    return this.primaryOf(this.view) === this.index;
  }

  jitteredTimeout() {
    return this.viewTimeoutMs + Math.floor(Math.random() * this.viewTimeoutMs);
  }

  /** @returns {ReplicaStatus} */
  describe() {
    return {
      id: this.id,
      status: this.status,
      view: this.view,
      opNumber: this.opNumber,
      commitNumber: this.commitNumber,
      committedTs: this.committedTs,
      commits: this.commits,
      incarnation: this.incarnation,
    };
  }

  /** Tells the observer about a protocol step (view changes, state adoption, recovery). */
  event(kind, detail = {}) {
    this.observer.onEvent?.(this.id, kind, { view: this.view, opNumber: this.opNumber, commitNumber: this.commitNumber, ...detail });
  }

  send(to, message) {
    if (to === this.index) return this.onMessage(message, undefined);
    this.links[to]?.send({ ...message, from: this.index });
  }

  broadcast(message) {
    for (let i = 0; i < this.n; i++) if (i !== this.index) this.links[i].send({ ...message, from: this.index });
  }

  // ---------------------------------------------------------------- state snapshots

  /** @returns {Snapshot} */
  snapshot() {
    return {
      store: [...this.store],
      clientTable: [...this.clientTable],
      commitNumber: this.commitNumber,
      committedTs: this.committedTs,
      commits: this.commits,
    };
  }

  /**
   * Replaces the state with a snapshot and its log suffix, then executes up to `commitTo`.
   * Ops this replica already knew to be committed stay committed (they are in any log VR can
   * choose), so the commit number never goes back.
   */
  adopt(snapshot, suffix, commitTo, from) {
    const knownCommitted = this.commitNumber;
    this.store = new Map(snapshot.store);
    this.clientTable = new Map(snapshot.clientTable);
    this.commitNumber = snapshot.commitNumber;
    this.committedTs = snapshot.committedTs;
    this.commits = snapshot.commits;
    this.pending = suffix.slice();
    this.executeUpTo(Math.max(commitTo, knownCommitted));
    this.event('adopt', { from: from, snapshotAt: snapshot.commitNumber, suffix: suffix.length, knownCommitted });
  }

  /** Executes pending ops up to `k` (bounded by what this replica holds). */
  executeUpTo(k) {
    while (this.commitNumber < k && this.pending.length > 0) {
      const entry = this.pending.shift();
      const opNumber = this.commitNumber + 1;
      this.commitNumber = opNumber;
      const seen = this.clientTable.get(entry.clientId);
      if (!this.bugs.noDedup && seen !== undefined && seen.requestNumber >= entry.requestNumber) continue; // a duplicate: never re-executed
      const result = executeTxn(this.store, entry.op, opNumber);
      if (result.committed) {
        this.committedTs = Math.max(this.committedTs, result.ts);
        this.commits++;
      }
      this.clientTable.set(entry.clientId, { requestNumber: entry.requestNumber, result });
      this.observer.onExecute?.(this.id, opNumber, entry, result);
      if (this.status === 'normal' && this.isPrimary()) this.reply(entry.clientId, entry.requestNumber, result);
    }
  }

  reply(clientId, requestNumber, result) {
    this.routes.get(clientId)?.({ type: 'reply', clientId, requestNumber, view: this.view, result });
  }

  // ---------------------------------------------------------------- timers

  tick() {
    const now = performance.now();
    if (this.status === 'recovering') {
      if (now - this.lastRecoverySend >= 200) this.sendRecovery();
      return;
    }
    if (this.status === 'view-change') {
      if (now - this.viewChangeStarted > this.timeout) return this.startViewChange(this.view + 1);
      if (now - this.lastViewChangeSend >= 100) this.resendViewChange();
      return;
    }
    if (this.isPrimary()) {
      if (now - this.lastSent >= this.heartbeatMs) {
        this.lastSent = now;
        this.broadcast({ type: 'commit', view: this.view, commitNumber: this.commitNumber, opNumber: this.opNumber });
      }
    } else if (now - this.lastHeard > this.timeout) {
      this.startViewChange(this.view + 1);
    }
  }

  // ---------------------------------------------------------------- messages

  onMessage(m, reply) {
    switch (m.type) {
      case 'request':
        return this.onRequest(m, reply);
      case 'read':
        return this.onRead(m, reply);
      case 'recovery':
        return this.onRecovery(m);
      case 'recoveryResponse':
        return this.onRecoveryResponse(m);
    }
    if (this.status === 'recovering') return; // a recovering replica takes no part until recovered
    switch (m.type) {
      case 'prepare':
        return this.onPrepare(m);
      case 'prepareOk':
        return this.onPrepareOk(m);
      case 'commit':
        return this.onCommit(m);
      case 'getState':
        return this.onGetState(m);
      case 'newState':
        return this.onNewState(m);
      case 'startViewChange':
        return this.onStartViewChange(m);
      case 'doViewChange':
        return this.onDoViewChange(m);
      case 'startView':
        return this.onStartView(m);
    }
  }

  // Normal operation -----------------------------------------------------------

  onRequest(m, reply) {
    if (reply !== undefined) this.routes.set(m.clientId, reply);
    if (this.status !== 'normal' || !this.isPrimary()) {
      reply?.({ type: 'notPrimary', requestNumber: m.requestNumber, view: this.view, status: this.status });
      return;
    }
    if (!this.bugs.noDedup) {
      const seen = this.clientTable.get(m.clientId);
      if (seen !== undefined && m.requestNumber < seen.requestNumber) return; // an old request
      if (seen !== undefined && m.requestNumber === seen.requestNumber) return this.reply(m.clientId, m.requestNumber, seen.result);
      if (this.pending.some((e) => e.clientId === m.clientId && e.requestNumber === m.requestNumber)) return; // in progress
    }
    /** @type {Entry} */
    const entry = { clientId: m.clientId, requestNumber: m.requestNumber, op: { reads: m.op.reads, writes: m.op.writes } };
    this.pending.push(entry);
    const opNumber = this.opNumber;
    this.acked[this.index] = opNumber;
    this.lastSent = performance.now();
    this.broadcast({ type: 'prepare', view: this.view, opNumber, entry, commitNumber: this.commitNumber });
    this.advanceCommit();
  }

  /**
   * Whether this primary heard f backups acknowledge it within a view timeout. Not needed for
   * safety (commit validation is), but a primary cut off from its backups, which is probably
   * deposed already, stops handing out reads that could only make transactions abort.
   */
  recentQuorum() {
    const now = performance.now();
    let heard = 0;
    for (let i = 0; i < this.n; i++) if (i !== this.index && now - this.heardAt[i] < this.viewTimeoutMs) heard++;
    return heard >= this.f;
  }

  onRead(m, reply) {
    if (reply === undefined) return;
    // The staleReads bug: "the primary's reads are current", so it serves them whatever it hears,
    // and even in the middle of a view change.
    const serving = this.bugs.staleReads
      ? this.status !== 'recovering' && this.isPrimary()
      : this.status === 'normal' && this.isPrimary() && this.recentQuorum();
    if (!serving) return reply({ type: 'notPrimary', reqId: m.reqId, view: this.view, status: this.status });
    const held = this.store.get(m.key);
    reply({ type: 'readReply', reqId: m.reqId, key: m.key, value: held?.value ?? null, version: held?.version ?? 0, view: this.view });
  }

  /** The primary commits the highest op that f+1 replicas (itself included) hold. */
  advanceCommit() {
    // f PrepareOKs from backups, plus the primary itself. (The ackBeforeQuorum bug counts the
    // primary as one of the f: with n = 3 it commits, executes and replies on its own.)
    const needed = this.bugs.ackBeforeQuorum ? this.f : this.f + 1;
    const sorted = this.acked.slice().sort((a, b) => b - a);
    const k = Math.min(sorted[needed - 1] ?? 0, this.opNumber);
    if (k > this.commitNumber) this.executeUpTo(k);
  }

  onPrepareOk(m) {
    if (m.view !== this.view || this.status !== 'normal' || !this.isPrimary()) return;
    this.acked[m.from] = Math.max(this.acked[m.from], m.opNumber);
    this.heardAt[m.from] = performance.now();
    this.advanceCommit();
  }

  /** A message from the primary of a view this replica is not (normally) in: fetch its state. */
  behind(m) {
    const now = performance.now();
    if (now - this.lastStateRequest < 100) return;
    this.lastStateRequest = now;
    this.send(m.from, { type: 'getState', view: m.view, opNumber: this.opNumber });
  }

  fromCurrentPrimary(m) {
    if (m.view > this.view || (m.view === this.view && this.status === 'view-change')) {
      this.behind(m);
      return false;
    }
    if (m.view < this.view || this.isPrimary()) return false;
    this.lastHeard = performance.now();
    return true;
  }

  onPrepare(m) {
    if (!this.fromCurrentPrimary(m)) return;
    if (m.opNumber === this.opNumber + 1) this.pending.push(m.entry);
    else if (m.opNumber > this.opNumber + 1) return this.behind(m); // a gap: state transfer
    this.send(m.from, { type: 'prepareOk', view: this.view, opNumber: this.opNumber });
    this.executeUpTo(m.commitNumber);
  }

  onCommit(m) {
    if (!this.fromCurrentPrimary(m)) return;
    this.executeUpTo(m.commitNumber);
    if (m.opNumber > this.opNumber || m.commitNumber > this.opNumber) return this.behind(m);
    // Every heartbeat is acknowledged: a lost PrepareOK is repaired, and the primary knows it is heard.
    this.send(m.from, { type: 'prepareOk', view: this.view, opNumber: this.opNumber });
  }

  onGetState(m) {
    if (this.status !== 'normal' || !this.isPrimary() || m.view > this.view) return;
    this.send(m.from, { type: 'newState', view: this.view, opNumber: this.opNumber, commitNumber: this.commitNumber, snapshot: this.snapshot(), suffix: this.pending });
  }

  onNewState(m) {
    if (m.view < this.view) return;
    if (m.view === this.view && this.status === 'normal' && m.opNumber <= this.opNumber) return;
    this.enterView(m.view);
    this.adopt(m.snapshot, m.suffix, m.commitNumber, `newState from ${this.replicas[m.from]?.id}`);
    this.lastHeard = performance.now();
    if (this.opNumber > this.commitNumber) this.send(this.primaryOf(this.view), { type: 'prepareOk', view: this.view, opNumber: this.opNumber });
  }

  /** Becomes a normal replica of `view`. */
  enterView(view) {
    this.view = view;
    this.lastNormalView = view;
    this.status = 'normal';
    this.svcVotes = new Set();
    this.dvcs = new Map();
    this.dvcSent = undefined;
    this.timeout = this.jitteredTimeout();
    this.lastHeard = performance.now();
  }

  // View change ------------------------------------------------------------------

  startViewChange(view) {
    this.view = view;
    this.status = 'view-change';
    this.viewChangeStarted = performance.now();
    this.timeout = this.jitteredTimeout();
    this.svcVotes = new Set([this.index]);
    this.dvcs = new Map();
    this.dvcSent = undefined;
    this.broadcast({ type: 'startViewChange', view });
    this.event('view-change');
    this.lastViewChangeSend = performance.now();
    this.maybeSendDoViewChange();
  }

  resendViewChange() {
    this.lastViewChangeSend = performance.now();
    this.broadcast({ type: 'startViewChange', view: this.view });
    if (this.dvcSent !== undefined && this.primaryOf(this.view) !== this.index) this.send(this.primaryOf(this.view), this.dvcSent);
  }

  onStartViewChange(m) {
    if (m.view < this.view) return;
    if (m.view > this.view) this.startViewChange(m.view);
    if (this.status !== 'view-change' || m.view !== this.view) {
      // Already normal in this view (a late vote): tell the voter where things are.
      if (this.status === 'normal' && this.isPrimary()) this.sendStartView(m.from);
      return;
    }
    this.svcVotes.add(m.from);
    this.maybeSendDoViewChange();
  }

  maybeSendDoViewChange() {
    if (this.dvcSent !== undefined || this.svcVotes.size < this.f + 1) return;
    this.dvcSent = {
      type: 'doViewChange',
      view: this.view,
      lastNormalView: this.lastNormalView,
      opNumber: this.opNumber,
      commitNumber: this.commitNumber,
      snapshot: this.snapshot(),
      suffix: this.pending,
      from: this.index,
    };
    this.send(this.primaryOf(this.view), this.dvcSent);
  }

  onDoViewChange(m) {
    if (m.view < this.view) return;
    if (m.view > this.view) this.startViewChange(m.view);
    if (this.status === 'normal' && m.view === this.view) {
      if (this.isPrimary()) this.sendStartView(m.from);
      return;
    }
    if (this.primaryOf(m.view) !== this.index) return;
    this.svcVotes.add(m.from);
    this.dvcs.set(m.from, m);
    this.maybeSendDoViewChange();
    if (this.dvcs.size < this.f + 1 || !this.dvcs.has(this.index)) return;
    // The new log: the one with the highest (last normal view, op-number). The noLongestLog bug
    // keeps the new primary's own log.
    const all = [...this.dvcs.values()];
    let best = this.dvcs.get(this.index);
    if (!this.bugs.noLongestLog) {
      for (const d of all) {
        if (d.lastNormalView > best.lastNormalView || (d.lastNormalView === best.lastNormalView && d.opNumber > best.opNumber)) best = d;
      }
    }
    const commitTo = Math.max(...all.map((d) => d.commitNumber));
    this.enterView(m.view);
    this.adopt(best.snapshot, best.suffix, commitTo, `doViewChange log of ${this.replicas[best.from]?.id} (last normal view ${best.lastNormalView}, op ${best.opNumber})`);
    this.event('primary', { dvcs: all.map((d) => `${this.replicas[d.from]?.id}:${d.lastNormalView}/${d.opNumber}/${d.commitNumber}`).join(' ') });
    this.acked = new Array(this.n).fill(0);
    this.acked[this.index] = this.opNumber;
    this.heardAt = new Array(this.n).fill(-Infinity);
    for (let i = 0; i < this.n; i++) if (i !== this.index) this.sendStartView(i);
    this.lastSent = performance.now();
  }

  sendStartView(to) {
    this.send(to, { type: 'startView', view: this.view, opNumber: this.opNumber, commitNumber: this.commitNumber, snapshot: this.snapshot(), suffix: this.pending });
  }

  onStartView(m) {
    if (m.view < this.view || (m.view === this.view && this.status === 'normal')) return;
    this.enterView(m.view);
    this.adopt(m.snapshot, m.suffix, m.commitNumber, `startView from ${this.replicas[m.from]?.id}`);
    if (this.opNumber > this.commitNumber) this.send(m.from, { type: 'prepareOk', view: this.view, opNumber: this.opNumber });
  }

  // Recovery ---------------------------------------------------------------------

  startRecovery() {
    this.nonce = randomUUID();
    this.recoveryResponses = new Map();
    this.sendRecovery();
  }

  sendRecovery() {
    this.lastRecoverySend = performance.now();
    this.broadcast({ type: 'recovery', nonce: this.nonce });
  }

  onRecovery(m) {
    if (this.status !== 'normal' || m.from === undefined) return;
    const response = { type: 'recoveryResponse', view: this.view, nonce: m.nonce };
    if (this.isPrimary()) Object.assign(response, { opNumber: this.opNumber, commitNumber: this.commitNumber, snapshot: this.snapshot(), suffix: this.pending });
    this.send(m.from, response);
  }

  onRecoveryResponse(m) {
    if (this.status !== 'recovering' || m.nonce !== this.nonce) return;
    this.recoveryResponses.set(m.from, m);
    if (this.recoveryResponses.size < this.f + 1) return;
    const responses = [...this.recoveryResponses.values()];
    const view = Math.max(...responses.map((r) => r.view));
    const primary = responses.find((r) => r.view === view && r.from === this.primaryOf(view) && r.snapshot !== undefined);
    if (primary === undefined) return;
    this.enterView(view);
    this.adopt(primary.snapshot, primary.suffix, primary.commitNumber, `recoveryResponse from ${this.replicas[primary.from]?.id}`);
    this.nonce = undefined;
    this.event('recovered');
    if (this.opNumber > this.commitNumber) this.send(primary.from, { type: 'prepareOk', view: this.view, opNumber: this.opNumber });
  }

  // ---------------------------------------------------------------- lifecycle

  async close() {
    clearInterval(this.timer);
    for (const link of this.links) link?.close();
    await this.endpoint.close();
  }
}

/**
 * Starts a replica: it listens on `port` (default: its own entry of `replicas`; 0 for an
 * ephemeral port, then read `await replica.listening` and fill it into the shared `replicas`
 * entries: peers read their addresses at each connect).
 * @param {ReplicaOptions} options
 */
export function startReplica(options) {
  const replica = new Replica(options);
  return {
    id: replica.id,
    listening: replica.listening,
    /** @returns {ReplicaStatus} */
    status: () => replica.describe(),
    close: () => replica.close(),
    /** The replica object itself, for white-box tests. */
    replica,
  };
}
