// A timeout that fires during a stall, as one plain program: a primary (A) sends heartbeats to a
// backup (B) every 20 ms; B promotes itself when 100 ms pass without one. When A stalls (a GC
// pause, a descheduled VM) or its timers run late, B's timeout fires during the stall and B
// takes over — but A does not know: when it runs again it goes on serving as primary, and for a
// while there are two (split brain). The check is global (one process holds both "nodes"): A
// must never serve while B is primary.
//
// The fix (failover-fixed.mjs): a leader lease. A serves only while less than 50 ms (half of B's
// timeout) have passed, on its monotonic clock, since it SENT the last heartbeat that B
// acknowledged as backup: B cannot promote itself before 100 ms after receiving it, which is
// later. B acknowledges only while it is a backup. (A first version of this fix measured the
// first lease from when the first ACK arrived, not from when the heartbeat was sent: with a slow
// ACK the lease outlived B's timeout. `dst explore --swarm` found it at seed 0xcf, tail latency.)
// Run: dst explore examples/faults/failover-buggy.mjs --seeds 300 --swarm
import { Client, serve, sleep } from './rpc.mjs';

const HEARTBEAT_MS = 20;
const TIMEOUT_MS = 100;
const LEASE_MS = 50;
const RUN_MS = 600;

export async function main({ leased }) {
  const state = { bPrimary: false, served: { A: 0, B: 0 } };
  const started = performance.now();
  const running = () => performance.now() - started < RUN_MS;

  // B: acknowledges heartbeats; promotes itself after TIMEOUT_MS without one.
  let detector;
  const arm = () => {
    clearTimeout(detector);
    detector = setTimeout(() => {
      state.bPrimary = true;
      serveAs('B', () => running());
    }, TIMEOUT_MS);
  };
  const server = await serve(7301, () => {
    if (state.bPrimary) return { ok: false, primary: 'B' };
    arm();
    return { ok: true };
  });

  const serveAs = async (who, stillPrimary) => {
    while (running()) {
      if (!stillPrimary()) return;
      if (who === 'A' && state.bPrimary) throw new Error('split brain: A served a request as primary while B was primary');
      state.served[who]++;
      await sleep(10);
    }
  };

  // A: the primary, with its heartbeats.
  const heartbeats = new Client('A', 7301);
  let leaseUntil = -Infinity;
  const heartbeat = async () => {
    const sentAt = performance.now();
    const ack = await heartbeats.call({ op: 'heartbeat' });
    if (ack.ok) leaseUntil = Math.max(leaseUntil, sentAt + LEASE_MS);
    else if (leased) leaseUntil = -Infinity; // B took over: step down
  };
  await heartbeat();
  const beat = async () => {
    while (running()) {
      await sleep(HEARTBEAT_MS);
      await heartbeat();
    }
  };
  await Promise.all([beat(), serveAs('A', () => !leased || performance.now() < leaseUntil)]);
  heartbeats.close();
  // Let B's detector and work end with the run.
  await sleep(RUN_MS);
  clearTimeout(detector);
  server.close();
  console.log(`served: A ${state.served.A}, B ${state.served.B}`);
}
