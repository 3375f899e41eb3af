/**
 * Node's own http server and client, and global fetch (undici), between simulated hosts, on
 * virtual time: bodies, headers (Date from the server host's clock), keep-alive pools per host,
 * chunked streams, errors as Node reports them (a crashed server, an unknown host, a timeout),
 * headersTimeout / requestTimeout, and determinism. The last tests run one program plainly and
 * under `node --import dst-runtime/register` and compare.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEFAULTS, Sim } from 'dst-runtime';

const EPOCH_MS = DEFAULTS.epochMs;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** http.request as a promise: what a program can observe of the response. */
function request(url, { method = 'GET', body, headers, agent } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, async (res) => {
      let text = '';
      res.setEncoding('utf8');
      for await (const chunk of res) text += chunk;
      resolve({
        status: res.statusCode,
        headers: res.headers,
        names: res.rawHeaders.filter((_, i) => i % 2 === 0),
        body: text,
        reused: req.reusedSocket,
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What a program can observe of an error (and of its cause). */
function shape(error) {
  if (error === undefined || error === null) return error;
  return { name: error.name, message: error.message, code: error.code, cause: shape(error.cause) };
}

/** Raw bytes over a TCP connection (strings are written, numbers are pauses in ms); resolves with what came back and when the socket closed. */
function rawExchange(port, host, chunks) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let data = '';
    const socket = net.connect(port, host, async () => {
      for (const chunk of chunks) {
        if (typeof chunk === 'number') await sleep(chunk);
        else socket.write(chunk);
      }
    });
    socket.on('data', (chunk) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ firstLine: data.split('\r\n')[0], data, closedAfterMs: Date.now() - started }));
  });
}

