// Builds the KV store's scenarios: three replicas (function hosts r1..r3, the fault targets)
// and client hosts running transaction load, with white-box safety invariants (an oracle of the
// committed log fed by every replica's executions) and end-of-run liveness invariants.
//
// Planted bugs: DST_KV_BUG=name[,name] (ackBeforeQuorum, noLongestLog, noDedup, staleReads).
// The dst CLI puts DST_* variables into its replay commands, so a replay carries the switch.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineScenario, importDst, sometimes, tlsCertificates } from './dst.mjs';
import { bugsFromEnv, KvClient, startReplica } from '../../src/index.mjs';

export const REPLICA_NAMES = ['r1', 'r2', 'r3'];
const PORT = 7000;
const REPLICAS = REPLICA_NAMES.map((id) => ({ id, host: id, port: PORT }));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The external history checker (another package of dst-runtime: `dst-runtime/check`). It is
// loaded once, when the scenario module loads; when it is missing the Serializable invariant
// fails and says so, unless DST_KV_CHECKER=off (then only the store-specific oracle below runs).
// DST_KV_CHECKER=/path/to/check.mjs loads that build of it instead.
let checker;
try {
  const setting = process.env.DST_KV_CHECKER;
  checker = setting && setting !== 'off' ? await import(pathToFileURL(path.resolve(setting)).href) : await importDst('check');
} catch (error) {
  checker = { missing: `${error.code ?? ''} ${error.message}`.trim() };
}

/**
 * Virtual time since the start of the run, in ms, from inside any host: performance.now() counts
 * from the host's boot (a restarted host starts again from zero) and performance.timeOrigin is
 * the wall clock at that boot, on the simulation's epoch (2025-01-01T00:00:00Z by default).
 */
const EPOCH_MS = Date.UTC(2025, 0, 1);
const virtualMs = () => performance.timeOrigin - EPOCH_MS + performance.now();
/** The same in ns, for the history records. */
const nowNs = () => Math.round(virtualMs() * 1e6);

/** Records a violation found inside host code for the safety invariant to report. */
function violate(ctx, message) {
  if (ctx.state.violations.length < 10) ctx.state.violations.push(message);
}

/** DST_KV_LOG=1: print faults and every replica's protocol steps (view changes, state adoption, recovery) on stderr. */
const LOG = process.env.DST_KV_LOG === '1';
const log = (host, text) => console.error(`${(virtualMs() / 1000).toFixed(6).padStart(10)}s  ${host.padEnd(5)} ${text}`);

/** With DST_KV_LOG=1, the fault driver's actions are printed as they happen. */
function logFaults(sim) {
  for (const verb of ['crash', 'restart', 'bounce', 'stop', 'pause', 'resume', 'partition', 'repair', 'hold', 'release']) {
    const original = sim[verb];
    sim[verb] = function (...args) {
      log('chaos', `${verb} ${args.filter((a) => typeof a === 'string').join(' ')}${args.some((a) => a?.oneway) ? ' (one-way)' : ''}`);
      return original.apply(this, args);
    };
  }
}

/** The oracle: every replica's executions, checked against each other as they happen. */
function observer(ctx) {
  const oracle = ctx.state.oracle;
  return {
    onEvent: LOG ? (replicaId, event, detail) => log(replicaId, `${event} ${JSON.stringify(detail)}`) : undefined,
    onExecute(replicaId, opNumber, entry, result) {
      const digest = JSON.stringify([entry.clientId, entry.requestNumber, entry.op, result]);
      const known = oracle.log.get(opNumber);
      if (known === undefined) {
        oracle.log.set(opNumber, { digest, entry, result, by: replicaId });
        if (result.committed) {
          for (const [key, value] of entry.op.writes) {
            const list = oracle.writes.get(key) ?? [];
            list.push([opNumber, value]);
            oracle.writes.set(key, list);
          }
        }
      } else if (known.digest !== digest) {
        violate(ctx, `CommittedLogAgrees: op ${opNumber} executed as ${known.digest} at ${known.by} but as ${digest} at ${replicaId}`);
      }
      const request = `${entry.clientId}#${entry.requestNumber}`;
      const at = oracle.requests.get(request);
      if (at === undefined) oracle.requests.set(request, opNumber);
      else if (at !== opNumber) violate(ctx, `ExecutedOnce: request ${request} executed as op ${at} and again as op ${opNumber} (at ${replicaId})`);
    },
  };
}

/** A host's TLS identity: its certificate and key from the running simulation's seed, and the CA. */
function tlsIdentity(name) {
  const pki = tlsCertificates();
  return { ca: pki.ca, cert: pki.cert(name), key: pki.key(name) };
}

