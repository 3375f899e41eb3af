// What the trace records for pictures of a run (dst view, dst trace export): messages linking
// their send to their deliveries, faults with their start and end, the failure and its site;
// and that recording them changes nothing of the run.
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sim, SimulationError } from 'dst-runtime';
import { buildModel, readTrace } from '../../cli/trace-model.mjs';
import { toChromeTrace } from '../../cli/trace-export.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dst-trace-'));
const read = (file) => readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));

/** Three hosts talking TCP, UDP and HTTP, with a partition, a hold and a latency spike. */
function world(seed, trace, { fail = false } = {}) {
  const sim = new Sim({ seed, ...(trace === undefined ? {} : { trace }) });
  sim.host('server', () => {
    net.createServer((socket) => socket.on('data', (d) => socket.write(`echo:${d}`))).listen(7000);
    const udp = dgram.createSocket('udp4');
    udp.on('message', (m, rinfo) => udp.send(m, rinfo.port, rinfo.address));
    udp.bind(7001);
    http.createServer((req, res) => res.end(`hello ${req.url}`)).listen(8080);
  });
  sim.host('peer', () => {});
  sim.client('client', async () => {
    await new Promise((r) => setTimeout(r, 10));
    const socket = net.connect(7000, 'server');
    await new Promise((r) => socket.once('connect', r));
    for (let i = 0; i < 3; i++) {
      socket.write(`ping ${i}`);
      await new Promise((r) => socket.once('data', r));
    }
    sim.partition('client', 'server');
    socket.write('lost for a while');
    await new Promise((r) => setTimeout(r, 300));
    sim.repair('client', 'server');
    await new Promise((r) => socket.once('data', r));
    socket.end();
    const udp = dgram.createSocket('udp4');
    udp.send('dgram', 7001, 'server');
    await new Promise((r) => udp.once('message', r));
    udp.close();
    sim.setLink('client', 'server', { latency: { minMs: 50, maxMs: 50 } });
    const res = await fetch('http://server:8080/x');
    assert.equal(await res.text(), 'hello /x');
    sim.setLink('client', 'server', { latency: { minMs: 1, maxMs: 5 } });
    sim.hold('client', 'peer');
    sim.release('client', 'peer');
    if (fail) setTimeout(() => { throw new Error('planted failure'); }, 5);
    await new Promise((r) => setTimeout(r, 20));
  });
  return sim.run();
}

