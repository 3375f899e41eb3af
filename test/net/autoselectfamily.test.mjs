/**
 * Node's happy-eyeballs attempt timer on virtual time. With autoSelectFamily (the default) and a
 * lookup answering several addresses, net.js arms its attempt timer with the real setTimeout it
 * took when it loaded; the simulation adopts that timer (shims/net/net-attempt-timer.ts). Before,
 * an unreachable first address held the connect for the whole TCP timeout (then 30 s virtual) and
 * strict mode could stop the run for the real timer. (Server: host 0, 10.0.0.1; 192.0.2.1
 * belongs to no simulated host, so a SYN sent there is lost.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { Sim } from 'dst-runtime';

const PORT = 7100;

function attempt(addresses, attemptMs) {
  return new Promise((resolve) => {
    const events = [];
    const start = performance.now();
    const lookup = (hostname, options, cb) => {
      const all = addresses.map((address) => ({ address, family: net.isIP(address) }));
      process.nextTick(() => cb(null, all));
    };
    const socket = net.connect({ host: 'multi.test', port: PORT, lookup, autoSelectFamily: true, autoSelectFamilyAttemptTimeout: attemptMs });
    socket.on('connectionAttemptTimeout', (address) => events.push(`timeout ${address} at ${performance.now() - start} ms`));
    socket.on('connect', () => {
      events.push(`connect ${socket.remoteAddress}`);
      socket.destroy();
    });
    socket.on('error', (error) => events.push(`error ${error.code}`));
    socket.on('close', () => resolve({ events, ms: performance.now() - start }));
  });
}

describe('autoSelectFamily: the attempt timer runs on virtual time (strict mode, seed 0x7c9)', function () {
  this.timeout(60_000);

  it('an unreachable first address is left after the attempt timeout, not the TCP timeout', async () => {
    const sim = new Sim({ seed: 0x7c9, strict: true });
    sim.host('server', () => net.createServer((s) => s.end()).listen(PORT));
    let result;
    sim.client('client', async () => {
      // 192.0.2.1 belongs to no simulated host: its SYN is lost. The server's address answers.
      result = await attempt(['192.0.2.1', '10.0.0.1'], 250);
    });
    const run = await sim.run();
    assert.equal(result.events[0], 'timeout 192.0.2.1 at 250 ms');
    assert.equal(result.events[1], 'connect 10.0.0.1');
    assert.ok(result.ms > 250 && result.ms < 260, `connected after ${result.ms} ms`);
    assert.ok(run.elapsedNs < 1e9, `the run took ${run.elapsedNs} ns of virtual time`);
  });

  it('a first address that connects clears the timer: nothing waits for it', async () => {
    const sim = new Sim({ seed: 0x7c9, strict: true });
    sim.host('server', () => {
      const server = net.createServer((s) => {
        s.end();
        server.close();
      }).listen(PORT);
    });
    let result;
    // A host, not a client: the run ends when nothing ref'd is left, so a timer that was not
    // cleared would hold it for its 250 ms.
    sim.host('client', async () => {
      result = await attempt(['10.0.0.1', '192.0.2.1'], 250);
    });
    const run = await sim.run();
    assert.deepEqual(result.events, ['connect 10.0.0.1']);
    assert.ok(run.elapsedNs < 100e6, `the run took ${run.elapsedNs} ns of virtual time: the cleared timer held it`);
  });

  it('register mode: a connect made by the entry module\'s top level, before the first event, is no escape', () => {
    // The driver's first checkpoint came between the timer's birth and its adoption (a
    // nextTick), and strict mode counted it as a real timer (exit 74).
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
    const child = spawnSync(process.execPath, [
      '--import', fileURLToPath(new URL('../../dist/register.mjs', import.meta.url)),
      fileURLToPath(new URL('./fixtures/autoselectfamily-top-level.mjs', import.meta.url)),
    ], { env: { ...env, DST_SEED: '0x7c9' }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout, 'connect 127.0.0.1\n');
    assert.doesNotMatch(child.stderr, /escaped the simulation/);
  });
});
