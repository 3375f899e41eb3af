/**
 * Determinism of TLS, https and HTTP/2 between simulated hosts (issue 17 §3): one seed gives
 * the same fingerprint, event count, trace and program output, in-process and in a child
 * process, although OpenSSL draws its own randomness (handshake randoms, key shares, session
 * tickets) on every run; different seeds give different executions. The workload is
 * fixtures/tls-scenario.mjs (https with client certificates and a keep-alive agent, h2 over TLS,
 * h2c, pings, over latency and loss).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTlsSeed } from './fixtures/tls-scenario.mjs';

/**
 * A trace's records, with the length of TLS ciphertext left out: OpenSSL may vary it between runs
 * (a record or a session ticket of another size; guide, trace table), and it never changes the
 * events. Everything else must be equal, byte for byte.
 */
function traceOf(file) {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => {
    const record = JSON.parse(line);
    if (record.enc === 'tls') delete record.bytes;
    return JSON.stringify(record);
  });
}

const script = fileURLToPath(new URL('./fixtures/tls-scenario.mjs', import.meta.url));

describe('determinism of TLS, https and HTTP/2 between hosts', function () {
  this.timeout(120_000);
  let dir;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dst-tls-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('seed 0x17 twice: same fingerprint, events, output and trace; a child process agrees', async () => {
    const a = await runTlsSeed('0x17', { trace: path.join(dir, 'a.jsonl') });
    const b = await runTlsSeed('0x17', { trace: path.join(dir, 'b.jsonl') });
    assert.deepEqual(b, a);
    assert.deepEqual(traceOf(path.join(dir, 'b.jsonl')), traceOf(path.join(dir, 'a.jsonl')));
    const child = JSON.parse(execFileSync(process.execPath, [script, '0x17'], { encoding: 'utf8' }));
    assert.deepEqual(child, a);
    // The workload really ran: every request of both clients answered, h2 and h2c included.
    for (const name of ['web', 'batch']) {
      for (let i = 0; i < 4; i++) assert.match(a.output, new RegExp(`^${name} https 200 /${name}/${i} for ${name === 'web' ? 'web' : 'anonymous'} `, 'm'));
      assert.match(a.output, new RegExp(`^${name} h2 h2 /${name} at \\d+ ping [\\d.]+$`, 'm'));
      assert.match(a.output, new RegExp(`^${name} h2c h2c /${name} at \\d+ ping [\\d.]+$`, 'm'));
    }
  });

  it('different seeds give different executions and different ticket keys', async () => {
    const runs = [];
    for (const seed of ['0x1', '0x2', '0x3']) runs.push(await runTlsSeed(seed));
    assert.equal(new Set(runs.map((r) => r.fingerprint)).size, runs.length);
    assert.equal(new Set(runs.map((r) => r.output.split('\n')[0])).size, runs.length, 'ticket keys come from the seed');
  });
});