describe('trace annotations', function () {
  this.timeout(60_000);

  it('change nothing: the same fingerprint with and without a trace', async () => {
    const plain = await world(7);
    const traced = await world(7, path.join(tmp, 'same.jsonl'));
    assert.equal(traced.fingerprint, plain.fingerprint);
    assert.equal(traced.events, plain.events);
  });

  it('link every delivery to its send, and say what each message was', async () => {
    const file = path.join(tmp, 'msgs.jsonl');
    await world(7, file);
    const records = read(file);
    assert.deepEqual({ ...records[0], latency: undefined }, { n: 0, tNs: 0, kind: 'run', format: 'dst-trace/2', seed: '0x7', mode: 'library', latency: undefined });
    const sends = new Map(records.filter((r) => r.kind === 'send').map((r) => [r.msg, r]));
    const recvs = records.filter((r) => r.kind === 'recv');
    assert.ok(recvs.length >= 15, `${recvs.length} deliveries`);
    for (const r of recvs) {
      const s = sends.get(r.msg);
      assert.ok(s !== undefined, `msg ${r.msg} was sent`);
      assert.equal(r.from, s.host);
      assert.equal(r.host, s.to);
      assert.ok(r.tNs >= s.tNs);
    }
    // Events and annotations come in the order they happened.
    for (let i = 1; i < records.length; i++) assert.ok(records[i].tNs >= records[i - 1].tNs && records[i].n >= records[i - 1].n, `record ${i} in order`);
    const data = [...sends.values()].filter((s) => s.seg === 'data' && s.data?.startsWith('ping'));
    assert.deepEqual(data.map((s) => s.data), ['ping 0', 'ping 1', 'ping 2']);
    assert.ok(data.every((s) => s.proto === 'tcp' && s.conn > 0 && s.site?.startsWith('test/view/trace.test.mjs:')), JSON.stringify(data[0]));
    assert.ok([...sends.values()].some((s) => s.seg === 'syn') && [...sends.values()].some((s) => s.seg === 'syn-ack'));
    // The write during the partition: dropped, retransmitted under the same msg, then delivered.
    const lost = [...sends.values()].find((s) => s.data === 'lost for a while');
    const attempts = records.filter((r) => r.kind === 'send' && r.msg === lost.msg);
    assert.equal(attempts[0].fate, 'dropped');
    assert.equal(attempts[0].by, 'partition');
    assert.ok(attempts.length >= 2 && attempts.at(-1).fate === undefined && attempts.at(-1).retry === attempts.length - 1);
    assert.equal(recvs.filter((r) => r.msg === lost.msg).length, 1);
    assert.ok([...sends.values()].some((s) => s.proto === 'udp' && s.seg === 'dgram' && s.data === 'dgram'));
    const httpFirst = [...sends.values()].filter((s) => s.http !== undefined).map((s) => s.http);
    assert.deepEqual(httpFirst, ['GET /x HTTP/1.1', 'HTTP/1.1 200 OK']);
    const conns = records.filter((r) => r.kind === 'conn');
    assert.ok(conns.some((c) => c.from === 'client' && c.to === 'server' && c.toPort === 7000));
  });

  it('record faults with their start and end, and the model turns them into bands', async () => {
    const file = path.join(tmp, 'faults.jsonl');
    await world(7, file);
    const records = read(file);
    const actions = records.filter((r) => r.kind === 'action').map((r) => `${r.action} ${r.a ?? r.target}-${r.b ?? ''}`);
    assert.deepEqual(actions, ['partition client-server', 'repair client-server', 'setLink client-server', 'setLink client-server', 'hold client-peer', 'release client-peer']);
    const model = buildModel(records);
    const kinds = model.bands.map((b) => `${b.kind} ${b.a}-${b.b} ${((b.endNs - b.startNs) / 1e6).toFixed(0)}ms`);
    assert.equal(kinds[0], 'partition client-server 300ms');
    assert.match(kinds[1], /^latency client-server \d+ms$/);
    assert.equal(kinds[2], 'hold client-peer 0ms');
    // An HTTP request and its response: one message each, however many segments carried them.
    const httpMsgs = model.messages.filter((m) => m.seg === 'http');
    assert.deepEqual(httpMsgs.map((m) => m.http), ['GET /x HTTP/1.1', 'HTTP/1.1 200 OK']);
    assert.ok(httpMsgs.every((m) => m.recvs.length === 1 && m.recvs[0].tNs - m.sendNs >= 50e6), 'delivered over the 50 ms link');
    assert.deepEqual(model.hosts.map((h) => h.name), ['server', 'peer', 'client']);
  });

  it('name the failure and where it was raised', async () => {
    const file = path.join(tmp, 'fail.jsonl');
    await assert.rejects(world(7, file, { fail: true }), SimulationError);
    const failure = read(file).find((r) => r.kind === 'failure');
    assert.equal(failure.failure, 'crash');
    assert.equal(failure.host, 'client');
    assert.equal(failure.message, 'Error: planted failure');
    assert.match(failure.site, /^test\/view\/trace\.test\.mjs:\d+:\d+$/);
  });
});

