/**
 * The trace of a TLS or HTTP/2 run is the seed's, byte for byte, however many runs came before it
 * in the process: bytes that come from outside the seed stay off the wire or out of the trace.
 * - TLS ciphertext (OpenSSL's own randomness): `send` records carry `enc: 'tls'`, no preview;
 * - an h2 server stream's `date` header: Node's utcDate() caches the REAL date (primordials'
 *   Date) for up to a second; inside a host it is the host's date, also in a second run of the
 *   same process (the patch is made again in each install);
 * - PING's default payload: Node sends its uv_hrtime; inside a host, the virtual instant.
 * Regression: determinism/tls.test.mjs compared two traces of seed 0x17 that differed in
 * ciphertext previews, in the h2c response's date header and in the PING payload.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Sim } from 'dst-runtime';

async function run(seed, trace) {
  const sim = new Sim({ seed, trace });
  const pki = sim.tls();
  const log = [];
  sim.host('api', () => {
    https.createServer({ key: pki.key('api'), cert: pki.cert('api') }, (req, res) => res.end('hi')).listen(443);
    const h2c = http2.createServer();
    h2c.on('stream', (stream) => {
      stream.respond({ ':status': 200 });
      stream.end('h2c');
    });
    h2c.listen(8080);
  });
  sim.client('web', async () => {
    log.push(
      await new Promise((resolve) => {
        https.get('https://api/', { ca: pki.ca, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(`https ${res.statusCode}`));
        });
      }),
    );
    log.push(
      await new Promise((resolve) => {
        const session = http2.connect('http://api:8080');
        const req = session.request({ ':path': '/' });
        req.on('response', (headers) => {
          req.resume();
          req.on('end', () =>
            session.ping((err, duration, payload) => {
              session.close();
              resolve(`h2c date=${headers.date} ping ${duration} payload ${payload.readBigUInt64LE()}`);
            }),
          );
        });
      }),
    );
  });
  const result = await sim.run();
  return { fingerprint: result.fingerprint, log };
}

describe('the trace of TLS and HTTP/2 runs is the seed’s', function () {
  this.timeout(60_000);
  let dir;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'dst-tls-trace-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('two runs in one process: same trace; no ciphertext preview; date and PING payload from virtual time', async () => {
    const traces = [];
    const runs = [];
    for (const name of ['a', 'b']) {
      const file = path.join(dir, `${name}.jsonl`);
      runs.push(await run('0x7e', file));
      traces.push(readFileSync(file, 'utf8'));
      // Past the second of utcDate()'s real-date cache between the runs is not needed: the header
      // of the second run must come from the host either way.
    }
    assert.deepEqual(runs[1], runs[0]);
    assert.equal(traces[1], traces[0]);
    const sends = traces[0].split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.kind === 'send' && r.seg === 'data');
    const tlsSends = sends.filter((r) => r.toPort === 443 || r.fromPort === 443);
    assert.ok(tlsSends.length > 2, 'the https exchange was traced');
    for (const r of tlsSends) {
      assert.equal(r.enc, 'tls');
      assert.equal(r.data, undefined);
    }
    assert.ok(sends.some((r) => r.toPort === 8080 && typeof r.data === 'string' && r.enc === undefined), 'h2c keeps its preview');
    // The host's clock starts at the run's epoch (2025-01-01), not the machine's date.
    assert.match(runs[0].log[1], /^h2c date=Wed, 01 Jan 2025 00:00:\d\d GMT ping [\d.]+ payload \d+$/);
    assert.equal(runs[0].log[0], 'https 200');
  });
});
