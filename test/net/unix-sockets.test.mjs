/**
 * Unix domain sockets between simulated processes (shims/net/unix-names.ts, net-binding.ts): a
 * socket's file on a simulated disk, the stale file a crash leaves and what a restarted server
 * then meets, names kept per host on the real disk, and the same run for the same seed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Sim } from 'dst-runtime';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Listens on `name`; resolves with the server, or rejects with listen()'s error. */
function listen(name, onSocket = (socket) => socket.on('data', (d) => socket.end(`echo:${d}`))) {
  return new Promise((resolve, reject) => {
    const server = net.createServer(onSocket);
    server.once('error', reject);
    server.listen(name, () => resolve(server));
  });
}

/** Sends `text` to the socket at `name`: the reply, or `error CODE`. */
function ask(name, text) {
  return new Promise((resolve) => {
    const chunks = [];
    const socket = net.connect(name, () => socket.write(text));
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
    socket.on('error', (error) => resolve(`error ${error.code}`));
  });
}

describe('unix domain sockets', function () {
  this.timeout(60_000);
  let dir;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-unix-test-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /**
   * `server` listens on a socket file and talks to itself through it; `operator` crashes (or
   * kills) it and restarts it. The second boot meets the first one's socket file (on a simulated
   * disk, or kept in the world for the real one). (A unix socket is reached on its own machine
   * only: each host is a machine, with a disk of its own.)
   */
  async function restartAfter(fault, { unlinkFirst, seed = 7, disk = 'simulated' }) {
    const log = [];
    const sock = path.join(dir, 'app.sock');
    const sim = new Sim({ seed, disk });
    let boots = 0;
    sim.host('server', async () => {
      const boot = ++boots;
      if (boot > 1) {
        log.push(`boot ${boot}: file there ${fs.existsSync(sock)}, a socket ${fs.existsSync(sock) && fs.statSync(sock).isSocket()}`);
        log.push(`boot ${boot}: connect: ${await ask(sock, 'b')}`);
        if (unlinkFirst) fs.rmSync(sock, { force: true });
      }
      try {
        await listen(sock);
        log.push(`boot ${boot}: listening`);
      } catch (error) {
        log.push(`boot ${boot}: ${error.syscall} ${error.code}`);
        return;
      }
      log.push(`boot ${boot}: ${await ask(sock, String(boot))}`);
    });
    sim.client('operator', async () => {
      await sleep(10);
      sim[fault]('server');
      sim.restart('server');
      await sleep(10);
      sim.stop('server');
    });
    const result = await sim.run();
    return { log, result };
  }

  /** A crash or a kill leaves the socket's file (on a simulated disk, or kept in the world for the real one). */
  function staleFileCases(disk) {
    for (const fault of ['crash', 'kill']) {
      it(`a ${fault} leaves a stale socket file: it refuses connections, and the restarted server's listen() fails with EADDRINUSE`, async () => {
        const { log } = await restartAfter(fault, { unlinkFirst: false, disk });
        assert.deepEqual(log, [
          'boot 1: listening',
          'boot 1: echo:1',
          'boot 2: file there true, a socket true',
          'boot 2: connect: error ECONNREFUSED',
          'boot 2: listen EADDRINUSE',
        ]);
        if (disk === 'real') assert.deepEqual(fs.readdirSync(dir), [], 'no real file');
      });
    }
  }

  describe('on a simulated disk', () => {
    staleFileCases('simulated');

    it('a restarted server that unlinks the stale file first listens again', async () => {
      const { log } = await restartAfter('crash', { unlinkFirst: true });
      assert.deepEqual(log, [
        'boot 1: listening',
        'boot 1: echo:1',
        'boot 2: file there true, a socket true',
        'boot 2: connect: error ECONNREFUSED',
        'boot 2: listening',
        'boot 2: echo:2',
      ]);
    });

    it('the file is a socket while the server listens, is gone after close(), and lives on each host\'s own disk', async () => {
      const log = [];
      const sock = path.join(dir, 's.sock');
      const sim = new Sim({ seed: 3, disk: 'simulated' });
      sim.client('a', async () => {
        const server = await listen(sock);
        const stat = fs.statSync(sock);
        log.push(`socket ${stat.isSocket()} size ${stat.size} mode ${(stat.mode & 0o777).toString(8)}`);
        log.push(`listed ${fs.readdirSync(dir, { withFileTypes: true }).map((e) => `${e.name}:${e.isSocket()}`).join(',')}`);
        try {
          fs.readFileSync(sock);
        } catch (error) {
          log.push(`read ${error.code}`);
        }
        log.push(`same host: ${await ask(sock, 'x')}`);
        await sleep(20);
        await new Promise((r) => server.close(r));
        log.push(`after close: exists ${fs.existsSync(sock)}`);
      });
      sim.client('b', async () => {
        await sleep(10);
        // Another machine: the file is not on its disk.
        log.push(`other host: ${await ask(sock, 'y')}`);
      });
      await sim.run();
      const umask = process.umask();
      assert.deepEqual(log, [
        `socket true size 0 mode ${(0o777 & ~umask).toString(8)}`,
        'listed s.sock:true',
        'read ENXIO',
        'same host: echo:x',
        'other host: error ENOENT',
        'after close: exists false',
      ]);
      assert.equal(fs.existsSync(sock), false, 'the real disk was not touched');
    });
  });

  describe('on the real disk', () => {
    staleFileCases('real');

    it('a restarted server that unlinks the stale name first listens again', async () => {
      const { log } = await restartAfter('kill', { unlinkFirst: true, disk: 'real' });
      assert.deepEqual(log.slice(-2), ['boot 2: listening', 'boot 2: echo:2']);
    });

    it('makes no real file (the host alone sees its name); names are per host and refuse a real file', async () => {
      const log = [];
      const sock = path.join(dir, 's.sock');
      const file = path.join(dir, 'plain-file');
      fs.writeFileSync(file, 'x');
      const sim = new Sim({ seed: 5 });
      let boots = 0;
      sim.host('server', async () => {
        boots++;
        await listen(sock);
        // The host sees its socket's file (shims/fs/socket-names.ts); the real directory, listed by
        // a real process (a synchronous child runs for real), has none.
        log.push(`boot ${boots}: listening, file seen ${fs.existsSync(sock)} ${fs.statSync(sock).isSocket()}, real directory [${execFileSync('ls', ['-A', dir], { encoding: 'utf8' }).trim()}]`);
      });
      sim.client('client', async () => {
        await sleep(5);
        log.push(`other host: ${await ask(sock, 'a')}`);
        log.push(`a real file: ${await ask(file, 'b')}`);
        sim.stop('server');
      });
      sim.client('neighbour', async () => {
        // The same name on another host is that host's own.
        const server = await listen(sock);
        await sleep(2);
        log.push(`own host: ${await ask(sock, 'c')}`);
        server.close();
      });
      await sim.run();
      assert.deepEqual(log, [
        'boot 1: listening, file seen true true, real directory [plain-file]',
        'own host: echo:c',
        'other host: error ENOENT',
        'a real file: error ECONNREFUSED',
      ]);
      assert.deepEqual(fs.readdirSync(dir), ['plain-file']);
    });

    it('listen() on a name taken, and in a missing directory, fails as on Linux', async () => {
      const log = [];
      const sim = new Sim({ seed: 9 });
      sim.client('c', async () => {
        await listen(path.join(dir, 'a.sock'));
        for (const name of [path.join(dir, 'a.sock'), path.join(dir, 'none', 'b.sock')]) {
          try {
            await listen(name);
          } catch (error) {
            log.push(`${error.code} ${error.syscall} ${error.address === name}`);
          }
        }
        sim.stop('c');
      });
      await sim.run();
      assert.deepEqual(log, ['EADDRINUSE listen true', 'EACCES listen true']);
    });
  });

  it('the same seed gives the same run, and no network rule reaches a unix socket', async () => {
    /**
     * Three clients stream 64 KiB each over one unix socket, and one over TCP, while a rule resets
     * every TCP segment that carries data and delays everything by up to 30 ms.
     */
    async function run(seed) {
      const sock = path.join(dir, `r${seed}.sock`);
      const got = [];
      const sim = new Sim({ seed, disk: 'simulated' });
      sim.addRule({
        name: 'chaos',
        apply(packet, verdict, random) {
          if (packet.carriesData) verdict.reset = true;
          for (let i = 0; i < verdict.delaysNs.length; i++) verdict.delaysNs[i] += Math.round(random.double() * 30e6);
        },
      });
      sim.client('main', async () => {
        const count = (socket) => {
          let bytes = 0;
          socket.on('data', (d) => {
            bytes += d.length;
          });
          socket.on('end', () => socket.end(String(bytes)));
          socket.on('error', () => {});
        };
        const unixServer = await listen(sock, count);
        const tcpServer = await new Promise((resolve) => {
          const server = net.createServer(count);
          server.listen(0, '127.0.0.1', () => resolve(server));
        });
        const payload = Buffer.alloc(64 * 1024, 7);
        const send = (...to) => new Promise((resolve) => {
          const chunks = [];
          const socket = net.connect(...to, () => socket.end(payload));
          socket.on('data', (d) => chunks.push(d));
          socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
          socket.on('error', (error) => resolve(`error ${error.code}`));
        });
        got.push(...(await Promise.all([send(sock), send(sock), send(sock), send(tcpServer.address().port, '127.0.0.1')])));
        unixServer.close();
        tcpServer.close();
      });
      const result = await sim.run();
      return { got, fingerprint: result.fingerprint, events: result.events };
    }
    for (const seed of [1, 2, 3]) {
      const first = await run(seed);
      const again = await run(seed);
      assert.deepEqual(first.got, ['65536', '65536', '65536', 'error ECONNRESET']);
      assert.equal(again.fingerprint, first.fingerprint, `seed ${seed} replays`);
      assert.equal(again.events, first.events);
    }
  });
});
