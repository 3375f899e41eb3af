// The README's demo: three simulated hosts run a lease-based leader election for one virtual
// hour, over a shared "store" whose every access takes a random latency. Clock skew on one host
// makes leases overlap now and then: the run reports each overlap with the virtual time it
// happened. Then the same seed runs again and must give the same fingerprint, and the seed is
// printed so any run can be replayed exactly:
//
//   npm run demo:lease                 # a fresh seed each time
//   DST_SEED=0x2a npm run demo:lease   # replay one
import { Sim } from 'dst-runtime';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

const LEASE_MS = 2_000;
const HOUR_MS = 3_600_000;

function buildSim(seed) {
  const sim = new Sim({ seed, durationMs: HOUR_MS });
  const store = { holder: undefined, expiresAtMs: 0 }; // shared memory standing in for a database
  const changes = [];
  const overlaps = [];
  const believes = new Map(); // host name -> does it believe it holds the lease right now?

  // Every store access takes 1-40 ms of virtual time, drawn from the calling host's stream.
  const latency = () => sleep(1 + Math.floor(Math.random() * 40));

  const node = (name) => async () => {
    const id = `${name}/${randomUUID().slice(0, 8)}`;
    let leaseUntilMs = 0; // by this host's own (possibly skewed) clock
    setInterval(async () => {
      believes.set(name, Date.now() < leaseUntilMs);
      const leaders = [...believes].filter(([, yes]) => yes).map(([n]) => n);
      if (leaders.length > 1) overlaps.push({ atMs: Math.round(performance.now()), who: leaders.join(' + ') });
      if (Date.now() < leaseUntilMs - LEASE_MS / 2) return; // fresh enough: no renewal yet
      await latency();
      // Read, then write later: not atomic, a real race, made worse by n3's skewed clock.
      if (store.expiresAtMs <= Date.now() || store.holder === id) {
        await latency();
        if (store.holder !== id) changes.push(`${(performance.now() / 1000).toFixed(3).padStart(9)} s  ${id} takes the lease`);
        store.holder = id;
        store.expiresAtMs = Date.now() + LEASE_MS;
        leaseUntilMs = Date.now() + LEASE_MS;
      }
    }, 250 + Math.floor(Math.random() * 100));
  };

  sim.host('n1', node('n1'));
  sim.host('n2', node('n2'));
  sim.host('n3', node('n3'), { skewMs: 700 }); // n3's wall clock runs 700 ms ahead
  return { sim, events: changes, overlaps };
}

const first = buildSim(process.env.DST_SEED);
const result = await first.sim.run();
const again = buildSim(result.seed);
const replay = await again.sim.run();

console.log(`dst-runtime demo: 3 hosts, lease election, ${HOUR_MS / 60_000} virtual minutes\n`);
console.log(first.events.slice(0, 8).join('\n'));
if (first.events.length > 8) console.log(`   ... ${first.events.length - 8} more changes of leader`);
console.log(`\nmoments two hosts both believed they held the lease: ${first.overlaps.length}`);
if (first.overlaps.length > 0) console.log(`  first at ${first.overlaps[0].atMs} ms virtual: ${first.overlaps[0].who}`);
console.log(`\nseed         ${result.seed}`);
console.log(`fingerprint  ${result.fingerprint}   (replayed: ${replay.fingerprint} ${replay.fingerprint === result.fingerprint ? 'identical' : 'DIFFERENT'})`);
console.log(`virtual time ${(result.elapsedNs / 1e9).toFixed(3)} s in ${result.events} events`);
console.log(`replay       DST_SEED=${result.seed} npm run demo:lease`);
if (replay.fingerprint !== result.fingerprint) process.exitCode = 1;
