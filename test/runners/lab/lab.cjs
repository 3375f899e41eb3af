// The same tests for every runner (test/runners/lab.sh): each runner's test file passes the
// dst-runtime it imported. Every result is appended to $LAB_OUT as a JSON line.
const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const crypto = require('node:crypto');
const os = require('node:os');
const timersP = require('node:timers/promises');
const { AsyncLocalStorage } = require('node:async_hooks');

const OUT = process.env.LAB_OUT;
function record(test, value) {
  if (OUT) fs.appendFileSync(OUT, JSON.stringify({ test, value }) + '\n');
}

function ask(port, host) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, host);
    let data = '';
    s.on('data', (d) => (data += d));
    s.on('end', () => resolve(data.trim()));
    s.on('error', reject);
  });
}

/** Everything a host can read: what escapes shows as a value that differs between runners. */
function probeHost(out) {
  return async () => {
    const als = new AsyncLocalStorage();
    const p = {};
    p.dateNow = Date.now();
    p.newDate = new Date().toISOString();
    p.dateCtor = new Date(0).getTime();
    p.mathRandom = Math.random();
    p.perfNow = performance.now();
    p.timeOrigin = performance.timeOrigin;
    p.hrtime = process.hrtime.bigint().toString();
    p.hrtimeArr = process.hrtime();
    p.uptime = process.uptime();
    p.osUptime = os.uptime();
    p.uuidMod = crypto.randomUUID();
    p.uuidGlobal = globalThis.crypto.randomUUID();
    p.gRV = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(4)));
    p.randomBytes = crypto.randomBytes(4).toString('hex');
    p.hostname = os.hostname();
    const order = [];
    await new Promise((resolve) => {
      setTimeout(() => { order.push('t0'); }, 0);
      setImmediate(() => order.push('imm'));
      process.nextTick(() => order.push('tick'));
      queueMicrotask(() => order.push('micro'));
      Promise.resolve().then(() => order.push('promise'));
      setTimeout(resolve, 5);
    });
    p.order = order;
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 1000));
    p.after1s = Date.now() - t0;
    await timersP.setTimeout(500);
    p.after1500 = Date.now() - t0;
    p.perfAfter = performance.now();
    p.alsAcross = await als.run('ctx', () => new Promise((r) => setTimeout(() => r(als.getStore()), 10)));
    p.alsAwait = await als.run('ctx2', async () => { await null; await timersP.setTimeout(1); return als.getStore(); });
    try {
      const signal = AbortSignal.timeout(100);
      const keep = setTimeout(() => {}, 1000); // AbortSignal.timeout's timer is unref'd
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
      clearTimeout(keep);
      p.abortTimeout = Date.now() - t0;
    } catch (e) { p.abortTimeout = String(e); }
    let n = 0;
    await new Promise((resolve) => { const iv = setInterval(() => { if (++n === 10) { clearInterval(iv); resolve(); } }, 10); });
    p.afterInterval = Date.now() - t0;
    p.intlDate = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'short', timeStyle: 'long' }).format(new Date());
    p.structured = structuredClone(new Date()).getTime();
    p.errorIsError = new Error('x') instanceof Error;
    Object.assign(out, p);
  };
}