/** A replica host: the first boot starts normal in view 0, every later boot recovers from its peers. */
function replicaHost(ctx, index, bugs, secure) {
  const id = REPLICA_NAMES[index];
  return () => {
    const tls = secure ? tlsIdentity(id) : undefined;
    ctx.state.boots[id] = (ctx.state.boots[id] ?? 0) + 1;
    const recover = ctx.state.boots[id] > 1;
    const replica = startReplica({ id, index, replicas: REPLICAS, port: PORT, bugs, recover, observer: observer(ctx), tls });
    ctx.state.replicas[id] = replica;
    if (recover) {
      const started = performance.now();
      const watch = setInterval(() => {
        if (replica.status().status === 'normal') {
          clearInterval(watch);
          sometimes(true, 'a restarted replica recovered');
          ctx.state.recoveries.push(performance.now() - started);
        }
      }, 10);
    }
  };
}

/** A client host: transactions one after the other over `keys`, each recorded in ctx.state.history. */
function clientHost(ctx, name, load, bugs, secure) {
  return async () => {
    const tls = secure ? tlsIdentity(name) : undefined;
    const kv = new KvClient({ replicas: REPLICAS, clientId: `${name}-${randomUUID().slice(0, 8)}`, deadlineMs: load.deadlineMs ?? 2000, attemptTimeoutMs: 200, bugs, tls });
    const keys = load.keys;
    const pick = () => keys[Math.floor(Math.random() * keys.length)];
    const distinct = (count) => {
      const chosen = new Set();
      while (chosen.size < Math.min(count, keys.length)) chosen.add(pick());
      return [...chosen];
    };
    for (let n = 1; ; n++) {
      const roll = Math.random();
      const kind = roll < load.readWrite ? 'rw' : roll < load.readWrite + load.readOnly ? 'ro' : 'w';
      const readKeys = kind === 'w' ? [] : distinct(kind === 'ro' ? 2 + Math.floor(Math.random() * 2) : 1 + Math.floor(Math.random() * 2));
      const writeKeys = kind === 'ro' ? [] : distinct(1 + Math.floor(Math.random() * 2));
      // Unique across incarnations too: a restarted client (after a client crash) counts from 1 again.
      const value = `${kv.clientId}-${n}`;
      /** @type {any} */
      const record = { id: value, process: kv.clientId, invokeNs: nowNs(), status: 'unknown', ops: [] };
      ctx.state.history.push(record);
      try {
        const outcome = await kv.transaction(async (tx) => {
          for (const key of readKeys) record.ops.push({ f: 'r', key, value: await tx.get(key) });
          for (const key of writeKeys) {
            tx.put(key, value);
            record.ops.push({ f: 'w', key, value });
          }
        });
        record.completeNs = nowNs();
        if (outcome.committed) {
          record.status = 'ok';
          if (outcome.ts !== undefined) {
            record.commitTs = outcome.ts;
            ctx.state.acked.push({ clientId: kv.clientId, requestNumber: outcome.requestNumber, ts: outcome.ts, id: value });
          }
          ctx.state.commits++;
          if (ctx.phase === 'heal') ctx.state.commitsInHeal++;
        } else {
          record.status = 'fail';
          sometimes(/conflict/.test(outcome.reason), 'a transaction aborted on a conflict');
        }
      } catch (error) {
        if (error?.code !== 'KV_UNKNOWN') throw error;
        sometimes(true, 'a commit had an unknown outcome (KV_UNKNOWN)');
        // status stays 'unknown', no completeNs
      }
      if (load.thinkMs > 0) await sleep(Math.floor(Math.random() * load.thinkMs));
    }
  };
}

/**
 * Whether a replica's current incarnation is running AND has published its replica object:
 * right after sim.restart() the host is 'running' but its main has not run yet, and
 * ctx.state.replicas still holds the crashed incarnation's object (frozen, 'normal').
 */
const running = (ctx, name) => {
  const status = ctx.sim.status(name);
  return status.state === 'running' && ctx.state.boots[name] === status.incarnation;
};
const liveReplicas = (ctx) => REPLICA_NAMES.filter((r) => running(ctx, r) && ctx.state.replicas[r] !== undefined);

// ------------------------------------------------------------------ invariants

function noViolationInHosts(ctx) {
  return ctx.state.violations.length === 0 || ctx.state.violations.join('; ');
}

