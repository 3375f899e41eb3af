#!/usr/bin/env node
// One replica as a process: the real entry point, and a module host under the simulator
// (sim.host('r1', { main: 'packages/kv/bin/replica.mjs', env: { KV_ID: 'r1', ... } })).
//
//   KV_ID=r1 KV_REPLICAS=r1@127.0.0.1:7001,r2@127.0.0.1:7002,r3@127.0.0.1:7003 node bin/replica.mjs
//
// Settings (environment, or --id r1 --replicas ... --port 7001 --recover --bug noDedup):
//   KV_ID        this replica's id (its entry in KV_REPLICAS)
//   KV_REPLICAS  id@host:port,... in replica order (primary of view v = entry v mod n)
//   KV_PORT      port to listen on (default: its own entry's); 0 with an IPC parent: listen on
//                an ephemeral port, send { type: 'listening', port } and wait for
//                { type: 'replicas', replicas } before talking to peers
//   KV_RECOVER=1 this is a restart: run VR's recovery protocol before taking part
//   KV_BUG       planted bugs, comma-separated (ackBeforeQuorum, noLongestLog, noDedup, staleReads)
// With an IPC parent it also answers { type: 'status' } with { type: 'status', status }.
import { bugsFromEnv, startReplica } from '../src/index.mjs';

function settings(argv, env) {
  const out = { id: env.KV_ID, replicas: env.KV_REPLICAS, port: env.KV_PORT, recover: env.KV_RECOVER === '1', bug: env.KV_BUG };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--recover') out.recover = true;
    else if (['--id', '--replicas', '--port', '--bug'].includes(flag)) out[flag.slice(2)] = argv[++i];
    else throw new Error(`Unknown argument ${flag}`);
  }
  return out;
}

/** Parses "r1@host:port,r2@host:port". */
export function parseReplicas(text) {
  return String(text ?? '')
    .split(',')
    .filter(Boolean)
    .map((item) => {
      const match = /^([^@]+)@(.+):(\d+)$/.exec(item.trim());
      if (!match) throw new Error(`Failed to parse replica "${item}": expected id@host:port`);
      return { id: match[1], host: match[2], port: Number(match[3]) };
    });
}

const config = settings(process.argv.slice(2), process.env);
const replicas = parseReplicas(config.replicas);
const index = replicas.findIndex((r) => r.id === config.id);
if (index < 0) {
  console.error(`kv replica: KV_ID "${config.id}" is not in KV_REPLICAS (${config.replicas}); set both`);
  process.exit(64);
}
const port = config.port === undefined ? replicas[index].port : Number(config.port);
const replica = startReplica({ id: config.id, index, replicas, port, recover: config.recover, bugs: bugsFromEnv(config.bug) });
const actualPort = await replica.listening;

if (typeof process.send === 'function') {
  process.on('message', (message) => {
    if (message?.type === 'replicas') {
      // Update the entries in place: links read them at each (re)connect.
      for (const [i, r] of message.replicas.entries()) Object.assign(replicas[i], r);
    } else if (message?.type === 'status') {
      process.send({ type: 'status', status: replica.status() });
    }
  });
  process.send({ type: 'listening', id: config.id, port: actualPort });
} else {
  console.log(`kv replica ${config.id} listening on ${actualPort}${config.recover ? ' (recovering)' : ''}`);
}

process.on('SIGTERM', async () => {
  await replica.close();
  process.exit(0);
});