describe('http and fetch between simulated hosts', function () {
  const storeHeader = http.OutgoingMessage.prototype._storeHeader;
  const httpAgentModule = createRequire(import.meta.url)('node:_http_agent');
  const globalAgent = httpAgentModule.globalAgent;

  afterEach(function () {
    // Library mode leaves node:http and undici exactly as they were.
    assert.equal(http.OutgoingMessage.prototype._storeHeader, storeHeader);
    assert.equal(Object.hasOwn(http.Server.prototype, 'emit'), false);
    assert.equal(httpAgentModule.globalAgent, globalAgent);
    assert.equal(http.globalAgent, globalAgent);
    const dispatcher = globalThis[Symbol.for('undici.globalDispatcher.1')];
    if (dispatcher !== undefined) assert.equal(Object.hasOwn(dispatcher, 'dispatch'), false);
  });

  it('GET and POST with bodies over fetch and http.request reach the host by name (seed 0x11)', async function () {
    const seen = [];
    const got = {};
    const sim = new Sim({ seed: 0x11 });
    sim.host('api', () => {
      http
        .createServer(async (req, res) => {
          let body = '';
          for await (const chunk of req) body += chunk;
          seen.push({ method: req.method, url: req.url, length: body.length, host: req.headers.host, from: req.socket.remoteAddress });
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ method: req.method, url: req.url, body: body.slice(0, 20), length: body.length }));
        })
        .listen(80);
    });
    sim.client('client', async () => {
      got.address = sim.addressOf('client').ipv4;
      const get = await fetch('http://api/items?id=7');
      got.get = { status: get.status, type: get.headers.get('content-type'), json: await get.json() };
      const post = await fetch('http://api/items', { method: 'POST', body: 'x'.repeat(300_000) });
      got.post = { status: post.status, json: await post.json() };
      const put = await request('http://api/upload', { method: 'PUT', body: 'hello', headers: { 'content-type': 'text/plain' } });
      got.put = { status: put.status, json: JSON.parse(put.body) };
    });
    const result = await sim.run();

    assert.equal(result.stopReason, 'clients-done');
    assert.equal(got.address, '10.0.0.2');
    assert.deepEqual(got.get, { status: 200, type: 'application/json', json: { method: 'GET', url: '/items?id=7', body: '', length: 0 } });
    assert.deepEqual(got.post, { status: 200, json: { method: 'POST', url: '/items', body: 'x'.repeat(20), length: 300_000 } });
    assert.deepEqual(got.put, { status: 200, json: { method: 'PUT', url: '/upload', body: 'hello', length: 5 } });
    assert.deepEqual(
      seen.map((s) => [s.method, s.url, s.length, s.host, s.from]),
      [
        ['GET', '/items?id=7', 0, 'api', '::ffff:10.0.0.2'],
        ['POST', '/items', 300_000, 'api', '::ffff:10.0.0.2'],
        ['PUT', '/upload', 5, 'api', '::ffff:10.0.0.2'],
      ],
    );
  });

  it("the Date header is the server host's clock, placed where Node puts it (seed 0x12)", async function () {
    function handler(req, res) {
      const expected = () => res.setHeader('x-expected', new Date(Date.now()).toUTCString());
      switch (req.url) {
        case '/later':
          return setTimeout(() => (expected(), res.end('ok')), 2_500);
        case '/no-date':
          res.sendDate = false;
          return res.end('ok');
        case '/own-date':
          res.setHeader('Date', 'Tue, 01 Jan 2030 00:00:00 GMT');
          return res.end('ok');
        case '/array':
          res.writeHead(200, ['X-A', '1', 'X-B', '2']);
          return res.end('ok');
        case '/nested':
          res.writeHead(200, [['X-D', '4']]);
          return res.end('ok');
        case '/object':
          res.writeHead(200, { 'X-C': '3', 'Content-Type': 'text/plain' });
          return res.end('ok');
        default:
          expected();
          return res.end('ok');
      }
    }
    const PATHS = ['/', '/no-date', '/own-date', '/array', '/nested', '/object'];

    // Real Node, outside any simulation: the order of the header names.
    const real = http.createServer(handler);
    await new Promise((resolve) => real.listen(0, '127.0.0.1', resolve));
    const realNames = {};
    const agent = new http.Agent({ keepAlive: true });
    for (const p of PATHS) realNames[p] = (await request(`http://127.0.0.1:${real.address().port}${p}`, { agent })).names;
    agent.destroy();
    real.close();

    const got = {};
    const sim = new Sim({ seed: 0x12 });
    sim.host('api', () => http.createServer(handler).listen(80), { skewMs: 90_000 });
    sim.client('client', async () => {
      await sleep(250);
      for (const p of [...PATHS, '/later']) got[p] = await request(`http://api${p}`);
      const viaFetch = await fetch('http://api/');
      got.fetch = { date: viaFetch.headers.get('date'), expected: viaFetch.headers.get('x-expected') };
    });
    await sim.run();

    const offsetMs = (date) => Date.parse(date) - EPOCH_MS;
    assert.equal(got['/'].headers.date, got['/'].headers['x-expected']);
    assert.ok(offsetMs(got['/'].headers.date) >= 90_000 && offsetMs(got['/'].headers.date) < 91_000, got['/'].headers.date);
    assert.equal(got['/later'].headers.date, got['/later'].headers['x-expected']);
    assert.ok(offsetMs(got['/later'].headers.date) >= 92_000 && offsetMs(got['/later'].headers.date) < 94_000, got['/later'].headers.date);
    assert.equal(got.fetch.date, got.fetch.expected);
    assert.equal(got['/no-date'].headers.date, undefined);
    assert.equal(got['/own-date'].headers.date, 'Tue, 01 Jan 2030 00:00:00 GMT');
    for (const p of PATHS) assert.deepEqual(got[p].names, realNames[p], `header names of ${p}`);
    assert.deepEqual(got['/array'].names, ['X-A', 'X-B', 'Date', 'Connection', 'Keep-Alive', 'Transfer-Encoding']);
    assert.deepEqual(got['/own-date'].names.filter((n) => n.toLowerCase() === 'date'), ['Date']);
  });

  it('keep-alive: each host has its own pools; idle connections expire on virtual time (seed 0x13)', async function () {
    const connections = [];
    const requests = [];
    const results = { alice: {}, bob: {} };
    const sim = new Sim({ seed: 0x13 });
    sim.host('api', () => {
      const server = http.createServer((req, res) => {
        const connection = connections.find((c) => c.socket === req.socket);
        requests.push({ url: req.url, from: req.socket.remoteAddress, port: req.socket.remotePort });
        res.on('finish', () => (connection.lastFinishAt = Date.now()));
        res.end(`hi ${req.url}`);
      });
      server.on('connection', (socket) => {
        const connection = { socket, from: socket.remoteAddress, port: socket.remotePort, closedAt: undefined };
        connections.push(connection);
        socket.on('close', () => (connection.closedAt = Date.now()));
      });
      server.listen(80);
    });
    sim.client('alice', async () => {
      const viaHttp = [await request('http://api/alice/h1'), await request('http://api/alice/h2')];
      results.alice.httpReused = viaHttp.map((r) => r.reused);
      for (let i = 0; i < 4; i++) await (await fetch(`http://api/alice/f${i}`)).text();
      await sleep(10_000);
      await (await fetch('http://api/alice/late')).text();
    });
    sim.client('bob', async () => {
      await sleep(3);
      for (let i = 0; i < 2; i++) await (await fetch(`http://api/bob/f${i}`)).text();
      results.bob.httpReused = [(await request('http://api/bob/h1')).reused, (await request('http://api/bob/h2')).reused];
    });
    await sim.run();

    const address = { alice: '::ffff:10.0.0.2', bob: '::ffff:10.0.0.3' };
    for (const r of requests) assert.equal(r.from, address[r.url.split('/')[1]], `${r.url} came from its own host`);
    for (const c of connections) assert.ok(c.from === address.alice || c.from === address.bob);
    assert.deepEqual(results.alice.httpReused, [false, true]);
    assert.deepEqual(results.bob.httpReused, [false, true]);

    const portOf = (url) => requests.find((r) => r.url === url).port;
    // Plain Node does the same: four sequential fetches alternate between two connections.
    const fetchPorts = [0, 1, 2, 3].map((i) => portOf(`/alice/f${i}`));
    assert.equal(new Set(fetchPorts).size, 2);
    assert.equal(fetchPorts[0], fetchPorts[2]);
    assert.equal(fetchPorts[1], fetchPorts[3]);
    assert.ok(!fetchPorts.includes(portOf('/alice/late')), 'after 10 s idle the pool had to reconnect');

    // undici closes an idle connection after the server's hint minus 2 s (Keep-Alive: timeout=5).
    for (const port of new Set(fetchPorts)) {
      const c = connections.find((x) => x.port === port && x.from === address.alice);
      const idleMs = c.closedAt - c.lastFinishAt;
      assert.ok(idleMs > 3_000 && idleMs < 3_020, `fetch connection closed ${idleMs} ms after its last response`);
    }
    // http.Agent keeps a free socket for the server's hint minus 1 s (Keep-Alive: timeout=5).
    const httpConnection = connections.find((x) => x.port === portOf('/alice/h1') && x.from === address.alice);
    const httpIdleMs = httpConnection.closedAt - httpConnection.lastFinishAt;
    assert.ok(httpIdleMs > 4_000 && httpIdleMs < 4_020, `http.Agent socket closed ${httpIdleMs} ms after its last response`);
  });

  it('server keepAliveTimeout closes idle connections at timeout + 1 s, on virtual time (seed 0x1a)', async function () {
    const closes = [];
    let exchange;
    const sim = new Sim({ seed: 0x1a });
    sim.host('api', () => {
      const server = http.createServer({ keepAliveTimeout: 1_000 }, (req, res) => {
        res.on('finish', () => {
          const finishedAt = Date.now();
          req.socket.on('close', () => closes.push(Date.now() - finishedAt));
        });
        res.end('ok');
      });
      server.listen(80);
    });
    // A client that keeps the connection open: only the server's timer can close it.
    sim.client('client', async () => {
      exchange = await rawExchange(80, 'api', ['GET / HTTP/1.1\r\nHost: api\r\n\r\n']);
    });
    const started = performance.now();
    await sim.run();
    assert.equal(exchange.firstLine, 'HTTP/1.1 200 OK');
    assert.match(exchange.data, /\r\nKeep-Alive: timeout=1\r\n/);
    assert.deepEqual(closes, [2_000]);
    assert.ok(exchange.closedAfterMs > 2_000 && exchange.closedAfterMs < 2_030, `closed after ${exchange.closedAfterMs} ms`);
    assert.ok(performance.now() - started < 2_000, 'virtual seconds, not real ones');
  });

  it('chunked responses and uploads stream on virtual time (seed 0x14)', async function () {
    const got = {};
    const uploads = [];
    const sim = new Sim({ seed: 0x14 });
    sim.host('api', () => {
      http
        .createServer(async (req, res) => {
          if (req.method === 'POST') {
            const start = Date.now();
            for await (const chunk of req) uploads.push([String(chunk), Date.now() - start]);
            return res.end(`te=${req.headers['transfer-encoding']}`);
          }
          for (let i = 0; i < 5; i++) {
            res.write(`part${i};`);
            await sleep(100);
          }
          res.end();
        })
        .listen(80);
    });
    sim.client('client', async () => {
      const res = await fetch('http://api/stream');
      got.te = res.headers.get('transfer-encoding');
      got.length = res.headers.get('content-length');
      const arrivals = [];
      const start = Date.now();
      for await (const chunk of res.body) arrivals.push([Buffer.from(chunk).toString(), Date.now() - start]);
      got.fetchChunks = arrivals;

      const viaHttp = await new Promise((resolve, reject) => {
        const parts = [];
        http.get('http://api/stream', (r) => {
          r.on('data', (c) => parts.push(String(c)));
          r.on('end', () => resolve({ te: r.headers['transfer-encoding'], parts }));
        }).on('error', reject);
      });
      got.http = viaHttp;

      const body = new ReadableStream({
        async start(controller) {
          for (const part of ['a', 'bb', 'ccc']) {
            controller.enqueue(new TextEncoder().encode(part));
            await sleep(50);
          }
          controller.close();
        },
      });
      const upload = await fetch('http://api/upload', { method: 'POST', body, duplex: 'half' });
      got.upload = await upload.text();
    });
    await sim.run();

    assert.equal(got.te, 'chunked');
    assert.equal(got.length, null);
    assert.deepEqual(got.fetchChunks.map(([text]) => text), ['part0;', 'part1;', 'part2;', 'part3;', 'part4;']);
    const gaps = got.fetchChunks.slice(1).map(([, at], i) => at - got.fetchChunks[i][1]);
    for (const gap of gaps) assert.ok(gap >= 95 && gap <= 105, `chunks ${gaps.join(', ')} ms apart`);
    assert.deepEqual(got.http, { te: 'chunked', parts: ['part0;', 'part1;', 'part2;', 'part3;', 'part4;'] });
    assert.equal(got.upload, 'te=chunked');
    assert.deepEqual(uploads.map(([text]) => text), ['a', 'bb', 'ccc']);
    assert.ok(uploads[2][1] - uploads[1][1] >= 45 && uploads[2][1] - uploads[1][1] <= 55, JSON.stringify(uploads));
  });

  it('404, an unknown host and a closed port fail as in Node, without the real network (seed 0x15)', async function () {
    const got = {};
    const sim = new Sim({ seed: 0x15 });
    sim.host('api', () => {
      http
        .createServer((req, res) => {
          res.statusCode = 404;
          res.end('no such page');
        })
        .listen(80);
    });
    sim.client('client', async () => {
      const missing = await fetch('http://api/missing');
      got.missing = { status: missing.status, statusText: missing.statusText, ok: missing.ok, body: await missing.text() };
      got.fetchUnknown = await fetch('http://nohost.invalid/').then(() => 'answered', shape);
      got.httpUnknown = await request('http://nohost.invalid/').then(() => 'answered', shape);
      got.fetchRefused = await fetch('http://api:81/').then(() => 'answered', shape);
      got.httpRefused = await request('http://api:81/').then(() => 'answered', shape);
      got.elapsedMs = Date.now() - EPOCH_MS;
    });
    await sim.run();

    assert.deepEqual(got.missing, { status: 404, statusText: 'Not Found', ok: false, body: 'no such page' });
    assert.deepEqual(got.fetchUnknown, {
      name: 'TypeError',
      message: 'fetch failed',
      code: undefined,
      cause: { name: 'Error', message: 'getaddrinfo ENOTFOUND nohost.invalid', code: 'ENOTFOUND', cause: undefined },
    });
    assert.deepEqual(got.httpUnknown, { name: 'Error', message: 'getaddrinfo ENOTFOUND nohost.invalid', code: 'ENOTFOUND', cause: undefined });
    assert.deepEqual(got.fetchRefused.cause, { name: 'Error', message: 'connect ECONNREFUSED 10.0.0.1:81', code: 'ECONNREFUSED', cause: undefined });
    assert.equal(got.fetchRefused.message, 'fetch failed');
    assert.deepEqual(got.httpRefused, { name: 'Error', message: 'connect ECONNREFUSED 10.0.0.1:81', code: 'ECONNREFUSED', cause: undefined });
    assert.ok(got.elapsedMs < 100, `answered within ${got.elapsedMs} virtual ms`);
  });

  it('req.abort() in the \'socket\' event of a request to a name: error and close at once, as plainly (issue 20 item 7)', async () => {
    // The socket's handle exists before its DNS lookup answers; closed then, its close callback
    // came from the real loop, thousands of virtual seconds later.
    const seen = [];
    const sim = new Sim({ seed: 0x16 });
    sim.host('api', () => http.createServer((req, res) => res.end('ok')).listen(8080));
    sim.client('client', async () => {
      await new Promise((resolve) => {
        const t0 = performance.now();
        const req = http.get({ host: 'localhost', port: 8081 });
        req.on('socket', () => req.abort());
        req.on('error', (e) => seen.push(`error ${e.code} after ${performance.now() - t0} ms`));
        req.on('close', () => resolve(seen.push(`close after ${performance.now() - t0} ms`)));
      });
    });
    await sim.run();
    assert.deepEqual(seen, ['error ECONNRESET after 0 ms', 'close after 0 ms']);
  });

  it('a server killed mid-request fails the clients as a killed Node process does (seed 0x16)', async function () {
    function handler(req, res) {
      if (req.url === '/partial') {
        res.writeHead(200, { 'content-length': 100 });
        res.write('abc');
      }
    }
    /**
     * Starts four requests that the server leaves pending. `partialSeen` resolves once both
     * partial responses reached the client (headers and the first bytes), `outcomes` with how
     * each request failed.
     */
    function pendingRequests(base) {
      const outcomes = {};
      let seen = 0;
      let onSeen;
      const partialSeen = new Promise((resolve) => (onSeen = () => ++seen === 2 && resolve()));
      const httpNone = new Promise((resolve) => {
        http.get(`${base}/none`, () => resolve((outcomes.httpNone = 'answered'))).on('error', (e) => resolve((outcomes.httpNone = shape(e))));
      });
      const httpPartial = new Promise((resolve) => {
        http
          .get(`${base}/partial`, (res) => {
            res.once('data', onSeen);
            res.on('error', (e) => resolve((outcomes.httpPartial = shape(e))));
          })
          .on('error', (e) => resolve((outcomes.httpPartial = { request: shape(e) })));
      });
      const fetchNone = fetch(`${base}/none`).then(() => 'answered', shape).then((v) => (outcomes.fetchNone = v));
      const fetchPartial = fetch(`${base}/partial`)
        .then(async (res) => {
          const reader = res.body.getReader();
          await reader.read();
          onSeen();
          while (!(await reader.read()).done);
        })
        .then(() => 'answered', shape)
        .then((v) => (outcomes.fetchPartial = v));
      return { partialSeen, outcomes: Promise.all([httpNone, httpPartial, fetchNone, fetchPartial]).then(() => outcomes) };
    }

    // Real Node: a server process killed with SIGKILL while the requests wait.
    const child = spawn(process.execPath, [path.join(HERE, 'fixtures/http-crash-server.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = [];
    let check = () => {};
    child.stdout.setEncoding('utf8').on('data', (text) => {
      lines.push(...text.trim().split('\n'));
      check();
    });
    const waitFor = (predicate) =>
      new Promise((resolve) => {
        check = () => predicate() && resolve();
        check();
      });
    await waitFor(() => lines.some((l) => l.startsWith('port ')));
    const port = lines.find((l) => l.startsWith('port ')).slice(5);
    const agent = http.globalAgent;
    const realRequests = pendingRequests(`http://127.0.0.1:${port}`);
    await waitFor(() => lines.filter((l) => l.startsWith('got ')).length === 4);
    await realRequests.partialSeen;
    child.kill('SIGKILL');
    const real = await realRequests.outcomes;
    agent.destroy();

    let simulated;
    let after;
    const sim = new Sim({ seed: 0x16 });
    const received = [];
    sim.host('api', () => http.createServer((req, res) => (received.push(req.url), handler(req, res))).listen(80));
    sim.client('client', async () => {
      const requests = pendingRequests('http://api');
      while (received.length < 4) await sleep(1);
      await requests.partialSeen;
      sim.kill('api');
      simulated = await requests.outcomes;
      after = await fetch('http://api/').then(() => 'answered', shape);
    });
    await sim.run();

    assert.deepEqual(simulated, real);
    assert.deepEqual(simulated.httpNone, { name: 'Error', message: 'socket hang up', code: 'ECONNRESET', cause: undefined });
    assert.deepEqual(simulated.fetchNone.cause, { name: 'SocketError', message: 'other side closed', code: 'UND_ERR_SOCKET', cause: undefined });
    assert.deepEqual(simulated.httpPartial, { name: 'Error', message: 'aborted', code: 'ECONNRESET', cause: undefined });
    assert.equal(simulated.fetchPartial.message, 'terminated');
    assert.equal(after.cause.code, 'ECONNREFUSED');
  });

  it('fetch with AbortSignal.timeout aborts at the virtual deadline (seed 0x17)', async function () {
    const got = {};
    const sim = new Sim({ seed: 0x17 });
    sim.host('api', () => http.createServer((req, res) => setTimeout(() => res.end('late'), 5_000)).listen(80));
    sim.client('client', async () => {
      const start = Date.now();
      got.error = await fetch('http://api/', { signal: AbortSignal.timeout(1_500) }).then(() => 'answered', (e) => ({
        name: e.name,
        message: e.message,
        isDomException: e instanceof DOMException,
      }));
      got.afterMs = Date.now() - start;
      const slow = await fetch('http://api/', { signal: AbortSignal.timeout(6_000) });
      got.slow = [await slow.text(), Date.now() - start];
    });
    const started = performance.now();
    await sim.run();

    assert.deepEqual(got.error, { name: 'TimeoutError', message: 'The operation was aborted due to timeout', isDomException: true });
    assert.equal(got.afterMs, 1_500);
    assert.equal(got.slow[0], 'late');
    assert.ok(got.slow[1] > 6_500 && got.slow[1] < 6_600, `answered after ${got.slow[1]} virtual ms`);
    assert.ok(performance.now() - started < 3_000, 'virtual time, not real time');
  });

  it("undici's connect and headers timeouts (its shared 499 ms tick) fire on virtual time, run after run (seed 0x1b)", async function () {
    async function once() {
      const got = {};
      const sim = new Sim({ seed: 0x1b });
      sim.host('api', () => http.createServer(() => {}).listen(80));
      sim.client('client', async () => {
        let start = Date.now();
        // No host owns 10.0.0.99: the SYN is lost, TCP would retry for 127 s.
        got.connect = await fetch('http://10.0.0.99/').then(() => 'answered', shape);
        got.connectMs = Date.now() - start;
        start = Date.now();
        got.headers = await fetch('http://api/').then(() => 'answered', shape);
        got.headersMs = Date.now() - start;
      });
      await sim.run();
      return got;
    }
    const first = await once();
    assert.deepEqual(first.connect, {
      name: 'TypeError',
      message: 'fetch failed',
      code: undefined,
      cause: {
        name: 'ConnectTimeoutError',
        message: 'Connect Timeout Error (attempted address: 10.0.0.99:80, timeout: 10000ms)',
        code: 'UND_ERR_CONNECT_TIMEOUT',
        cause: undefined,
      },
    });
    assert.ok(first.connectMs >= 10_000 && first.connectMs <= 11_000, `connect timeout after ${first.connectMs} ms`);
    assert.equal(first.headers.cause.code, 'UND_ERR_HEADERS_TIMEOUT');
    assert.ok(first.headersMs >= 300_000 && first.headersMs <= 301_100, `headers timeout after ${first.headersMs} ms`);
    assert.deepEqual(await once(), first);
  });

  it('headersTimeout and requestTimeout answer 408 on virtual time (seed 0x18)', async function () {
    const got = {};
    const served = [];
    const sim = new Sim({ seed: 0x18 });
    sim.host('api', () => {
      http
        .createServer({ headersTimeout: 2_000, requestTimeout: 5_000, connectionsCheckingInterval: 250 }, (req, res) => {
          req.resume();
          req.on('end', () => served.push(req.url));
          // Answering slowly is not a request timeout: the request was complete.
          setTimeout(() => res.end('ok'), 6_000);
        })
        .listen(80);
    });
    sim.client('client', async () => {
      const exchanges = [
        rawExchange(80, 'api', ['GET /headers HTTP/1.1\r\nHost: api\r\n']),
        rawExchange(80, 'api', ['POST /body HTTP/1.1\r\nHost: api\r\nContent-Length: 10\r\n\r\n12345']),
        rawExchange(80, 'api', ['GET /slow-headers HTTP/1.1\r\n', 1_000, 'Host: api\r\n', 900, 'Connection: close\r\n\r\n']),
        rawExchange(80, 'api', ['GET /slow-answer HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n']),
      ];
      [got.headers, got.body, got.slowHeaders, got.slowAnswer] = await Promise.all(exchanges);
    });
    await sim.run();

    assert.equal(got.headers.firstLine, 'HTTP/1.1 408 Request Timeout');
    assert.ok(got.headers.closedAfterMs > 2_000 && got.headers.closedAfterMs <= 2_270, `408 after ${got.headers.closedAfterMs} ms`);
    assert.equal(got.body.firstLine, 'HTTP/1.1 408 Request Timeout');
    assert.ok(got.body.closedAfterMs > 5_000 && got.body.closedAfterMs <= 5_270, `408 after ${got.body.closedAfterMs} ms`);
    assert.equal(got.slowHeaders.firstLine, 'HTTP/1.1 200 OK');
    assert.equal(got.slowAnswer.firstLine, 'HTTP/1.1 200 OK');
    assert.ok(got.slowAnswer.closedAfterMs > 6_000, 'a slow answer is not a request timeout');
    assert.deepEqual(served.sort(), ['/slow-answer', '/slow-headers']);
  });

  it('server.close() lets the run end: nothing is left ticking (seed 0x19)', async function () {
    const log = [];
    const sim = new Sim({ seed: 0x19 });
    let server;
    sim.host('api', () => {
      server = http.createServer({ headersTimeout: 1_000, connectionsCheckingInterval: 100 }, (req, res) => res.end('ok')).listen(80);
    });
    sim.host('caller', async () => {
      await (await fetch('http://api/')).text();
      await request('http://api/');
      await new Promise((resolve) => server.close(resolve));
      log.push(`closed at ${Date.now() - EPOCH_MS}`);
    });
    const result = await sim.run();
    assert.equal(result.stopReason, 'quiescent');
    assert.equal(log.length, 1);
    // The checker (every 100 ms) and undici's keep-alive ticks stop with the server and its
    // connections; the http.Agent's free socket is closed by the server.
    assert.ok(result.elapsedNs < 1e9, `ended at ${result.elapsedNs} ns`);
  });

  describe('determinism', function () {
    /** Two clients, both APIs, keep-alive expiry, a chunked stream; every response with its virtual time. */
    async function scenario(seed, network) {
      const logs = { c1: [], c2: [] };
      const sim = new Sim({ seed, network });
      sim.host('api', () => {
        http
          .createServer(async (req, res) => {
            for await (const _ of req);
            if (req.url.endsWith('/stream')) {
              for (const part of ['x', 'y']) {
                res.write(part);
                await sleep(30);
              }
              return res.end();
            }
            setTimeout(() => res.end(`ok ${req.url}`), 3);
          })
          .listen(80);
      });
      for (const name of ['c1', 'c2']) {
        sim.client(name, async () => {
          const log = logs[name];
          for (let i = 0; i < 3; i++) {
            const res = await fetch(`http://api/${name}/${i}`, { method: 'POST', body: `n=${i}` });
            log.push(`${await res.text()} @${Date.now() - EPOCH_MS}`);
          }
          log.push(`${(await request(`http://api/${name}/stream`)).body} @${Date.now() - EPOCH_MS}`);
          await sleep(6_000);
          const res = await fetch(`http://api/${name}/late`);
          log.push(`${await res.text()} ${res.headers.get('date')} @${Date.now() - EPOCH_MS}`);
        });
      }
      const result = await sim.run();
      return { fingerprint: result.fingerprint, logs };
    }
    const withoutTimes = (logs) => JSON.stringify(logs).replace(/ @\d+/g, '').replace(/\d\d:\d\d:\d\d GMT/g, 'T');

    it('the same seed twice gives the same fingerprint and the same responses at the same times (seed 0x2a)', async function () {
      const first = await scenario(0x2a);
      const second = await scenario(0x2a);
      assert.deepEqual(second, first);
      assert.equal(first.logs.c1.length, 5);
    });

    it('20 seeds differ only through latency: same answers, and with fixed latency the same run (seeds 1-20)', async function () {
      const random = [];
      const fixed = [];
      const FIXED = { latency: { minMs: 2, maxMs: 2 }, loopbackLatency: { minMs: 0.05, maxMs: 0.05 } };
      for (let seed = 1; seed <= 20; seed++) {
        random.push(await scenario(seed));
        fixed.push(await scenario(seed, FIXED));
      }
      assert.equal(new Set(random.map((r) => r.fingerprint)).size, 20, 'random latency: every seed its own schedule');
      assert.equal(new Set(random.map((r) => withoutTimes(r.logs))).size, 1, 'the same answers whatever the seed');
      assert.equal(new Set(fixed.map((r) => r.fingerprint)).size, 1, 'fixed latency: nothing else depends on the seed');
      assert.equal(new Set(fixed.map((r) => JSON.stringify(r.logs))).size, 1);
      assert.equal(withoutTimes(fixed[0].logs), withoutTimes(random[0].logs));
    });
  });

  it('the first fetch of a process does not wait on the llhttp compile (seed 0x2c)', async function () {
    // A fresh process: on Node 22 `import 'node:http'` has already started compiling llhttp.
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(HERE, 'fixtures/http-first-fetch.mjs')]);
    const [first, second] = stdout.trim().split('\n');
    assert.match(first, /^ok after \d+ ms, fingerprint [0-9a-f]{16}, \d+ events$/);
    assert.equal(second, first);
  });

  describe('register mode', function () {
    const FIXTURE = path.join(HERE, 'fixtures/http-register.mjs');
    const run = promisify(execFile);

    it('a server that fetches from itself on localhost prints what plain Node prints, the same way each run (seed 0x2b)', async function () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-http-'));
      try {
        const plain = await run(process.execPath, [FIXTURE]);
        const simulated = [];
        for (const i of [1, 2]) {
          const report = path.join(dir, `report-${i}.json`);
          const env = { ...process.env, DST_SEED: '0x2b', DST_REPORT: report, DST_QUIET: '1' };
          const { stdout } = await run(process.execPath, ['--import', REGISTER, FIXTURE], { env });
          simulated.push({ stdout, report: JSON.parse(fs.readFileSync(report, 'utf8')) });
        }
        assert.match(plain.stdout, /incomplete headers HTTP\/1\.1 408 Request Timeout\nserver closed\n$/);
        assert.equal(simulated[0].stdout, plain.stdout);
        assert.equal(simulated[1].stdout, plain.stdout);
        assert.equal(simulated[0].report.exitCode, 0);
        assert.equal(simulated[1].report.fingerprint, simulated[0].report.fingerprint);
        assert.equal(simulated[1].report.events, simulated[0].report.events);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a keep-alive request read and answered can be collected while its connection stays open, as plainly (seed 0x2e)', async function () {
      // The server's connection tracking (headersTimeout / requestTimeout) held each request
      // until the connection's next message: Node's test-http-server-keepalive-req-gc failed.
      const program = path.join(HERE, 'fixtures/http-keepalive-req-gc.cjs');
      const plain = await run(process.execPath, ['--expose-gc', program]);
      assert.equal(plain.stdout, 'request collected with its connection open: true, connection open: true\n');
      const env = { ...process.env, DST_SEED: '0x2e', DST_QUIET: '1' };
      const simulated = await run(process.execPath, ['--expose-gc', '--import', REGISTER, program], { env });
      assert.equal(simulated.stdout, plain.stdout);
    });

    it('closeAllConnections() and server.close() end connections in the same order every run of a seed, http and https (seed 0x2f)', async function () {
      // Node's native connections list is ordered by memory address: the order changed from
      // run to run (and process to process) of one seed.
      const program = path.join(HERE, 'fixtures/http-close-connections-order.mjs');
      for (const protocol of ['http', 'https']) {
        for (const mode of ['all', 'idle']) {
          const plain = await run(process.execPath, [program, mode, protocol]);
          assert.match(plain.stdout, /^closed 8: [0-7](,[0-7]){7}\n$/);
          const env = { ...process.env, DST_SEED: '0x2f', DST_QUIET: '1' };
          const outputs = await Promise.all([1, 2, 3, 4].map(() => run(process.execPath, ['--import', REGISTER, program, mode, protocol], { env })));
          for (const { stdout } of outputs) assert.equal(stdout, outputs[0].stdout, `${protocol} ${mode}`);
          assert.match(outputs[0].stdout, /^closed 8: [0-7](,[0-7]){7}\n$/);
        }
      }
    });

    it("a program's first fetch, made from a timer's callback, is answered as in plain Node (seed 0x2d, Node 20's llhttp instantiate)", async function () {
      // On Node 20 the first connection awaited llhttp's instantiate, which settles in a task on
      // the next turn of Node's loop; the driver ran the rest of the run first (160 s of virtual
      // time in one turn) and the fetch failed with write ETIMEDOUT.
      const program = path.join(HERE, 'fixtures/http-fetch-from-timer.mjs');
      const plain = await run(process.execPath, [program]);
      assert.equal(plain.stdout, 'http.get answer to /get\nfetch 200 answer to /fetch within a second true\n');
      const fingerprints = [];
      for (let i = 0; i < 2; i++) {
        const env = { ...process.env, DST_SEED: '0x2d' };
        const { stdout, stderr } = await run(process.execPath, ['--import', REGISTER, program], { env });
        assert.equal(stdout, plain.stdout);
        fingerprints.push(/fingerprint ([0-9a-f]{16})/.exec(stderr)?.[1]);
      }
      assert.match(fingerprints[0], /^[0-9a-f]{16}$/);
      assert.equal(fingerprints[1], fingerprints[0]);
    });
  });
});
