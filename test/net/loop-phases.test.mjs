import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Sim } from 'dst-runtime';

// What came due while a process could not run (a busy callback, a stopped or stalled process)
// runs phase by phase of Node's loop, not in the order it came due (runtime/scheduler/
// loop-phases.ts, docs/notes/node-facts.md "What runs first after a busy callback"). Each case
// runs the same exchange in plain Node (tests/net/fixtures/loop-phases-plain.mjs: a server
// process and a sender process) and simulated (two hosts), and compares the server's logs.

const PLAIN = fileURLToPath(new URL('./fixtures/loop-phases-plain.mjs', import.meta.url));
const plainLog = (mode) => JSON.parse(execFileSync(process.execPath, [PLAIN, mode], { encoding: 'utf8', timeout: 60_000 }));

/** The plain fixture's exchange as two simulated hosts; `mode` as there, plus 'stalled' (sim.stall). */
async function simulatedLog(mode, seed) {
  const log = [];
  const sim = new Sim({ seed });
  const busy = () => {
    const t = Date.now();
    while (Date.now() - t < 200);
  };
  let server;
  const sockets = [];
  sim.host('server', () => {
    server = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('data', (data) => {
        const msg = String(data);
        log.push(`data:${msg}`);
        if (msg === 'arm') {
          setTimeout(() => log.push('timer50'), 50);
          const start = () => socket.write('busy');
          if (mode === 'io') {
            start();
            busy();
          } else if (mode === 'timer') {
            setTimeout(() => { log.push('busy-timer'); start(); busy(); }, 0);
          } else if (mode === 'immediate') {
            setImmediate(() => { log.push('busy-immediate'); start(); busy(); });
          } else {
            start();
          }
        }
        if (msg === 'late') setTimeout(() => { server.close(); for (const s of sockets) s.destroy(); }, 300);
      });
    });
    server.listen(7000);
  });
  sim.client('sender', async () => {
    const connect = () => new Promise((resolve) => { const s = net.connect(7000, 'server', () => resolve(s)); });
    const late = await connect();
    const arm = await connect();
    arm.write('arm');
    await new Promise((resolve) => arm.once('data', resolve));
    if (mode === 'stopped' || mode === 'stalled') {
      if (mode === 'stopped') sim.pause('server');
      else sim.stall('server', 200);
      await new Promise((resolve) => setTimeout(resolve, 20));
      late.write('late');
      await new Promise((resolve) => setTimeout(resolve, 180));
      if (mode === 'stopped') sim.resume('server');
    } else {
      late.write('late');
    }
    await new Promise((resolve) => setTimeout(resolve, 600));
    arm.destroy();
    late.destroy();
  });
  const { fingerprint } = await sim.run();
  return { log, fingerprint };
}

describe('the order of what came due while a process could not run (Node 20, 22, 24)', function () {
  this.timeout(120_000);

  const cases = [
    // Busy in an I/O callback: the poll phase ends, then check, then the expired timer, and only
    // then the next poll reads the data that arrived first (a timeout beats a reply that came in time).
    ['io', ['data:arm', 'timer50', 'data:late']],
    // Busy in a timer: the poll phase comes next, so the data runs before the timer that expired.
    ['timer', ['data:arm', 'busy-timer', 'data:late', 'timer50']],
    // Busy in an immediate: check ends, then timers, then poll.
    ['immediate', ['data:arm', 'busy-immediate', 'timer50', 'data:late']],
    // Stopped while idle (SIGSTOP / sim.pause): epoll_wait returns EINTR, the loop runs timers first.
    ['stopped', ['data:arm', 'timer50', 'data:late']],
  ];
  for (const [mode, expected] of cases) {
    it(`${mode}: the simulated order is plain Node's`, async () => {
      const plain = plainLog(mode);
      assert.deepEqual(plain, expected, `plain Node ${process.version} itself (the fact this pins)`);
      for (const seed of [0x1, 0x2, 0x3]) {
        const first = await simulatedLog(mode, seed);
        assert.deepEqual(first.log, plain, `seed ${seed}`);
        const again = await simulatedLog(mode, seed);
        assert.equal(again.fingerprint, first.fingerprint, `seed ${seed} replays`);
      }
    });
  }

  it("a host's main function is a main script: after it was busy, the expired timer runs first, then the immediates it queued", async () => {
    // As compliance program 91-busy-main-script.cjs shows of plain Node for a CommonJS main.
    for (const seed of [0x1, 0x2]) {
      const log = [];
      const sim = new Sim({ seed });
      sim.host('a', () => {
        setTimeout(() => log.push('timer10'), 10);
        setImmediate(() => log.push('immediate-before'));
        const start = Date.now();
        while (Date.now() - start < 100);
        setImmediate(() => log.push('immediate-after'));
      });
      await sim.run();
      assert.deepEqual(log, ['timer10', 'immediate-before', 'immediate-after'], `seed ${seed}`);
    }
  });

  it('a stall of an idle host (sim.stall: a GC pause, a descheduled VM) ends as a stop does: timers first', async () => {
    for (const seed of [0x1, 0x2, 0x3]) {
      assert.deepEqual((await simulatedLog('stalled', seed)).log, ['data:arm', 'timer50', 'data:late'], `seed ${seed}`);
    }
  });
});
