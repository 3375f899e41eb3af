// One small simulation per subsystem; each records its fingerprint and what the host saw.
// (test/runners/lab.sh runs them under every runner and compares.)
const fs = require('node:fs');
const fsp = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const util = require('node:util');
const http = require('node:http');
const dgram = require('node:dgram');
const dns = require('node:dns');
const crypto = require('node:crypto');
const events = require('node:events');
const timersP = require('node:timers/promises');
const { AsyncLocalStorage } = require('node:async_hooks');

const TMP = path.join(os.tmpdir(), 'runner-lab-sub');
fs.mkdirSync(TMP, { recursive: true });
fs.writeFileSync(path.join(TMP, 'a.txt'), 'hello world\n'.repeat(1000));

const cases = {
  async fsAsync(out) {
    const t = [];
    const iv = setInterval(() => t.push('tick'), 1);
    const a = await fsp.readFile(path.join(TMP, 'a.txt'), 'utf8');
    t.push('read');
    await new Promise((r) => fs.stat(TMP, (e, s) => { t.push('stat'); r(); }));
    await new Promise((r) => fs.readFile(path.join(TMP, 'a.txt'), () => { t.push('rf'); r(); }));
    clearInterval(iv);
    out.len = a.length; out.t = t.join(',');
  },
  async zlibGzip(out) {
    const t = [];
    const iv = setInterval(() => t.push('tick'), 1);
    const z = await util.promisify(zlib.gzip)(Buffer.alloc(200000, 'x'));
    clearInterval(iv);
    out.len = z.length; out.ticks = t.length;
  },
  async cryptoJobs(out) {
    const t = [];
    const iv = setInterval(() => t.push('tick'), 1);
    const k = await util.promisify(crypto.pbkdf2)('pw', 'salt', 1000, 32, 'sha256');
    const kp = await util.promisify(crypto.generateKeyPair)('ec', { namedCurve: 'P-256' });
    const sig = crypto.sign('sha256', Buffer.from('x'), kp.privateKey).toString('hex');
    const wk = await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign']);
    const jwk = await globalThis.crypto.subtle.exportKey('jwk', wk.privateKey);
    clearInterval(iv);
    out.k = k.toString('hex'); out.sig = sig; out.d = jwk.d; out.ticks = t.length;
    out.pub = kp.publicKey.export({ format: 'jwk' }).x;
  },
  async httpFetch(out) {
    const server = http.createServer((req, res) => { res.setHeader('x-r', String(Math.random())); res.end(`hi ${req.url} ${Date.now()}`); });
    await new Promise((r) => server.listen(8080, r));
    const res = await fetch('http://localhost:8080/f');
    out.fetch = await res.text(); out.date = res.headers.get('date'); out.xr = res.headers.get('x-r');
    out.http = await new Promise((resolve) => http.get('http://localhost:8080/g', (r) => { let d = ''; r.on('data', (c) => (d += c)); r.on('end', () => resolve(d + ' ' + r.headers.date)); }));
    server.close();
  },
  async udpDns(out) {
    const a = dgram.createSocket('udp4'); const b = dgram.createSocket('udp4');
    await new Promise((r) => a.bind(9000, r)); await new Promise((r) => b.bind(9001, r));
    const got = new Promise((r) => a.once('message', (m, rinfo) => r(`${m} ${rinfo.port}`)));
    b.send('ping', 9000, 'localhost');
    out.udp = await got; a.close(); b.close();
    out.dns = await dns.promises.lookup('localhost');
  },
  async errors(out) {
    // Errors a host handles itself: its own process listeners.
    const seen = [];
    process.on('uncaughtException', (e) => seen.push('uncaught:' + e.message));
    process.on('unhandledRejection', (e) => seen.push('unhandled:' + e.message));
    setTimeout(() => { throw new Error('from timer'); }, 1);
    process.nextTick(() => { throw new Error('from tick'); });
    Promise.reject(new Error('rejected'));
    queueMicrotask(() => { throw new Error('from microtask'); });
    await timersP.setTimeout(10);
    out.seen = seen;
  },
  async messaging(out) {
    const t = [];
    const { port1, port2 } = new MessageChannel();
    const got = new Promise((r) => { port2.onmessage = (m) => { t.push('msg:' + m.data); r(); }; });
    setTimeout(() => t.push('t0'), 0);
    port1.postMessage('x');
    await got; port1.close(); port2.close();
    const ee = new EventTarget();
    ee.addEventListener('e', () => t.push('et'));
    ee.dispatchEvent(new Event('e'));
    out.t = t; out.evTime = new Event('x').timeStamp;
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 3);
    try { await timersP.setTimeout(100, null, { signal: ac.signal }); } catch (e) { out.abort = e.name + ' ' + Date.now(); }
    out.promisified = await util.promisify(setTimeout)(7, 'v');
    out.eventsOnce = await Promise.race([events.once(new events.EventEmitter(), 'never'), timersP.setTimeout(4, 'timeout')]);
  },
  async processBits(out) {
    out.argv0 = typeof process.argv[0];
    out.envHas = typeof process.env.PATH;
    out.memory = typeof process.memoryUsage().rss;
    out.cpu = process.cpuUsage().user >= 0;
    const exited = [];
    process.on('exit', (c) => exited.push(c));
    out.resourceUsage = typeof process.resourceUsage;
    out.exitCodeBefore = process.exitCode;
    out.time = [Date.now(), performance.now(), process.uptime()];
  },
  async console(out) {
    for (let i = 0; i < 3; i++) { console.log(`host says ${i} at ${Date.now()}`); await timersP.setTimeout(1); }
    console.error('to stderr');
    process.stdout.write('direct stdout\n');
    out.done = Date.now();
  },
  async wasm(out) {
    // (module (func (export "f") (result i32) i32.const 42))
    const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,5,1,96,0,1,127,3,2,1,0,7,5,1,1,102,0,0,10,6,1,4,0,65,42,11]);
    const t = [];
    setTimeout(() => t.push('t0'), 0);
    const { instance } = await WebAssembly.instantiate(bytes);
    t.push('wasm');
    await timersP.setTimeout(2);
    out.f = instance.exports.f(); out.t = t;
  },
  async dateIntl(out) {
    out.str = String(new Date());
    out.local = new Date().toLocaleString();
    out.parse = Date.parse('2025-01-01');
    out.utc = Date.UTC(2025, 0, 1);
    out.proto = Object.getPrototypeOf(new Date()) === Date.prototype;
    out.instance = new Date() instanceof Date;
    out.intlNow = new Intl.DateTimeFormat('en', { timeStyle: 'medium', timeZone: 'UTC' }).format();
    out.rtf = typeof Intl.RelativeTimeFormat;
  },
};

module.exports = function subsystems(dst, record) {
  return Object.keys(cases).map((name) => [name, async () => {
    const out = {};
    const sim = new dst.Sim({ seed: 11, trace: process.env.LAB_TRACE ? `${process.env.LAB_TRACE}-${name}.jsonl` : undefined });
    sim.client(name, () => cases[name](out));
    let r;
    try { r = await sim.run(); } catch (e) { r = { fingerprint: 'FAIL ' + String(e.message).split('\n')[0], events: e.report?.event }; }
    record('sub:' + name, { fingerprint: r.fingerprint, events: r.events, out });
  }]);
};
