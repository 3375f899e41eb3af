// A daemon that serves its machine over a unix domain socket (run/daemon.sock), the way
// databases, container runtimes and local agents do, and a local client on the same machine
// that asks it something every 10 ms. The machine crashes, or the daemon is killed, now and
// then, and comes back after a downtime. The disk is simulated, so the socket's file is on it,
// as in production: a crash or a kill leaves it behind.
//
// The planted bug (DST_DAEMON_BUG=1, or bug: true): the daemon listens without removing a stale
// socket file first. After its first crash or kill, listen() fails with EADDRINUSE, the daemon
// dies at every boot, and its clients are refused for good. The fix unlinks the name before
// listening (safe: one daemon per machine).
//
//   dst explore examples/scenarios/socket-daemon.mjs --seeds 100
//   DST_DAEMON_BUG=1 dst explore examples/scenarios/socket-daemon.mjs --seeds 100
import fs from 'node:fs';
import net from 'node:net';
import { defineScenario, sometimes } from 'dst-runtime';

const DIR = 'run';
const SOCK = `${DIR}/daemon.sock`;

/** The machine: the daemon and, beside it, a client that uses it through the socket. */
function machine(ctx, bug) {
  return () => {
    fs.mkdirSync(DIR, { recursive: true });
    const stale = fs.existsSync(SOCK);
    if (ctx.state.boots++ > 0) sometimes(stale, 'a restarted daemon found a stale socket file');
    if (!bug) fs.rmSync(SOCK, { force: true });
    const server = net.createServer((socket) => {
      socket.on('data', (question) => socket.end(`answer to ${question}`));
      socket.on('error', () => {});
    });
    // No 'error' listener, as many daemons have none: a failed listen kills the process.
    server.listen(SOCK);
    setInterval(() => {
      const client = net.connect(SOCK, () => client.write('ping'));
      client.on('data', () => {
        ctx.state.answered++;
        if (ctx.phase === 'heal') ctx.state.answeredInHeal++;
      });
      client.on('error', () => ctx.state.refused++);
    }, 10);
  };
}

export function socketDaemonScenario({ bug = process.env.DST_DAEMON_BUG === '1' } = {}) {
  return defineScenario({
    name: bug ? 'socket-daemon (buggy: listens over a stale socket file)' : 'socket-daemon',
    disk: 'simulated',
    hosts(sim, ctx) {
      ctx.state.boots = 0;
      ctx.state.answered = 0;
      ctx.state.answeredInHeal = 0;
      ctx.state.refused = 0;
      sim.host('box', machine(ctx, bug));
    },
    targets: ['box'],
    durationMs: 2_000,
    healMs: 500,
    faults: { crashPerSecond: 1, killPerSecond: 1, downMsMin: 10, downMsMax: 100 },
    invariants: {
      liveness: [(ctx) => ctx.state.answeredInHeal > 0 || `the daemon answered nothing after the faults (${ctx.state.refused} requests refused in all)`],
    },
  });
}

export default socketDaemonScenario();