describe('trace annotations in register mode', function () {
  this.timeout(60_000);

  it('a program\'s crash is in its trace, with the site that threw', async () => {
    const program = path.join(tmp, 'crashing.mjs');
    (await import('node:fs')).writeFileSync(program, "import net from 'node:net';\nconst s = net.createServer((c) => c.end('bye')).listen(7000, () => {\n  net.connect(7000, 'localhost').on('data', () => { s.close(); throw new Error('after the message'); });\n});\n");
    const trace = path.join(tmp, 'crashing.jsonl');
    const code = await new Promise((resolve) => execFile(process.execPath, ['--import', path.join(ROOT, 'dist', 'register.mjs'), program], { env: { ...process.env, DST_SEED: '3', DST_TRACE: trace, DST_QUIET: '1' } }, (e) => resolve(e ? e.code : 0)));
    assert.equal(code, 1);
    const records = read(trace);
    assert.equal(records[0].mode, 'register');
    const failure = records.find((r) => r.kind === 'failure');
    assert.deepEqual([failure.failure, failure.host, failure.message], ['crash', 'main', 'Error: after the message']);
    assert.match(failure.site, /crashing\.mjs:3:\d+$/);
    const data = records.find((r) => r.kind === 'send' && r.data === 'bye');
    assert.ok(records.some((r) => r.kind === 'recv' && r.msg === data.msg), 'the message that triggered it is linked');
  });
});

describe('dst trace export --format chrome', function () {
  this.timeout(60_000);

  it('writes Trace Event JSON: hosts as processes, events as slices, messages as flows, faults and the failure', async () => {
    const file = path.join(tmp, 'export.jsonl');
    await assert.rejects(world(9, file, { fail: true }), SimulationError);
    const out = path.join(tmp, 'export.chrome.json');
    const result = await new Promise((resolve) => execFile(process.execPath, ['cli/dst.mjs', 'trace', 'export', '--format', 'chrome', file, '--out', out], { cwd: ROOT }, (e, stdout, stderr) => resolve({ code: e ? e.code : 0, stdout, stderr })));
    assert.equal(result.code, 0, result.stderr);
    const chrome = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(chrome.displayTimeUnit, 'ns');
    const ev = chrome.traceEvents;
    const records = await readTrace(file);
    const processes = ev.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => e.args.name);
    assert.deepEqual(processes, ['server', 'peer', 'client', 'faults']);
    // Every event is a zero-length slice on its host's process, its incarnation's thread, at its time in µs.
    const events = records.filter((r) => r.seq !== undefined);
    const slices = ev.filter((e) => e.ph === 'X' && e.cat === 'event');
    assert.equal(slices.length, events.length);
    const pidOf = new Map(processes.map((name, i) => [name, i + 1]));
    for (const [i, r] of events.entries()) {
      assert.deepEqual([slices[i].pid, slices[i].tid, slices[i].ts, slices[i].args.n], [pidOf.get(r.host), r.boot, r.tNs / 1000, r.n]);
    }
    // Flows: each start has its finish (same id), from the sending event's slice to the delivering one's.
    const starts = ev.filter((e) => e.ph === 's');
    const finishes = new Map(ev.filter((e) => e.ph === 'f').map((e) => [e.id, e]));
    assert.ok(starts.length >= 15, `${starts.length} flows`);
    assert.equal(finishes.size, starts.length);
    const sliceAt = (pid, tid, ts) => slices.some((s) => s.pid === pid && s.tid === tid && s.ts === ts);
    for (const s of starts) {
      const f = finishes.get(s.id);
      assert.ok(f !== undefined && f.bp === 'e' && f.ts >= s.ts);
      assert.ok(sliceAt(s.pid, s.tid, s.ts) && sliceAt(f.pid, f.tid, f.ts), 'flows bind to event slices');
    }
    assert.ok(starts.some((s) => s.name === 'GET /x HTTP/1.1'));
    const faults = ev.filter((e) => e.ph === 'X' && e.cat === 'fault').map((e) => e.name);
    assert.ok(faults.includes('partition client ↔ server'), faults.join(', '));
    const failure = ev.find((e) => e.cat === 'failure');
    assert.equal(failure.ph, 'i');
    assert.match(failure.args.site, /trace\.test\.mjs:\d+:\d+$/);
    const incarnations = ev.filter((e) => e.cat === 'incarnation').map((e) => e.name);
    assert.ok(incarnations.includes('client boot 1 (uncaught)'), incarnations.join(', '));
  });
});