/** Per replica incarnation, commitNumber and committedTs never go back; and a committed op is never lost from the cluster. */
function committedNeverRegresses(ctx) {
  const seen = ctx.state.seen;
  let heldByLive = 0;
  for (const name of liveReplicas(ctx)) {
    const s = ctx.state.replicas[name].status();
    const last = seen.get(s.incarnation);
    if (last !== undefined && (s.commitNumber < last.commitNumber || s.committedTs < last.committedTs)) {
      return `CommittedNeverRegresses: ${name} went from commitNumber ${last.commitNumber}/committedTs ${last.committedTs} to ${s.commitNumber}/${s.committedTs} (${s.status}, view ${s.view})`;
    }
    seen.set(s.incarnation, { commitNumber: s.commitNumber, committedTs: s.committedTs });
    sometimes(s.view > 0, 'a view change happened');
    ctx.state.maxCommitted = Math.max(ctx.state.maxCommitted, s.commitNumber);
    if (s.status !== 'recovering') heldByLive = Math.max(heldByLive, s.opNumber);
  }
  if (heldByLive < ctx.state.maxCommitted && liveReplicas(ctx).filter((r) => ctx.state.replicas[r].status().status !== 'recovering').length >= 2) {
    return `CommittedNeverRegresses: op ${ctx.state.maxCommitted} was committed, but the live replicas hold ops only up to ${heldByLive}`;
  }
  return true;
}

/** Every commit acknowledged to a client is the op the replicas executed at its timestamp. */
function ackedCommitsSurvive(ctx) {
  const { acked, oracle } = ctx.state;
  for (; ctx.state.ackedChecked < acked.length; ctx.state.ackedChecked++) {
    const a = acked[ctx.state.ackedChecked];
    const op = oracle.log.get(a.ts);
    if (op === undefined) return true; // not executed by anyone we watch yet: check again later
    if (op.entry.clientId !== a.clientId || op.entry.requestNumber !== a.requestNumber || !op.result.committed) {
      return `AckedCommitsSurvive: txn ${a.id} was acknowledged as committed at ts ${a.ts}, but op ${a.ts} is ${op.digest}`;
    }
  }
  return true;
}

function allUpNodesNormalAtEnd(ctx) {
  const bad = liveReplicas(ctx).map((r) => ctx.state.replicas[r].status()).filter((s) => s.status !== 'normal');
  return bad.length === 0 || `AllUpNodesNormalAtEnd: ${bad.map((s) => `${s.id} is ${s.status} in view ${s.view}`).join(', ')}`;
}

function connectedNodesAgreeOnViewAtEnd(ctx) {
  const views = liveReplicas(ctx).map((r) => `${r}:${ctx.state.replicas[r].status().view}`);
  return new Set(views.map((v) => v.split(':')[1])).size <= 1 || `ConnectedNodesAgreeOnViewAtEnd: views ${views.join(' ')}`;
}

function atLeastNCommits(n) {
  return function atLeastNCommits(ctx) {
    if (ctx.state.commits < n) return `AtLeastNCommits: ${ctx.state.commits} transactions committed, expected at least ${n}`;
    return ctx.state.commitsInHeal > 0 || 'AtLeastNCommits: no transaction committed during the heal phase';
  };
}

/**
 * The store-specific serializability oracle: every committed transaction's reads are the
 * committed state at one point of the op order: just before its own commit op when it was
 * validated, else (a read-only transaction that skipped validation) at some op no earlier than
 * the last commit that completed before it began (real-time order).
 */
function readsMatchASnapshot(ctx) {
  const { history, oracle } = ctx.state;
  const maxOp = Math.max(0, ...oracle.log.keys());
  const valueAt = (key, t) => {
    let value = null;
    for (const [ts, v] of oracle.writes.get(key) ?? []) if (ts <= t) value = v;
    return value;
  };
  const completed = history.filter((h) => h.status === 'ok' && h.commitTs !== undefined).sort((a, b) => a.completeNs - b.completeNs);
  for (const h of history) {
    if (h.status !== 'ok') continue;
    const reads = h.ops.filter((o) => o.f === 'r');
    if (reads.length === 0) continue;
    if (h.commitTs !== undefined) {
      const bad = reads.find((r) => valueAt(r.key, h.commitTs - 1) !== r.value);
      if (bad) return `ReadsMatchASnapshot: txn ${h.id} committed at ts ${h.commitTs} read ${bad.key}=${bad.value}, but the committed value before it was ${valueAt(bad.key, h.commitTs - 1)}`;
      continue;
    }
    let lower = 0;
    for (const c of completed) if (c.completeNs < h.invokeNs) lower = Math.max(lower, c.commitTs);
    const candidates = new Set([lower]);
    for (const r of reads) for (const [ts] of oracle.writes.get(r.key) ?? []) if (ts >= lower && ts <= maxOp) candidates.add(ts);
    const fits = [...candidates].some((t) => reads.every((r) => valueAt(r.key, t) === r.value));
    if (!fits) {
      return `ReadsMatchASnapshot: read-only txn ${h.id} read ${reads.map((r) => `${r.key}=${r.value}`).join(', ')}: no committed state at or after ts ${lower} (the last commit completed before it began) has these values`;
    }
  }
  return true;
}

