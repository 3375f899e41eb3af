import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { Sim, STARTUP_MS } from 'dst-runtime';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A TCP echo server on port 7000 of the current host. */
function echoServer() {
  net.createServer((socket) => socket.on('data', (d) => socket.write(d))).listen(7000);
}

/** Sends `text` over `socket` and waits for the echo. */
function roundTrip(socket, text) {
  return new Promise((resolve, reject) => {
    socket.once('data', (d) => resolve(String(d)));
    socket.once('error', reject);
    socket.write(text);
  });
}

function connect(host) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(7000, host, () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('network faults (seed 0xfa)', () => {
  it('a partition stalls TCP (retransmission) and repair lets the data through', async () => {
    const log = [];
    const sim = new Sim({ seed: 0xfa });
    sim.host('server', echoServer);
    sim.client('client', async () => {
      const socket = await connect('server');
      log.push(await roundTrip(socket, 'before'));
      sim.partition('client', 'server');
      const pending = roundTrip(socket, 'during');
      setTimeout(() => sim.repair('client', 'server'), 2_000);
      log.push(await pending);
      log.push(performance.now() > 2_000 ? 'delivered after the repair' : 'delivered too early');
      socket.destroy();
    });
    await sim.run();
    assert.deepEqual(log, ['before', 'during', 'delivered after the repair']);
  });

  it('a long partition ends the connection with ETIMEDOUT', async () => {
    let error;
    const sim = new Sim({ seed: 0xfa, network: { tcpTimeoutMs: 10_000 } });
    sim.host('server', echoServer);
    sim.client('client', async () => {
      const socket = await connect('server');
      sim.partition('server');
      error = await roundTrip(socket, 'lost').then(() => undefined, (e) => e);
    });
    await sim.run();
    assert.equal(error?.code, 'ETIMEDOUT');
    assert.equal(error?.syscall, 'read');
  });

  it('ETIMEDOUT fires exactly tcpTimeoutMs after the first lost transmission: established, lost SYN, lost SYN-ACK', async () => {
    const TIMEOUT_NS = 10_000_000_000n;
    const seen = {};
    const sim = new Sim({ seed: 0xfa, network: { tcpTimeoutMs: 10_000 } });
    sim.host('server', echoServer);
    sim.host('mute', () => {
      // Its SYN-ACKs never get out (a one-way partition, below): it never accepts a connection
      // (the handshake never completes), so it never sees one.
      net.createServer(() => { seen.muteAccepted = true; }).listen(7000);
    });
    sim.client('client', async () => {
      // Established: the data segment and its retransmissions (200 ms, doubling) are lost.
      // Before the fix the connection gave up at the last retransmission, 6.2 s in.
      const socket = await connect('server');
      sim.partition('server');
      const sentAt = process.hrtime.bigint();
      const readError = await roundTrip(socket, 'lost').then(() => undefined, (e) => e);
      seen.established = { code: readError?.code, syscall: readError?.syscall, afterNs: process.hrtime.bigint() - sentAt };
      sim.repair('server');

      // A SYN to an address nobody has (1 s, doubling: the last retransmission is at 7 s).
      let start = process.hrtime.bigint();
      const nobody = await connect('10.0.0.99').then(() => undefined, (e) => e);
      seen.lostSyn = { code: nobody?.code, afterNs: process.hrtime.bigint() - start };

      // The SYN gets through but every SYN-ACK is lost: before the fix the client waited for ever.
      sim.partition('mute', 'client', { oneway: true });
      start = process.hrtime.bigint();
      const mute = await connect('mute').then(() => undefined, (e) => e);
      seen.lostSynAck = { code: mute?.code, message: mute?.message, afterNs: process.hrtime.bigint() - start };
    });
    await sim.run();
    assert.deepEqual(seen, {
      established: { code: 'ETIMEDOUT', syscall: 'read', afterNs: TIMEOUT_NS },
      lostSyn: { code: 'ETIMEDOUT', afterNs: TIMEOUT_NS },
      lostSynAck: { code: 'ETIMEDOUT', message: 'connect ETIMEDOUT 10.0.0.2:7000', afterNs: TIMEOUT_NS },
    });
  });

  it("by default Linux's deadlines: a 5-minute partition is survived, data into silence fails at 924.6 s, a connect at 127 s", async () => {
    // Found by a probe (2026-12-06): the default was 30 s, so a connection a partition of a
    // minute could not kill in production failed, and ioredis resent a request the server had
    // applied (a duplicate production would not give).
    const seen = {};
    const sim = new Sim({ seed: 0xfa });
    sim.host('server', echoServer);
    sim.client('client', async () => {
      const socket = await connect('server');
      sim.partition('client', 'server');
      const pending = roundTrip(socket, 'during');
      setTimeout(() => sim.repair('client', 'server'), 300_000);
      seen.survived = await pending.catch((e) => e.code);
      sim.partition('server');
      let start = process.hrtime.bigint();
      const lost = await roundTrip(socket, 'lost').then(() => undefined, (e) => e);
      seen.data = { code: lost?.code, afterNs: process.hrtime.bigint() - start };
      start = process.hrtime.bigint();
      const nobody = await connect('10.0.0.99').then(() => undefined, (e) => e);
      seen.connect = { code: nobody?.code, afterNs: process.hrtime.bigint() - start };
    });
    await sim.run();
    assert.deepEqual(seen, {
      survived: 'during',
      data: { code: 'ETIMEDOUT', afterNs: 924_600_000_000n },
      connect: { code: 'ETIMEDOUT', afterNs: 127_000_000_000n },
    });
  });

  it('a one-way partition drops the ACKs of the data that gets through: the sender times out, the reader hears nothing', async () => {
    // Found by a probe (2026-12-06): data that arrived counted as acknowledged, so a server
    // streaming into a one-way partition (its client's packets dropped) went on for ever, 100 MB
    // in 60 s, and never timed out; and the client, which only read, got `read ETIMEDOUT` for a
    // window update it sent, which Linux never retransmits.
    const log = [];
    let got = 0;
    let atPartition = 0;
    const sim = new Sim({ seed: 0xfa, network: { tcpTimeoutMs: 10_000 }, durationMs: 60_000 });
    sim.host('srv', () => {
      net.createServer((socket) => {
        socket.on('error', (e) => log.push(`srv ${e.code} at ${Math.round(performance.now() - STARTUP_MS) > 10_000 ? 'after' : 'before'} 10 s`));
        const chunk = Buffer.alloc(16 * 1024);
        const interval = setInterval(() => (socket.destroyed ? clearInterval(interval) : socket.write(chunk)), 10);
      }).listen(7000);
    });
    sim.client('cli', async () => {
      const socket = net.connect(7000, 'srv');
      socket.on('data', (d) => (got += d.length));
      socket.on('error', (e) => log.push(`cli ${e.code}`));
      await new Promise((resolve) => socket.on('connect', resolve));
      await sleep(1_000);
      atPartition = got;
      socket.pause();
      sim.partition('cli', 'srv', { oneway: true });
      await sleep(2_000);
      socket.resume();
      await sleep(30_000);
      log.push(`cli open: ${!socket.destroyed}`);
      socket.destroy();
    });
    await sim.run();
    assert.deepEqual(log, ['srv ETIMEDOUT at after 10 s', 'cli open: true']);
    // What the sender had sent unacknowledged when the ACKs stopped: at most its window, 256 KiB.
    assert.ok(got - atPartition <= 2 * 256 * 1024, `the client read ${got - atPartition} bytes after the partition`);
  });

  it('a process that dies loses the writes its kernel had not taken; end() delivers them all', async () => {
    // Found by a probe (2026-12-06): every write went into the network at write() (the window
    // held back completions only), so a peer got all 8 MiB written right before the server's
    // process died, where Linux sends what its buffers held and libuv's queue dies with the
    // process: the truncated-response-at-exit bug could not show.
    const SIZE = 8 * 1024 * 1024;
    async function transfer(how) {
      let got = 0;
      let ended = false;
      const sim = new Sim({ seed: 0xfa, durationMs: 60_000 });
      sim.host('srv', () => {
        net.createServer((socket) => {
          socket.on('error', () => {});
          if (how === 'end') socket.end(Buffer.alloc(SIZE, 1));
          else socket.write(Buffer.alloc(SIZE, 1));
          if (how === 'exit') setTimeout(() => process.exit(0), 50);
        }).listen(7000);
      });
      sim.client('cli', async () => {
        const socket = net.connect(7000, 'srv');
        socket.pause();
        await new Promise((resolve) => socket.on('connect', resolve));
        await sleep(100);
        if (how === 'kill') sim.kill('srv');
        await sleep(1_000);
        socket.on('data', (d) => (got += d.length));
        socket.resume();
        await new Promise((resolve) => {
          socket.on('end', () => resolve((ended = true)));
          socket.on('error', resolve);
        });
      });
      await sim.run();
      return { got, ended };
    }
    assert.deepEqual(await transfer('kill'), { got: 256 * 1024, ended: true });
    assert.deepEqual(await transfer('exit'), { got: 256 * 1024, ended: true });
    assert.deepEqual(await transfer('end'), { got: SIZE, ended: true });
  });

  it('connecting to an address outside the simulation times out, never leaves the process', async () => {
    let error;
    let at;
    const sim = new Sim({ seed: 0xfa, network: { tcpTimeoutMs: 5_000 } });
    sim.client('client', async () => {
      error = await connect('192.0.2.10').then(() => undefined, (e) => e);
      at = performance.now();
    });
    await sim.run();
    assert.equal(error?.code, 'ETIMEDOUT');
    assert.equal(error?.message, 'connect ETIMEDOUT 192.0.2.10:7000');
    assert.ok(at >= 5_000 && at < 6_000, `gave up at ${at} ms virtual`);
  });

  it('hold keeps packets and release delivers them, in order', async () => {
    const received = [];
    const sim = new Sim({ seed: 0xfa });
    sim.host('sink', () => {
      const socket = dgram.createSocket('udp4');
      socket.on('message', (msg) => received.push(`${msg} at ${performance.now() >= 1_000 ? 'after release' : 'before release'}`));
      socket.bind(9000);
    });
    sim.client('source', async () => {
      const socket = dgram.createSocket('udp4');
      await sleep(1);
      sim.hold('source', 'sink');
      for (const text of ['a', 'b', 'c']) socket.send(text, 9000, 'sink');
      await sleep(1_000);
      sim.release('source', 'sink');
      await sleep(100);
      socket.close();
    });
    await sim.run();
    assert.equal(received.length, 3);
    assert.ok(received.every((r) => r.endsWith('after release')), received.join(', '));
  });

  it('one-way partitions cut one direction only', async () => {
    const log = [];
    const sim = new Sim({ seed: 0xfa });
    for (const name of ['a', 'b']) {
      sim.host(name, () => {
        const socket = dgram.createSocket('udp4');
        socket.on('message', (msg) => log.push(`${name} got ${msg}`));
        socket.bind(9000);
        globalThis[`__send_${name}`] = (to, text) => socket.send(text, 9000, to);
      });
    }
    sim.client('driver', async () => {
      await sleep(1);
      sim.partition('a', 'b', { oneway: true });
      await new Promise((r) => setImmediate(r));
      globalThis.__send_a('b', 'a->b');
      globalThis.__send_b('a', 'b->a');
      await sleep(100);
      sim.stop('a');
      sim.stop('b');
    });
    await sim.run();
    assert.deepEqual(log, ['a got b->a']);
  });

  it('loss and duplication come from the seed: the same seed, the same deliveries', async () => {
    const run = async (seed) => {
      const got = [];
      const sim = new Sim({ seed, network: { lossRatio: 0.3, duplicateRatio: 0.2 } });
      sim.host('sink', () => {
        const socket = dgram.createSocket('udp4');
        socket.on('message', (m) => got.push(String(m)));
        socket.bind(9000);
      });
      sim.client('source', async () => {
        const socket = dgram.createSocket('udp4');
        for (let i = 0; i < 50; i++) socket.send(String(i), 9000, 'sink');
        await sleep(100);
        socket.close();
      });
      const { fingerprint } = await sim.run();
      return { got, fingerprint };
    };
    const first = await run(7);
    const again = await run(7);
    const other = await run(8);
    assert.deepEqual(first, again);
    assert.notDeepEqual(first.got, other.got);
    assert.ok(first.got.length < 60 && first.got.length > 20, `${first.got.length} deliveries of 50 sends`);
    assert.notDeepEqual(first.got, [...first.got].sort((x, y) => x - y), 'random latency reorders datagrams');
  });

  it('rejects bad fault arguments and network options with clear errors', async () => {
    assert.throws(() => new Sim({ seed: 1, network: { lossRatio: 2 } }), /lossRatio must be a number between 0 and 1/);
    assert.throws(() => new Sim({ seed: 1, network: { latency: { minMs: 5, maxMs: 1 } } }), /latency must be/);
    assert.throws(() => new Sim({ seed: 1, network: { jitter: 1 } }), /unknown option "jitter"/);
    const sim = new Sim({ seed: 1 });
    sim.client('c', () => {
      assert.throws(() => sim.partition('c', 'nobody'), /no such host/);
    });
    await sim.run();
  });
});

describe('machine crashes are silent; kills, resets and lost resets (seed 0xfb, issue 20 items 5, 6, 10)', () => {
  /** Connects to server:7000 and writes `text` after `ms`; resolves with what the socket saw. */
  function writeLater(socket, ms, text) {
    return new Promise((resolve) => {
      const seen = [];
      socket.on('data', (d) => seen.push(`data ${d}`));
      socket.on('end', () => seen.push('end'));
      socket.on('error', (e) => seen.push(`error ${e.code} ${e.syscall}`));
      socket.on('close', () => resolve({ seen, atMs: Math.round(performance.now()) }));
      setTimeout(() => socket.write(text), ms);
    });
  }

  it('a crashed machine sends nothing: an idle peer hears nothing, a write is retransmitted into silence until ETIMEDOUT', async () => {
    let outcome;
    const sim = new Sim({ seed: 0xfb, network: { tcpTimeoutMs: 10_000 } });
    sim.host('server', echoServer);
    sim.client('client', async () => {
      const socket = await connect('server');
      await roundTrip(socket, 'hello');
      sim.crash('server');
      const crashedAt = Math.round(performance.now());
      outcome = { crashedAt, ...(await writeLater(socket, 5_000, 'anyone there?')) };
    });
    await sim.run();
    // Five idle seconds without a word, then the write's retransmissions time out 10 s later.
    assert.deepEqual(outcome.seen, ['error ETIMEDOUT read']);
    assert.equal(outcome.atMs - outcome.crashedAt, 15_000);
  });

  it('a rebooted machine\'s kernel resets what it does not know: the peer\'s next write gets ECONNRESET', async () => {
    let outcome;
    const sim = new Sim({ seed: 0xfb });
    sim.host('server', echoServer);
    sim.client('client', async () => {
      const socket = await connect('server');
      await roundTrip(socket, 'hello');
      sim.crash('server');
      setTimeout(() => sim.restart('server'), 1_000);
      outcome = await writeLater(socket, 3_000, 'are you back?');
    });
    await sim.run();
    assert.deepEqual(outcome.seen, ['error ECONNRESET read']);
    const atMs = outcome.atMs - STARTUP_MS; // the client's clock counts its process's start-up
    assert.ok(atMs >= 3_000 && atMs < 3_020, `reset at ${atMs} ms`);
  });

  it('keepalive finds a crashed peer: 1 s idle, then 10 probes 1 s apart (libuv on Linux), then ETIMEDOUT', async () => {
    let outcome;
    const sim = new Sim({ seed: 0xfb });
    sim.host('server', echoServer);
    sim.client('client', async () => {
      const socket = await connect('server');
      socket.setKeepAlive(true, 1_000);
      await roundTrip(socket, 'hello');
      const crashedAt = performance.now();
      sim.crash('server');
      outcome = await new Promise((resolve) => socket.on('error', (e) => resolve({ code: e.code, afterMs: Math.round(performance.now() - crashedAt) })));
    });
    await sim.run();
    assert.equal(outcome.code, 'ETIMEDOUT');
    assert.ok(outcome.afterMs >= 10_900 && outcome.afterMs <= 11_100, `detected after ${outcome.afterMs} ms`);
  });

  it('keepalive on a live connection keeps it open for ever: the peer answers every probe', async () => {
    let state;
    const sim = new Sim({ seed: 0xfb });
    sim.host('server', echoServer);
    sim.client('client', async () => {
      const socket = await connect('server');
      socket.setKeepAlive(true, 1_000);
      await sleep(60_000);
      state = { destroyed: socket.destroyed, echo: await roundTrip(socket, 'still here') };
      socket.destroy();
    });
    await sim.run();
    assert.deepEqual(state, { destroyed: false, echo: 'still here' });
  });

  it('a SYN to a crashed machine is unanswered (no ECONNREFUSED) and resent until the machine boots and listens', async () => {
    let outcome;
    const sim = new Sim({ seed: 0xfb });
    sim.host('server', echoServer);
    sim.client('client', async () => {
      await sleep(1);
      sim.crash('server');
      setTimeout(() => sim.restart('server'), 2_500);
      const started = performance.now();
      const socket = await connect('server');
      // SYNs at 0, 1 s and 3 s: the one at 3 s finds the rebooted server listening.
      outcome = { afterMs: Math.round(performance.now() - started), echo: await roundTrip(socket, 'hi') };
      socket.destroy();
    });
    await sim.run();
    assert.equal(outcome.echo, 'hi');
    assert.ok(outcome.afterMs >= 3_000 && outcome.afterMs < 3_020, `connected after ${outcome.afterMs} ms`);
  });

  it('a connect whose reset is lost retries: the SYN is resent at 1 s, 3 s, 7 s and connects once the server listens', async () => {
    let outcome;
    const sim = new Sim({ seed: 0xfb });
    sim.host('server', () => setTimeout(echoServer, 5_000)); // listens only from 5 s on
    sim.client('client', async () => {
      // The server's resets never reach the client until the partition is repaired at 4 s.
      sim.partition('server', 'client', { oneway: true });
      setTimeout(() => sim.repair('server', 'client', { oneway: true }), 4_000);
      const started = performance.now();
      const socket = await connect('server');
      outcome = { afterMs: Math.round(performance.now() - started), echo: await roundTrip(socket, 'finally') };
      socket.destroy();
    });
    await sim.run();
    assert.equal(outcome.echo, 'finally');
    assert.ok(outcome.afterMs >= 7_000 && outcome.afterMs < 7_020, `connected after ${outcome.afterMs} ms`);
  });

  it('a killed process\'s kernel closes its sockets at once (FIN), unlike a machine crash', async () => {
    const seen = [];
    const sim = new Sim({ seed: 0xfb });
    sim.host('server', echoServer);
    sim.client('client', async () => {
      const socket = await connect('server');
      await roundTrip(socket, 'hello');
      const killedAt = performance.now();
      sim.kill('server');
      await new Promise((resolve) => socket.on('end', resolve));
      seen.push(`end after ${performance.now() - killedAt < 10 ? 'a network latency' : 'too long'}`, `exit ${sim.status('server').exitCode}`);
      socket.destroy();
    });
    await sim.run();
    assert.deepEqual(seen, ['end after a network latency', 'exit 137']);
  });

  it('resetConnections resets chosen connections now or after N bytes; a network rule can reset too', async () => {
    const log = [];
    const sim = new Sim({ seed: 0xfb });
    // Servers whose sockets expect resets: each logs nothing and lives on.
    const tolerant = (port) => net.createServer((s) => s.on('data', (d) => s.write(d)).on('error', () => {})).listen(port);
    sim.host('server', () => {
      tolerant(7000);
      tolerant(7001);
    });
    sim.client('client', async () => {
      const a = await connect('server');
      const b = await new Promise((resolve) => {
        const s = net.connect(7001, 'server', () => resolve(s));
      });
      const errors = (name, s) => s.on('error', (e) => log.push(`${name} ${e.code}`));
      errors('a', a);
      errors('b', b);
      assert.equal(sim.resetConnections('client', 'server', { port: 7001 }), 1);
      await sleep(20);
      log.push(`a alive: ${await roundTrip(a, 'x')}`);
      // After 10 more bytes written on it (either way): the echo of 6 + 6 crosses it.
      assert.equal(sim.resetConnections('server', undefined, { afterBytes: 10 }), 1);
      log.push(`a echo: ${await roundTrip(a, '123456')}`);
      await sleep(20);
      // A rule that resets the next TCP packet from the client to port 7002.
      tolerant(7002);
      const c = await new Promise((resolve) => {
        const s = net.connect(7002, 'localhost', () => resolve(s));
      });
      errors('c', c);
      const remove = sim.addRule({
        name: 'reset-7002',
        apply(packet, verdict) {
          if (packet.protocol === 'tcp' && packet.toPort === 7002 && packet.bytes > 40) verdict.reset = true;
        },
      });
      c.write('doomed');
      await sleep(20);
      remove();
    });
    await sim.run();
    assert.deepEqual(log, ['b ECONNRESET', 'a alive: x', 'a echo: 123456', 'a ECONNRESET', 'c ECONNRESET']);
  });

  it('UDP to a crashed machine is lost without ICMP; a rebooted machine with no socket answers port unreachable', async () => {
    const log = [];
    const sim = new Sim({ seed: 0xfb });
    sim.host('server', () => {});
    sim.client('client', async () => {
      const socket = dgram.createSocket('udp4');
      socket.on('error', (e) => log.push(`error ${e.code} at ${Math.round(performance.now())}`));
      await new Promise((resolve) => socket.connect(9000, 'server', resolve));
      sim.crash('server');
      socket.send('to the dead');
      await sleep(1_000);
      sim.restart('server');
      await sleep(10);
      socket.send('to the rebooted');
      await sleep(1_000);
      socket.close();
    });
    await sim.run();
    assert.equal(log.length, 1);
    const [, refusedAt] = /^error ECONNREFUSED at (\d+)$/.exec(log[0]) ?? assert.fail(log[0]);
    const refusedMs = Number(refusedAt) - STARTUP_MS; // the client's clock counts its process's start-up
    assert.ok(refusedMs >= 1010 && refusedMs < 1020, log[0]);
  });
});