function makeScenario(dst, { bug = false } = {}) {
  // A lease/counter service over TCP: n1 serves, clients increment; with the bug, a
  // crashed n1 loses acknowledged increments (acked before its 'disk' update).
  const REPLICAS = ['n1', 'n2'];
  return dst.defineScenario({
    name: bug ? 'lab-counter (bug)' : 'lab-counter',
    hosts(sim, ctx) {
      ctx.state.acked = 0;
      ctx.state.store = { n1: 0, n2: 0 };
      ctx.state.kept = 0;
      for (const name of REPLICAS) {
        sim.host(name, () => {
          let value = ctx.state.kept;
          const server = net.createServer((socket) => {
            socket.on('data', async () => {
              value++;
              if (bug) {
                socket.end('ok\n');
                await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 20)));
                if (name === 'n1') ctx.state.kept = value;
              } else {
                await new Promise((r) => setTimeout(r, 1 + Math.floor(Math.random() * 3)));
                if (name === 'n1') ctx.state.kept = value;
                socket.end('ok\n');
              }
            });
          });
          server.listen(7000);
          setInterval(() => { ctx.state.store[name] = value + (Date.now() % 7 === 0 ? 0 : 0); }, 50 + Math.floor(Math.random() * 10));
        });
      }
      sim.host('writer', () => {
        const loop = async () => {
          for (;;) {
            try {
              await new Promise((resolve, reject) => {
                const s = net.connect(7000, 'n1');
                s.setTimeout(200, () => { s.destroy(); reject(new Error('timeout')); });
                s.on('data', () => { ctx.state.acked++; resolve(); s.end(); });
                s.on('error', reject);
                s.on('close', () => reject(new Error('closed')));
                s.write(`inc ${crypto.randomUUID()} ${performance.now()}`);
              });
            } catch {}
            await timersP.setTimeout(10 + Math.floor(Math.random() * 30));
          }
        };
        loop();
      });
    },
    targets: ['n1'],
    durationMs: 2_000,
    healMs: 500,
    faults: { crashPerSecond: 2, pausePerSecond: 0.5, partitionPerSecond: 0.5, downMsMin: 20, downMsMax: 200 },
    invariants: {
      safety: [(ctx) => ctx.state.kept >= ctx.state.acked - 1 || `acked ${ctx.state.acked} but kept ${ctx.state.kept}`],
      liveness: [(ctx) => ctx.state.acked > 0 || 'nothing acked'],
    },
  });
}

const SEEDS = [1, 2, 3, 4, 5];

module.exports = lab;
// For sim-test-lab.cjs: the same scenario and helpers.
Object.assign(lab, { record, ask, makeScenario });

function lab(dst, { dir }) {
  return {
    subsystems: require('./subsystems.cjs')(dst, record),
    async probe(seed = 7) {
      const out = {};
      const sim = new dst.Sim({ seed });
      sim.client('probe', probeHost(out));
      const r = await sim.run();
      record('probe', { seed, fingerprint: r.fingerprint, events: r.events, out });
      return { r, out };
    },
    async moduleHost(seed = 3) {
      const answers = [];
      const sim = new dst.Sim({ seed });
      sim.host('srv', { main: path.join(dir, 'server.mjs') });
      sim.host('srvc', { main: path.join(dir, 'server.cjs') });
      sim.client('c', async () => {
        await timersP.setTimeout(10);
        answers.push(await ask(7000, 'srv'));
        answers.push(await ask(7001, 'srvc'));
        sim.crash('srv');
        sim.restart('srv');
        await timersP.setTimeout(10);
        answers.push(await ask(7000, 'srv'));
      });
      const r = await sim.run();
      record('moduleHost', { seed, fingerprint: r.fingerprint, events: r.events, answers });
      return { r, answers };
    },
    async scenarioSeeds() {
      const results = await dst.forEachSeed(makeScenario(dst), { seeds: SEEDS, log: () => {} }).catch((e) => { record('forEachSeed-error', String(e.message)); return e.failing ?? []; });
      const prints = results.map((r) => ({ seed: r.seed, fp: r.fingerprint, events: r.events, ok: r.ok }));
      record('forEachSeed', prints);
      return prints;
    },
    async plantedBug() {
      const out = [];
      for (const seed of SEEDS) {
        const r = await dst.runScenario(makeScenario(dst, { bug: true }), seed);
        out.push({ seed: r.seed, fp: r.fingerprint, ok: r.ok, failure: r.failure && { kind: r.failure.kind, message: r.failure.message, event: r.failure.event, host: r.failure.host } });
      }
      record('plantedBug', out);
      return out;
    },
    async replayLine() {
      try {
        await dst.forEachSeed(makeScenario(dst, { bug: true }), { seeds: [1, 2, 3], log: () => {} });
        record('replayLine', 'no failure');
      } catch (e) {
        record('replayLine', e.replay);
      }
    },
  };
}