/** DST_KV_HISTORY=file: write the history as JSON at the end of the run (before the liveness checks). */
function writeHistory(ctx) {
  if (process.env.DST_KV_HISTORY) writeFileSync(process.env.DST_KV_HISTORY, `${JSON.stringify(ctx.state.history)}\n`);
  return true;
}

/** The external history checker (dst-runtime/check's checkSerializable). */
function serializable(ctx) {
  if (process.env.DST_KV_CHECKER === 'off') return true;
  if (checker.checkSerializable === undefined) {
    return `Serializable: dst-runtime/check (checkSerializable) is not available (${checker.missing ?? 'no checkSerializable export'}); build it, or set DST_KV_CHECKER=off to run only the store's own oracle`;
  }
  // Versions are installed in commit-timestamp (op-number) order, and that order respects real time.
  const verdict = checker.checkSerializable(ctx.state.history, { strictCommitTs: true });
  if (verdict.valid === true) return true;
  if (verdict.valid === 'unknown') {
    sometimes(true, `the serializability checker could not decide: ${verdict.reason}`);
    return true;
  }
  const text = checker.formatCheckResult?.(verdict) ?? verdict.message ?? JSON.stringify(verdict);
  return `Serializable: ${String(text).slice(0, 3000)}`;
}

/**
 * @param {{ name: string, clients: number, keys: string[], load: { readWrite: number, readOnly: number, thinkMs: number, deadlineMs?: number },
 *   faults: object, durationMs?: number, healMs?: number, minCommits?: number, bugs?: import('../../src/replica.mjs').Bugs, tls?: boolean }} spec
 *   bugs: planted bugs; default from DST_KV_BUG. tls: every link is TLS with client certificates
 *   (mTLS), each host's from tlsCertificates() (the run's seed).
 */
export function kvScenario(spec) {
  const bugs = spec.bugs ?? bugsFromEnv(process.env.DST_KV_BUG);
  const bugNames = Object.keys(bugs);
  return defineScenario({
    name: bugNames.length === 0 ? spec.name : `${spec.name} (planted bug: ${bugNames.join(', ')})`,
    hosts(sim, ctx) {
      Object.assign(ctx.state, {
        replicas: {},
        boots: {},
        history: [],
        acked: [],
        ackedChecked: 0,
        commits: 0,
        commitsInHeal: 0,
        recoveries: [],
        violations: [],
        seen: new Map(),
        maxCommitted: 0,
        oracle: { log: new Map(), writes: new Map(), requests: new Map() },
      });
      if (LOG) logFaults(ctx.sim);
      REPLICA_NAMES.forEach((_, index) => sim.host(REPLICA_NAMES[index], replicaHost(ctx, index, bugs, spec.tls === true)));
      for (let c = 1; c <= spec.clients; c++) sim.host(`c${c}`, clientHost(ctx, `c${c}`, { keys: spec.keys, ...spec.load }, bugs, spec.tls === true));
    },
    targets: REPLICA_NAMES,
    // Client crashes (faults.clientCrashPerSecond) apply to the client hosts: a crashed client
    // leaves its transaction in flight as 'unknown' in the history, and its next incarnation
    // starts over with a new client id.
    clients: Array.from({ length: spec.clients }, (_, i) => `c${i + 1}`),
    durationMs: spec.durationMs ?? 30_000,
    healMs: spec.healMs ?? 6_000,
    faults: {
      downMsMin: 100,
      downMsMax: 2_000,
      ...spec.faults,
      // VR without a disk survives f = 1 replica without its state at a time: crash (or bounce)
      // only while every replica is up and normal, i.e. the last restarted one has recovered.
      crashWhen: (ctx) => REPLICA_NAMES.every((r) => running(ctx, r) && ctx.state.replicas[r]?.status().status === 'normal'),
    },
    // DST_KV_WHITEBOX=off keeps only what a black box shows: liveness and the history checker
    // (to measure what checkSerializable alone finds).
    invariants:
      process.env.DST_KV_WHITEBOX === 'off'
        ? { liveness: [writeHistory, allUpNodesNormalAtEnd, connectedNodesAgreeOnViewAtEnd, atLeastNCommits(spec.minCommits ?? 50), serializable] }
        : {
            safety: [noViolationInHosts, committedNeverRegresses, ackedCommitsSurvive],
            liveness: [writeHistory, allUpNodesNormalAtEnd, connectedNodesAgreeOnViewAtEnd, atLeastNCommits(spec.minCommits ?? 50), serializable, readsMatchASnapshot],
          },
  });
}
