/**
 * TCP between simulated hosts (library mode): names resolve to host addresses, connections to
 * nobody time out on virtual time, and a crashed host looks to its peers like a dead process
 * (FIN or reset on open connections, refused new ones) until it is restarted. Runs are a pure
 * function of the seed.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { Sim } from 'dst-runtime';

const SEED = 0x7c9;
const PORT = 7000;

/** Resolves with the socket once connected, rejects with the connect error. */
function connect(port, host, options = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host, ...options }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Resolves with what happens first on an open socket: its data, 'end' or an error. */
function nextEvent(socket) {
  return new Promise((resolve) => {
    const done = (event) => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
      resolve(event);
    };
    const onData = (data) => done({ event: 'data', data: String(data) });
    const onEnd = () => done({ event: 'end' });
    const onError = (error) => done({ event: 'error', code: error.code, syscall: error.syscall, message: error.message });
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('error', onError);
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** An echo server that also says which incarnation of its host answers. */
function echoServer(boot) {
  net.createServer((socket) => {
    socket.on('data', (data) => socket.write(`${boot}:${data}`));
    socket.on('error', () => {});
  }).listen(PORT);
}

describe(`simulated TCP between hosts (seed ${SEED.toString(16)})`, function () {
  it('connects by host name across hosts; addresses on both ends are the hosts\' addresses', async () => {
    const seen = {};
    const sim = new Sim({ seed: SEED });
    sim.host('server', () => {
      const server = net.createServer((socket) => {
        seen.serverSide = { remote: socket.remoteAddress, remoteFamily: socket.remoteFamily, local: socket.localAddress, localPort: socket.localPort };
        socket.setEncoding('utf8');
        socket.on('data', (data) => socket.end(data.toUpperCase()));
      });
      server.listen(PORT, () => {
        seen.listening = server.address();
      });
    });
    sim.client('client', async () => {
      const socket = await connect(PORT, 'server');
      seen.clientSide = { remote: socket.remoteAddress, remotePort: socket.remotePort, local: socket.localAddress };
      seen.ephemeral = socket.localPort >= 32768 && socket.localPort <= 60999;
      socket.end('hello over the network');
      socket.setEncoding('utf8');
      let reply = '';
      for await (const chunk of socket) reply += chunk;
      seen.reply = reply;
      seen.addressOfServer = sim.addressOf('server').ipv4;
    });
    await sim.run();
    assert.deepEqual(seen.listening, { address: '::', family: 'IPv6', port: PORT });
    assert.deepEqual(seen.serverSide, { remote: '::ffff:10.0.0.2', remoteFamily: 'IPv6', local: '::ffff:10.0.0.1', localPort: PORT });
    assert.deepEqual(seen.clientSide, { remote: '10.0.0.1', remotePort: PORT, local: '10.0.0.2' });
    assert.equal(seen.ephemeral, true);
    assert.equal(seen.reply, 'HELLO OVER THE NETWORK');
    assert.equal(seen.addressOfServer, '10.0.0.1');
  });

  it('the handshake: between hosts the server accepts one trip after the client\'s connect; on one host before it', async () => {
    const log = [];
    const at = () => performance.now(); // both hosts booted at virtual time 0
    const times = {};
    const sim = new Sim({ seed: SEED, network: { latency: { minMs: 10, maxMs: 10 } } });
    sim.host('server', () => {
      net.createServer((socket) => {
        times.accepted = at();
        log.push(`server connection (${sim.status('server').state})`);
        socket.end('greeting'); // a server-speaks-first protocol
      }).listen(PORT);
    });
    sim.client('client', async () => {
      const start = at();
      const socket = await connect(PORT, 'server');
      times.connected = at();
      log.push('client connect');
      const greeting = await new Promise((resolve) => socket.on('data', (d) => resolve(String(d))));
      times.greeted = at();
      log.push(`client got ${greeting}`);
      times.start = start;
      // On one host (loopback): the server's 'connection' comes first, as in plain Node.
      const local = net.createServer((s) => { log.push('local server connection'); s.end(); }).listen(PORT + 1);
      await new Promise((resolve) => local.on('listening', resolve));
      const loop = await connect(PORT + 1, 'localhost');
      log.push('local client connect');
      await new Promise((resolve) => loop.on('close', resolve).resume());
      local.close();
    });
    await sim.run();
    assert.deepEqual(log, [
      'client connect',
      'server connection (running)',
      'client got greeting',
      'local server connection',
      'local client connect',
    ]);
    // Every packet takes 10 ms (the lookup takes no virtual time): SYN, SYN-ACK, ACK, greeting.
    assert.deepEqual([times.connected - times.start, times.accepted - times.start, times.greeted - times.start], [20, 30, 40]);
  });

  it('a connection to an address nobody has times out with ETIMEDOUT on virtual time, fast', async () => {
    let error;
    let elapsedMs;
    const realStart = Date.now();
    const sim = new Sim({ seed: SEED });
    sim.host('server', () => echoServer(1));
    sim.client('client', async () => {
      const start = performance.now();
      error = await connect(80, '10.0.0.99').then(() => undefined, (e) => e);
      elapsedMs = performance.now() - start;
    });
    const result = await sim.run();
    const realMs = Date.now() - realStart;
    assert.equal(error?.code, 'ETIMEDOUT');
    assert.equal(error?.syscall, 'connect');
    assert.equal(error?.message, 'connect ETIMEDOUT 10.0.0.99:80');
    // Linux's default: SYNs at 0, 1, 3, 7, 15, 31 and 63 s (tcp_syn_retries = 6), ETIMEDOUT at 127 s, all virtual.
    assert.equal(elapsedMs, 127_000, `gave up after ${elapsedMs} ms virtual`);
    assert.ok(result.elapsedNs >= 127e9, `virtual time ${result.elapsedNs} ns`);
    assert.ok(realMs < 5_000, `took ${realMs} ms of real time`);
  });

  it('a killed server: open connections see its FIN, new ones are refused, restart serves again', async () => {
    const log = [];
    const sim = new Sim({ seed: SEED });
    let boots = 0;
    sim.host('server', () => echoServer(++boots), { onCrash: 'keep-down' });
    sim.client('client', async () => {
      const socket = await connect(PORT, 'server');
      socket.write('ping');
      log.push(await nextEvent(socket));
      const crashedAt = performance.now();
      sim.kill('server');
      log.push(`status ${sim.status('server').state}`);
      // The dead process's kernel closed its socket: nothing was unread, so a FIN.
      log.push(await nextEvent(socket));
      log.push(`end arrived after ${performance.now() - crashedAt > 0 ? 'some latency' : 'no time'}`);
      await new Promise((resolve) => socket.on('close', resolve));
      const refused = await connect(PORT, 'server').then(() => undefined, (e) => e);
      log.push(`new connection: ${refused?.code} ${refused?.message}`);

      sim.restart('server');
      log.push(`status ${sim.status('server').state} boot ${sim.status('server').incarnation}`);
      // The new incarnation's main runs in a later event: retry until it listens.
      let again;
      for (let attempt = 0; again === undefined && attempt < 10; attempt++) {
        again = await connect(PORT, 'server').catch(() => undefined);
        if (again === undefined) await sleep(10);
      }
      again.write('pong');
      log.push(await nextEvent(again));
      again.destroy();
    });
    await sim.run();
    assert.deepEqual(log, [
      { event: 'data', data: '1:ping' },
      'status crashed',
      { event: 'end' },
      'end arrived after some latency',
      'new connection: ECONNREFUSED connect ECONNREFUSED 10.0.0.1:7000',
      'status running boot 2',
      { event: 'data', data: '2:pong' },
    ]);
  });

  it('a killed server that had not read what it received resets the connection: ECONNRESET', async () => {
    const log = [];
    const sim = new Sim({ seed: SEED });
    sim.host('server', () => {
      // pauseOnConnect: the server never starts reading, so the bytes stay unread in its kernel.
      net.createServer({ pauseOnConnect: true }, () => {}).listen(PORT);
    }, { onCrash: 'keep-down' });
    sim.client('client', async () => {
      const socket = await connect(PORT, 'server');
      socket.write('never read');
      await sleep(50);
      sim.kill('server');
      log.push(await nextEvent(socket));
      await new Promise((resolve) => socket.on('close', (hadError) => resolve(log.push(`close hadError=${hadError}`))));
    });
    await sim.run();
    assert.deepEqual(log, [
      { event: 'error', code: 'ECONNRESET', syscall: 'read', message: 'read ECONNRESET' },
      'close hadError=true',
    ]);
  });

  it('writing to a killed peer after its FIN: the first write is answered with a reset, the next fails with EPIPE', async () => {
    const log = [];
    const sim = new Sim({ seed: SEED });
    sim.host('server', () => echoServer(1), { onCrash: 'keep-down' });
    sim.client('client', async () => {
      const socket = await connect(PORT, 'server', { allowHalfOpen: true });
      await sleep(10); // the server accepts when the handshake's last ACK arrives
      sim.kill('server');
      log.push(await nextEvent(socket));
      socket.on('error', (err) => log.push(`error event: ${err.code} ${err.syscall}`));
      socket.write('into the void', (err) => log.push(`first write: ${err?.code ?? 'ok'}`));
      await sleep(100);
      socket.write('again', (err) => log.push(`second write: ${err?.code} ${err?.syscall}`));
      await new Promise((resolve) => socket.on('close', resolve));
    });
    await sim.run();
    assert.deepEqual(log, [{ event: 'end' }, 'first write: ok', 'second write: EPIPE write', 'error event: EPIPE write']);
  });

  it('a killed client: the server sees the connection end', async () => {
    const log = [];
    const sim = new Sim({ seed: SEED });
    sim.host('server', () => {
      net.createServer((socket) => {
        socket.on('data', (data) => log.push(`server got ${data}`));
        socket.on('end', () => log.push('server: end'));
        socket.on('close', (hadError) => log.push(`server: close hadError=${hadError}`));
      }).listen(PORT);
    });
    sim.host('worker', async () => {
      const socket = await connect(PORT, 'server');
      socket.write('last words');
      setTimeout(() => sim.kill('worker'), 20);
    }, { onCrash: 'keep-down' });
    sim.client('observer', async () => {
      await sleep(1_000);
      log.push(`worker ${sim.status('worker').state}`);
    });
    await sim.run();
    assert.deepEqual(log, ['server got last words', 'server: end', 'server: close hadError=false', 'worker crashed']);
  });

  it('backpressure across hosts: write() returns false and drain comes once the reader reads', async () => {
    const log = [];
    const TOTAL = 4 * 1024 * 1024;
    const sim = new Sim({ seed: SEED });
    sim.host('server', () => {
      net.createServer((socket) => {
        socket.pause();
        let received = 0;
        socket.on('data', (data) => {
          received += data.length;
        });
        socket.on('end', () => {
          log.push(`server received ${received}`);
          socket.end();
        });
        setTimeout(() => socket.resume(), 500);
      }).listen(PORT);
    });
    sim.client('client', async () => {
      const socket = await connect(PORT, 'server');
      let sawFalse = false;
      for (let sent = 0; sent < TOTAL; sent += 64 * 1024) {
        if (!socket.write(Buffer.alloc(64 * 1024))) sawFalse = true;
      }
      log.push(`write returned false: ${sawFalse}`);
      await new Promise((resolve) => socket.once('drain', resolve));
      log.push(`drain after the reader resumed: ${performance.now() >= 500}`);
      socket.end();
      await new Promise((resolve) => socket.on('close', resolve));
    });
    await sim.run();
    assert.deepEqual(log, ['write returned false: true', 'drain after the reader resumed: true', `server received ${TOTAL}`]);
  });

  it('loss and duplication on the link: every byte arrives once, in order (retransmission, reordering)', async () => {
    const TOTAL = 200 * 1024;
    const payload = Buffer.alloc(TOTAL);
    for (let i = 0; i < TOTAL; i++) payload[i] = (i * 13 + (i >> 9)) & 255;
    let received;
    let connections = 0;
    const sim = new Sim({ seed: SEED, network: { lossRatio: 0.2, duplicateRatio: 0.2, latency: { minMs: 1, maxMs: 20 } } });
    sim.host('server', () => {
      net.createServer((socket) => {
        connections++;
        const chunks = [];
        socket.on('data', (data) => chunks.push(data));
        socket.on('end', () => {
          received = Buffer.concat(chunks);
          socket.end('ok');
        });
      }).listen(PORT);
    });
    sim.client('client', async () => {
      const socket = await connect(PORT, 'server');
      // Many small writes: many segments, each lost, duplicated and delayed on its own.
      for (let offset = 0; offset < TOTAL; offset += 1000) socket.write(payload.subarray(offset, offset + 1000));
      socket.end();
      assert.deepEqual(await nextEvent(socket), { event: 'data', data: 'ok' });
    });
    await sim.run();
    assert.equal(connections, 1, 'a duplicated SYN must not open a second connection');
    assert.equal(received.length, TOTAL);
    assert.ok(received.equals(payload), 'the bytes arrived in order, each once');
  });

  describe('determinism', function () {
    /** A small workload: several clients, a crash and a restart, echoes; returns the run. */
    async function workload(seed) {
      const lines = [];
      const sim = new Sim({ seed });
      let boots = 0;
      sim.host('server', () => echoServer(++boots), { onCrash: 'keep-down' });
      for (const name of ['c1', 'c2', 'c3']) {
        sim.client(name, async () => {
          for (let i = 0; i < 5; i++) {
            const socket = await connect(PORT, 'server').catch((e) => e);
            if (socket instanceof Error) {
              lines.push(`${name} ${i} ${socket.code} at ${performance.now().toFixed(3)}`);
              await sleep(5);
              continue;
            }
            socket.write(`${name}-${i}`);
            const event = await nextEvent(socket);
            lines.push(`${name} ${i} ${JSON.stringify(event)} at ${performance.now().toFixed(3)}`);
            socket.destroy();
            if (name === 'c1' && i === 1) {
              sim.crash('server');
              setTimeout(() => sim.restart('server'), 7);
            }
          }
        });
      }
      const result = await sim.run();
      return { result, lines };
    }

    it(`seed ${SEED.toString(16)} twice: same fingerprint, same observations; another seed differs`, async () => {
      const a = await workload(SEED);
      const b = await workload(SEED);
      const c = await workload(SEED + 1);
      assert.equal(b.result.fingerprint, a.result.fingerprint);
      assert.equal(b.result.events, a.result.events);
      assert.deepEqual(b.lines, a.lines);
      assert.equal(a.lines.length, 15);
      // The machine crash is silent: the clients learn of it from the rebooted server's resets.
      assert.ok(a.lines.some((line) => line.includes('ECONNRESET')), `the crash was seen:\n${a.lines.join('\n')}`);
      assert.ok(a.lines.some((line) => line.includes('"2:')), `the restarted server answered:\n${a.lines.join('\n')}`);
      assert.notEqual(c.result.fingerprint, a.result.fingerprint);
    });
  });
});
