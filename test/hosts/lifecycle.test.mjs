import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Sim, SimulationError, STARTUP_MS } from 'dst-runtime';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('host lifecycle and per-host process (seed 0x11)', () => {
  it('process.exit(code) in a host takes its code as Node does: none keeps exitCode, a bad one throws Node\'s error', async () => {
    // Plainly: exitCode 6 then exit() exits 6, exit(undefined) and exit(null) 0, exit('7') 7;
    // exit('abc') and exit(1.5) throw from the exitCode setter and the process goes on.
    const cases = [[[], 6], [[undefined], 0], [[null], 0], [['7'], 7], [['abc'], 'ERR_INVALID_ARG_TYPE'], [[1.5], 'ERR_OUT_OF_RANGE']];
    const sim = new Sim({ seed: 0x11 });
    const exitCodeBefore = process.exitCode;
    const thrown = {};
    for (const [i, [args]] of cases.entries()) {
      sim.host(`h${i}`, () => {
        process.on('exit', () => {});
        setTimeout(() => {
          process.exitCode = 6;
          try {
            process.exit(...args);
          } catch (error) {
            if (error.code === undefined) throw error;
            thrown[i] = error.code;
          }
          process.exitCode = undefined;
        }, 1);
      });
    }
    const status = [];
    sim.client('observer', async () => {
      await sleep(10);
      for (const i of cases.keys()) status.push(sim.status(`h${i}`));
    });
    await sim.run();
    for (const [i, [, expected]] of cases.entries()) {
      if (typeof expected === 'number') assert.equal(status[i].exitCode, expected, `case ${i}`);
      else assert.equal(thrown[i], expected, `case ${i}`);
    }
    assert.equal(process.exitCode, exitCodeBefore, 'the test runner\'s exit code is untouched');
  });

  it('process.exit() in a host ends that host only; its exit listeners run', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x11 });
    sim.host('worker', () => {
      process.on('exit', (code) => log.push(`worker exit listener ${code}`));
      setInterval(() => log.push(`worker tick ${performance.now()}`), 100);
      setTimeout(() => {
        process.exit(3);
        log.push('never reached');
      }, 250);
    });
    sim.client('observer', async () => {
      await sleep(400);
      log.push(`observer at ${performance.now()}: worker ${JSON.stringify(sim.status('worker'))}`);
    });
    const result = await sim.run();
    assert.equal(result.stopReason, 'clients-done');
    assert.deepEqual(log, [
      `worker tick ${STARTUP_MS + 100}`,
      `worker tick ${STARTUP_MS + 200}`,
      'worker exit listener 3',
      `observer at ${STARTUP_MS + 400}: worker {"state":"exited","incarnation":1,"paused":false,"exitCode":3}`,
    ]);
    assert.equal(process.listenerCount('exit') < 50, true, 'host listeners did not land on the real process');
  });

  it('stop() runs the host\'s SIGTERM listeners (graceful), and terminates a host without them', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x11 });
    sim.host('graceful', () => {
      const timer = setInterval(() => {}, 1000);
      process.on('SIGTERM', (signal) => {
        log.push(`graceful got ${signal} at ${performance.now()}`);
        clearInterval(timer);
        setTimeout(() => process.exit(0), 20); // finish in-flight work, then exit
      });
    });
    sim.host('abrupt', () => {
      setInterval(() => {}, 1000);
    });
    sim.client('operator', async () => {
      await sleep(100);
      sim.stop('graceful');
      sim.stop('abrupt');
      await sleep(50);
      log.push(`graceful: ${JSON.stringify(sim.status('graceful'))}`);
      log.push(`abrupt: ${JSON.stringify(sim.status('abrupt'))}`);
    });
    await sim.run();
    assert.deepEqual(log, [
      `graceful got SIGTERM at ${STARTUP_MS + 100}`,
      'graceful: {"state":"exited","incarnation":1,"paused":false,"exitCode":0}',
      'abrupt: {"state":"exited","incarnation":1,"paused":false,"exitCode":143}',
    ]);
  });

  it('process.kill(process.pid, signal) in a host: Node\'s argument errors, every name of a number, Node\'s default actions, no real process reached', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x11 });
    const host = (name, signal) => sim.host(name, () => {
      setInterval(() => {}, 1000);
      setTimeout(() => process.kill(process.pid, signal), 10);
    });
    sim.host('listener', () => {
      process.on('SIGIOT', (s, n) => log.push(`SIGIOT listener: ${s} ${n}`));
      process.on('SIGABRT', (s, n) => log.push(`SIGABRT listener: ${s} ${n}`));
      process.on('SIGWINCH', (s, n) => log.push(`SIGWINCH listener: ${s} ${n}`));
      for (const signal of ['SIGFOO', 99, -1, 'sigterm', 1.5]) {
        try {
          process.kill(process.pid, signal);
          log.push(`kill ${signal} returned`);
        } catch (error) {
          log.push(`kill ${signal}: ${error.code} ${error.message}`);
        }
      }
      try {
        process.kill('abc', 'SIGTERM');
      } catch (error) {
        log.push(`kill "abc": ${error.code}`);
      }
      log.push(`kill 0 returned ${process.kill(process.pid, 0)}`);
      log.push(`kill "own pid" 0 returned ${process.kill(String(process.pid), 0)}`);
      for (const pid of [process.pid + 1, 0, -1]) {
        try {
          process.kill(pid, 0);
        } catch (error) {
          log.push(`kill another pid: ${error.code}`);
        }
      }
      // Caught when sent, its listener removed before it arrives: dropped, the host lives on.
      const removed = () => log.push('removed listener ran');
      process.on('SIGUSR2', removed);
      process.kill(process.pid, 'SIGUSR2');
      process.removeListener('SIGUSR2', removed);
      process.kill(process.pid, 6);
      process.kill(process.pid, 'SIGWINCH');
      setTimeout(() => process.exit(0), 10);
    });
    host('pipe', 'SIGPIPE');
    host('winch', 28);
    host('usr2', 'SIGUSR2');
    host('io', 'SIGPOLL');
    host('tstp', 'SIGTSTP');
    sim.client('observer', async () => {
      await sleep(50);
      for (const name of ['listener', 'pipe', 'winch', 'usr2', 'io', 'tstp']) log.push(`${name}: ${JSON.stringify(sim.status(name))}`);
    });
    await sim.run();
    // As plain Node 20, 22 and 24 (docs/notes/node-facts.md): SIGPIPE and SIGWINCH leave the
    // process running, SIGUSR2 and SIGIO end it (128 + the number), SIGTSTP stops it.
    assert.deepEqual(log, [
      'kill SIGFOO: ERR_UNKNOWN_SIGNAL Unknown signal: SIGFOO',
      'kill 99: EINVAL kill EINVAL',
      'kill -1: EINVAL kill EINVAL',
      'kill sigterm: ERR_UNKNOWN_SIGNAL Unknown signal: sigterm',
      'kill 1.5: ERR_UNKNOWN_SIGNAL Unknown signal: 1.5',
      'kill "abc": ERR_INVALID_ARG_TYPE',
      'kill 0 returned true',
      'kill "own pid" 0 returned true',
      'kill another pid: ESRCH',
      'kill another pid: ESRCH',
      'kill another pid: ESRCH',
      'SIGABRT listener: SIGABRT 6',
      'SIGIOT listener: SIGIOT 6',
      'SIGWINCH listener: SIGWINCH 28',
      'listener: {"state":"exited","incarnation":1,"paused":false,"exitCode":0}',
      'pipe: {"state":"running","incarnation":1,"paused":false}',
      'winch: {"state":"running","incarnation":1,"paused":false}',
      'usr2: {"state":"exited","incarnation":1,"paused":false,"exitCode":140}',
      'io: {"state":"exited","incarnation":1,"paused":false,"exitCode":157}',
      'tstp: {"state":"running","incarnation":1,"paused":true}',
    ]);
    assert.equal(process.listenerCount('SIGWINCH'), 0, 'host signal listeners did not land on the real process');
  });

  it('a self-signal in a host: from an I/O callback after its immediate; one that ends the process ends it inside kill()', async () => {
    // As plain Node 20, 22 and 24 (compliance programs 107 and 108 show the first in register
    // mode): libuv reads a caught signal in a poll phase, the next one when sent from an I/O
    // callback; a default action that ends the process happens before kill(2) returns, so nothing
    // after the call runs, not its ticks or microtasks either.
    const log = [];
    const sim = new Sim({ seed: 0x11 });
    sim.host('caught', () => {
      process.on('SIGUSR2', () => log.push('caught: signal'));
      fs.stat('/', () => {
        process.kill(process.pid, 'SIGUSR2');
        setImmediate(() => log.push('caught: immediate'));
      });
      setTimeout(() => {}, 50);
    });
    sim.host('ended', () => {
      setTimeout(() => {
        process.kill(process.pid, 'SIGUSR2');
        log.push('ended: after kill');
        process.nextTick(() => log.push('ended: tick'));
        Promise.resolve().then(() => log.push('ended: microtask'));
      }, 10);
    });
    sim.client('observer', async () => {
      await sleep(50);
      log.push(`ended: ${JSON.stringify(sim.status('ended'))}`);
    });
    await sim.run();
    assert.deepEqual(log, [
      'caught: immediate',
      'caught: signal',
      'ended: {"state":"exited","incarnation":1,"paused":false,"exitCode":140}',
    ]);
  });

  it('a host\'s own uncaughtException listener keeps it alive, like Node', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x11 });
    sim.host('resilient', () => {
      process.on('uncaughtException', (error, origin) => log.push(`caught ${error.message} (${origin})`));
      setTimeout(() => {
        throw new Error('boom');
      }, 10);
      setTimeout(() => log.push('still running'), 20);
    });
    await sim.run();
    assert.deepEqual(log, ['caught boom (uncaughtException)', 'still running']);
  });

  it('onCrash: "restart" reboots a host that throws; "keep-down" leaves it down; default fails the run', async () => {
    const boots = [];
    const sim = new Sim({ seed: 0x11 });
    sim.host('flaky', () => {
      boots.push(performance.now());
      if (boots.length < 3) setTimeout(() => { throw new Error('flaky'); }, 5);
    }, { onCrash: 'restart' });
    sim.host('dead', () => {
      setTimeout(() => { throw new Error('dead'); }, 5);
    }, { onCrash: 'keep-down' });
    sim.client('c', async () => {
      await sleep(100);
      assert.equal(sim.status('flaky').incarnation, 3);
      assert.equal(sim.status('dead').state, 'crashed');
    });
    await sim.run();
    assert.deepEqual(boots, [STARTUP_MS, STARTUP_MS, STARTUP_MS], 'each incarnation starts its clock afresh');

    const failing = new Sim({ seed: 0x11 });
    failing.host('h', () => setTimeout(() => { throw new Error('unexpected'); }, 5));
    await assert.rejects(failing.run(), (error) => error instanceof SimulationError && error.report.host === 'h');
  });

  it('code of a crashed incarnation that still runs (a leftover continuation) cannot schedule', async () => {
    const log = [];
    let wake;
    const sim = new Sim({ seed: 0x11 });
    sim.host('victim', () => {
      // This continuation keeps the victim's context, whoever resolves the promise.
      new Promise((resolve) => (wake = resolve)).then(() => {
        log.push(`victim continuation runs, state ${sim.status('victim').state}`);
        setTimeout(() => log.push('ghost timer fired'), 1);
        setImmediate(() => log.push('ghost immediate fired'));
      });
      setInterval(() => log.push(`victim tick ${performance.now()}`), 100);
    });
    sim.client('killer', async () => {
      await sleep(150);
      sim.crash('victim');
      wake();
      await sleep(10);
      log.push('killer done');
    });
    await sim.run();
    assert.deepEqual(log, [`victim tick ${STARTUP_MS + 100}`, 'victim continuation runs, state crashed', 'killer done']);
  });

  it('a restarted client is awaited again: the run ends when its new incarnation settles', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x11 });
    sim.client('c', async () => {
      log.push(`c boot at ${performance.now()}`);
      await sleep(100);
      log.push('c done');
    });
    sim.client('ctl', async () => {
      await sleep(50);
      sim.crash('c');
      await sleep(10);
      sim.restart('c');
      await sleep(10); // ctl is done at 70 ms; only the restarted c keeps the run going
    });
    const result = await sim.run();
    // The crash at 50 ms counted the first incarnation as settled; the second (booted at 60 ms,
    // its clock from zero) is pending again until it finishes at 160 ms, after ctl (70 ms).
    assert.deepEqual(log, [`c boot at ${STARTUP_MS}`, `c boot at ${STARTUP_MS}`, 'c done']);
    assert.equal(result.stopReason, 'clients-done');
    assert.equal(result.elapsedNs, 160_000_000);
  });

  it('pause() freezes a host while others go on; resume() runs what it missed in order', async () => {
    const log = [];
    const sim = new Sim({ seed: 0x11 });
    sim.host('frozen', () => {
      setInterval(() => log.push(`frozen tick ${performance.now()}`), 100);
    });
    sim.client('operator', async () => {
      await sleep(150);
      sim.pause('frozen');
      await sleep(300);
      log.push(`operator at ${performance.now()}`);
      sim.resume('frozen');
      await sleep(120);
    });
    await sim.run();
    assert.deepEqual(log, [
      `frozen tick ${STARTUP_MS + 100}`,
      `operator at ${STARTUP_MS + 450}`,
      `frozen tick ${STARTUP_MS + 450}`, // the tick due at 200 ran late, at resume; the interval goes on from there
      `frozen tick ${STARTUP_MS + 550}`,
    ]);
  });

  it('clock drift: a host whose clocks run 10% fast sees its timers fire early in virtual time', async () => {
    const seen = {};
    const order = [];
    const sim = new Sim({ seed: 0x11 });
    sim.host('fast', async () => {
      const d0 = Date.now();
      await sleep(1_000); // 1 s by the host's own clock: about 0.909 virtual seconds
      order.push('fast');
      seen.fast = { perf: performance.now(), date: Date.now() - d0, uptime: process.uptime() };
    }, { driftPpm: 100_000 });
    sim.client('reference', async () => {
      await sleep(950);
      order.push('reference at 950');
      await sleep(50);
      seen.reference = { perf: performance.now() };
    });
    const result = await sim.run();
    assert.deepEqual(order, ['fast', 'reference at 950']);
    assert.deepEqual(seen.reference, { perf: STARTUP_MS + 1_000 });
    assert.equal(seen.fast.date, 1_000);
    // Within a few ns: the timer fires at the first virtual ns its local delay has passed.
    const fastMs = seen.fast.perf - STARTUP_MS;
    assert.ok(fastMs >= 1_000 && fastMs - 1_000 < 1e-5, `performance.now() on the fast host: ${seen.fast.perf}`);
    const fastS = seen.fast.uptime - STARTUP_MS / 1000;
    assert.ok(fastS >= 1 && fastS - 1 < 1e-8, `process.uptime() on the fast host: ${seen.fast.uptime}`);
    assert.equal(result.elapsedNs, 1_000_000_000, 'the reference client ends the run at 1 virtual second');
    assert.throws(() => new Sim({ seed: 1 }).host('x', () => {}, { driftPpm: 'fast' }), /driftPpm must be a number/);
  });

  it('os.hostname() and os.networkInterfaces() describe the simulated host', async () => {
    const seen = [];
    const sim = new Sim({ seed: 0x11 });
    sim.host('alpha', () => {});
    sim.client('kv-2', () => {
      const interfaces = os.networkInterfaces();
      seen.push(os.hostname(), interfaces.eth0.map((i) => i.address));
      // As Node derives it, an interface's cidr is its address and its netmask's prefix length
      // (the IPv6 one said /8 with a /24 netmask, found by a probe, 2026-12-05).
      for (const i of [...interfaces.lo, ...interfaces.eth0]) {
        const bits = i.family === 'IPv4' ? i.netmask.split('.').map(Number) : i.netmask.split(':').filter(Boolean).map((h) => parseInt(h, 16));
        const prefix = bits.reduce((n, part) => n + part.toString(2).split('').filter((c) => c === '1').length, 0);
        seen.push(i.cidr === `${i.address}/${prefix}`);
      }
    });
    await sim.run();
    assert.deepEqual(seen, ['kv-2', ['10.0.0.2', 'fd00::2'], true, true, true, true]);
    assert.notEqual(os.hostname(), 'kv-2');
  });

  it('rejects lifecycle calls outside a run and for unknown hosts', async () => {
    const sim = new Sim({ seed: 1 });
    assert.throws(() => sim.crash('x'), /the simulation is not running/);
    sim.client('c', () => {
      assert.throws(() => sim.crash('nope'), /no such host \(known: c\)/);
      assert.throws(() => sim.restart('c'), /it is running/);
    });
    await sim.run();
  });

  it('a crashed host\'s pending timers let go of what they hold at the crash, not when they were due', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc');
    globalThis.__dstHeld = [];
    const seen = [];
    const sim = new Sim({ seed: 0x11 });
    sim.host('db', { main: fileURLToPath(new URL('./fixtures/crash-memory/holder.mjs', import.meta.url)) }, { onCrash: 'keep-down' });
    sim.client('operator', async () => {
      await sleep(10);
      sim.crash('db');
      sim.restart('db');
      await sleep(10);
      gc();
      seen.push(globalThis.__dstHeld.map((ref) => (ref.deref() === undefined ? 'freed' : 'held')).join(', '));
    });
    await sim.run();
    // Before, the first incarnation's 64 MB stayed until its timer's time (an hour) or the run's end.
    assert.deepEqual(seen, ['freed, held']);
  });
});
