#!/usr/bin/env node
// The store for real: three replicas as child processes on loopback (ephemeral ports), three
// clients running transactions for a bounded time (KV_REAL_SECONDS, default 5), and one replica
// killed with SIGKILL and restarted mid-run (no disk: it recovers through VR's recovery
// protocol). Prints the outcome counts and each replica's status; exits 0 when transactions
// committed and every replica ends normal in one view.
//   node packages/kv/bin/real.mjs            (npm run kv:real)
//   KV_BUG=noDedup node packages/kv/bin/real.mjs   (planted bugs reach the replicas and the clients)
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bugsFromEnv, KvClient } from '../src/index.mjs';

const REPLICA = fileURLToPath(new URL('./replica.mjs', import.meta.url));
const SECONDS = Number(process.env.KV_REAL_SECONDS ?? 5);
const ids = ['r1', 'r2', 'r3'];
const replicas = ids.map((id) => ({ id, host: '127.0.0.1', port: 0 }));
const children = new Map();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function spawnReplica(id, recover) {
  const child = fork(REPLICA, [], {
    env: { ...process.env, KV_ID: id, KV_REPLICAS: replicas.map((r) => `${r.id}@${r.host}:${r.port || 1}`).join(','), KV_PORT: '0', KV_RECOVER: recover ? '1' : '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.set(id, child);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.on('message', (m) => {
      if (m.type === 'listening') {
        replicas[ids.indexOf(id)].port = m.port;
        resolve(child);
      }
    });
  });
}

const broadcastAddresses = () => {
  for (const child of children.values()) if (child.connected) child.send({ type: 'replicas', replicas });
};

function statusOf(id) {
  const child = children.get(id);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ id, status: 'no answer' }), 1000);
    child.once('message', (m) => {
      if (m.type === 'status') {
        clearTimeout(timer);
        resolve(m.status);
      }
    });
    child.send({ type: 'status' });
  });
}

await Promise.all(ids.map((id) => spawnReplica(id, false)));
broadcastAddresses();
console.log(`kv real: replicas ${replicas.map((r) => `${r.id}@${r.port}`).join(' ')}; load for ${SECONDS} s`);

const counts = { committed: 0, aborted: 0, unavailable: 0, unknown: 0 };
let stop = false;
const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
const clients = ['c1', 'c2', 'c3'].map((name) => new KvClient({ replicas, clientId: `${name}-${process.pid}`, deadlineMs: 2000, bugs: bugsFromEnv(process.env.KV_BUG) }));
const load = clients.map(async (kv, c) => {
  for (let n = 1; !stop; n++) {
    const key = keys[Math.floor(Math.random() * keys.length)];
    try {
      const r = await kv.transaction(async (tx) => {
        const v = await tx.get(key);
        tx.put(key, `${v ?? ''}|c${c + 1}-${n}`.slice(-60));
      });
      if (r.committed) counts.committed++;
      else if (/unavailable/.test(r.reason)) counts.unavailable++;
      else counts.aborted++;
    } catch (error) {
      if (error.code !== 'KV_UNKNOWN') throw error;
      counts.unknown++;
    }
  }
});

// Mid-run: SIGKILL r2 (its memory is gone), restart it on a new port; it recovers from its peers.
await sleep(SECONDS * 400);
children.get('r2').kill('SIGKILL');
console.log(`kv real: killed r2 at ${(SECONDS * 0.4).toFixed(1)} s (${counts.committed} commits so far)`);
await sleep(500);
await spawnReplica('r2', true);
broadcastAddresses();
console.log(`kv real: restarted r2 on port ${replicas[1].port} in recovery mode`);
await sleep(SECONDS * 600 - 500);
stop = true;
await Promise.all(load);
await sleep(300); // one more Commit heartbeat reaches the backups
const statuses = await Promise.all(ids.map(statusOf));
for (const kv of clients) kv.close();
for (const child of children.values()) child.kill('SIGTERM');
console.log(`kv real: ${counts.committed} committed, ${counts.aborted} aborted on conflicts, ${counts.unavailable} unavailable, ${counts.unknown} unknown`);
for (const s of statuses) console.log(`kv real: ${s.id} ${s.status} view ${s.view} op ${s.opNumber} commit ${s.commitNumber} committedTs ${s.committedTs} commits ${s.commits}`);
const ok = counts.committed > 0 && statuses.every((s) => s.status === 'normal' && s.view === statuses[0].view);
if (!ok) console.error('kv real: FAILED (no commits, or a replica is not normal in the common view)');
process.exitCode = ok ? 0 : 1;
