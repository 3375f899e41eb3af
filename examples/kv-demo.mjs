// The README's demo: the proving ground. A three-replica transactional KV store (packages/kv:
// Viewstamped Replication Revisited over plain `net`, optimistic transactions) runs unmodified
// as simulated hosts for 30 virtual seconds, with three clients, while replicas and clients
// crash, restart and get partitioned. The run is checked as it goes (safety invariants) and at
// the end (liveness, and the serializability of every transaction the clients saw), then
// replayed by seed. Then a planted bug (a new primary that keeps its own log instead of the
// longest) is switched on, found from seeds alone, and replayed.
//
//   npm run demo                       # a fresh seed each time
//   DST_SEED=0x2a npm run demo         # replay one
import { formatSeed, parseSeed, runScenario } from 'dst-runtime';
import { crashRecovery } from '../packages/kv/scenarios/crash-recovery.mjs';

const SCENARIO = 'packages/kv/scenarios/crash-recovery.mjs';
const FAULTS = ['crash', 'restart', 'bounce', 'partition'];

/** The scenario, with a window on its blackboard (ctx.state) and a count of the faults it drew. */
function observed(scenario) {
  const seen = { ctx: undefined, faults: { replicaCrash: 0, clientCrash: 0, bounce: 0, partition: 0 } };
  const wrapped = {
    ...scenario,
    hosts(sim, ctx) {
      seen.ctx = ctx;
      for (const verb of FAULTS) {
        const original = ctx.sim[verb];
        ctx.sim[verb] = function (name, ...rest) {
          if (ctx.phase === 'faults') {
            if (verb === 'crash') seen.faults[String(name).startsWith('c') ? 'clientCrash' : 'replicaCrash']++;
            else if (verb === 'bounce' || verb === 'partition') seen.faults[verb]++;
          }
          return original.call(this, name, ...rest);
        };
      }
      scenario.hosts(sim, ctx);
    },
  };
  return { scenario: wrapped, seen };
}

function describeFailure(result) {
  const f = result.failure;
  return `${f.kind}: ${f.message.split('\n')[0].slice(0, 200)}\n      at ${(f.timeNs / 1e9).toFixed(3)} s (virtual), event ${f.event}, host ${f.host ?? '-'}`;
}

const seed = formatSeed(parseSeed(process.env.DST_SEED || Math.floor(Math.random() * 2 ** 32), 'DST_SEED'));
console.log('dst-runtime demo: a 3-replica transactional KV store (packages/kv, VR Revisited over net)');
console.log('under faults for 30 virtual seconds, 3 clients, every transaction checked.\n');

const { scenario, seen } = observed(crashRecovery({ bugs: {} }));
const started = process.hrtime.bigint();
const result = await runScenario(scenario, seed, { replay: `DST_SEED=${seed} npm run demo` });
const wallS = Number(process.hrtime.bigint() - started) / 1e9;
const state = seen.ctx.state;
const history = state.history;
const count = (status) => history.filter((h) => h.status === status).length;
const views = Object.entries(state.replicas).map(([name, r]) => `${name} ${r.status().status} view ${r.status().view}`);
console.log(`seed          ${seed}`);
console.log(`transactions  ${history.length}: ${count('ok')} committed, ${count('fail')} aborted, ${count('unknown')} outcome unknown (a client crashed or timed out)`);
console.log(
  `faults        ${seen.faults.replicaCrash} replica crashes, ${seen.faults.bounce} bounces, ${seen.faults.clientCrash} client crashes, ` +
    `${seen.faults.partition} partitions; ${state.recoveries.length} restarted replicas recovered from their peers`,
);
console.log(`at the end    ${views.join(', ')}`);
console.log(`invariants    ${result.ok ? 'ok: safety checked every 10 ms, liveness and the serializability of the history at the end' : `FAILED ${describeFailure(result)}`}`);
console.log(`fingerprint   ${result.fingerprint}   (${(result.elapsedNs / 1e9).toFixed(3)} virtual s, ${result.events} events, ${wallS.toFixed(1)} real s)`);

const again = await runScenario(crashRecovery({ bugs: {} }), seed);
console.log(`replayed      ${again.fingerprint === result.fingerprint ? 'same seed, same fingerprint' : `DIFFERENT fingerprint ${again.fingerprint}`}`);
console.log(`replay with   DST_SEED=${seed} npm run demo   (or: node cli/dst.mjs run ${SCENARIO} --seed ${seed})`);

console.log('\nNow a planted bug: noLongestLog (a new primary keeps its own log, not the longest one).');
const buggy = crashRecovery({ bugs: { noLongestLog: true } });
let found;
for (let s = 1n; s <= 50n && found === undefined; s++) {
  const r = await runScenario(buggy, s);
  if (!r.ok) found = r;
}
if (found === undefined) {
  console.log('not found in seeds 1..50');
} else {
  console.log(`found on seed  ${found.seed}: ${describeFailure(found)}`);
  const replays = [];
  for (let i = 0; i < 3; i++) replays.push((await runScenario(buggy, found.seed)).fingerprint);
  console.log(`replayed 3x   ${replays.every((f) => f === found.fingerprint) ? `the same failure each time (${found.fingerprint})` : `DIFFERENT: ${replays.join(' ')}`}`);
  console.log(`replay with   DST_KV_BUG=noLongestLog node cli/dst.mjs run ${SCENARIO} --seed ${found.seed}`);
  console.log('              add DST_KV_LOG=1 for the protocol story, DST_TRACE=trace.jsonl for every event (docs/tutorial.md)');
}
const failed = !result.ok || again.fingerprint !== result.fingerprint || found === undefined;
process.exitCode = failed ? 1 : 0;