describe('dst view and --view', function () {
  this.timeout(120_000);
  const COUNTER = 'examples/scenarios/replicated-counter.mjs';
  const dst = (args, env = {}) =>
    new Promise((resolve) => execFile(process.execPath, ['cli/dst.mjs', ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (e, stdout, stderr) => resolve({ code: e ? e.code : 0, stdout, stderr })));
  /** The data a page embeds, and that it needs nothing from elsewhere to open. */
  const page = (file) => {
    const html = readFileSync(file, 'utf8');
    assert.doesNotMatch(html, /\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i, 'loads nothing from the network');
    assert.doesNotMatch(html, /<link\b|@import|\bfetch\(/i, 'no stylesheet or data fetched');
    const data = /<script type="application\/json" id="dst-data">(.*?)<\/script>/s.exec(html);
    assert.ok(data !== null, 'the trace is in the page');
    return JSON.parse(data[1]);
  };

  it('dst view writes one self-contained page of a trace beside it, and says what it holds', async () => {
    const file = path.join(tmp, 'viewed.jsonl');
    await assert.rejects(world(11, file, { fail: true }), SimulationError);
    const r = await dst(['view', file]);
    assert.equal(r.code, 0, r.stderr);
    const out = path.join(tmp, 'viewed.html');
    assert.match(r.stdout, new RegExp(`^view +file://${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    assert.match(r.stdout, /3 hosts, \d+ events, \d+ messages, 3 fault bands, failed \(crash\) at event \d+/);
    const data = page(out);
    assert.deepEqual(data.hosts.map((h) => h.name), ['server', 'peer', 'client']);
    assert.equal(data.failure.message, 'Error: planted failure');
    assert.equal(data.run.seed, '0xb');
  });

  it('dst view refuses a missing trace, a file that is no trace, and no file, with 64', async () => {
    assert.equal((await dst(['view'])).code, 64);
    const missing = await dst(['view', path.join(tmp, 'nothing-here.jsonl')]);
    assert.equal(missing.code, 64);
    assert.match(missing.stderr, /nothing-here\.jsonl/);
    const notTrace = path.join(tmp, 'not-a-trace.jsonl');
    (await import('node:fs')).writeFileSync(notTrace, 'hello\n');
    const bad = await dst(['view', notTrace]);
    assert.equal(bad.code, 64, bad.stdout + bad.stderr);
    assert.match(bad.stderr, /not-a-trace\.jsonl: line 1 is not JSON/);
    // JSON, but not a trace (a report, say): each line of a trace has n, tNs and kind.
    (await import('node:fs')).writeFileSync(notTrace, '{"seed":"0x1","fingerprint":"f"}\n');
    const json = await dst(['view', notTrace]);
    assert.equal(json.code, 64, json.stdout + json.stderr);
    assert.match(json.stderr, /not-a-trace\.jsonl: line 1 is no trace record/);
    (await import('node:fs')).writeFileSync(notTrace, '');
    assert.match((await dst(['trace', 'export', '--format', 'chrome', notTrace])).stderr, /not-a-trace\.jsonl: it is empty/);
  });

  it('explore --view writes each failing seed\'s page beside its trace; replay --view the page of a recorded failure', async () => {
    const base = path.join(tmp, 'explored');
    const report = path.join(tmp, 'explored.json');
    // Seeds 0x5 and 0x6 of the buggy counter: 0x6 fails.
    const r = await dst(['explore', COUNTER, '--seeds', '2', '--first', '5', '--jobs', '1', '--trace', base, '--view', '--report', report], { DST_COUNTER_BUG: '1' });
    assert.equal(r.code, 71, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`^view +0x6: file://${base}\\.0x6\\.html$`, 'm'));
    const explored = page(`${base}.0x6.html`);
    assert.equal(explored.run.seed, '0x6');
    assert.equal(explored.failure.failure, 'safety');
    const replayed = path.join(tmp, 'replayed.html');
    const again = await dst(['replay', report, '--view', '--out', replayed]);
    assert.equal(again.code, 71, again.stdout + again.stderr);
    const data = page(replayed);
    assert.deepEqual([data.run.seed, data.failure.n, data.failure.site], ['0x6', explored.failure.n, explored.failure.site]);
  });
});
