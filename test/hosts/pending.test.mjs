/**
 * The pending-promise report (issue 20 item 15): promises host code created and never settled,
 * by creation site, at the end of a run (SimOptions.pending, DST_PENDING=1).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sim, UsageError } from 'dst-runtime';

const HERE = fileURLToPath(new URL('./', import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');

/** A client whose request's connection drops: its promise never settles (a real client bug). */
function request(host) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(6379, host, () => socket.write('BLPOP q 0'));
    socket.on('data', resolve);
    socket.on('error', reject);
    setTimeout(() => socket.destroy(), 50);
  });
}

describe('pending promises report (seed 0x9e)', () => {
  it('lists the promises host code left pending, by creation site and host, most first', async () => {
    const sim = new Sim({ seed: 0x9e, pending: true });
    sim.host('redis', () => net.createServer((s) => s.on('data', () => {})).listen(6379));
    sim.client('app', async () => {
      void request('redis');
      void request('redis');
      await Promise.all([Promise.resolve(1), new Promise((r) => setTimeout(r, 10))]);
      // A race's then() on the request is a promise of its own, pending as long as the request.
      await Promise.race([request('redis'), new Promise((r) => setTimeout(r, 100))]);
    });
    const result = await sim.run();
    assert.deepEqual(result.pending, [
      { site: 'test/hosts/pending.test.mjs:17:10', host: 'app', count: 3 },
      { site: 'test/hosts/pending.test.mjs:34:21', host: 'app', count: 1 },
    ]);
  });

  it('is absent unless asked for, and DST_PENDING takes 0 or 1 only', async () => {
    const sim = new Sim({ seed: 0x9e });
    sim.client('app', async () => {
      void new Promise(() => {});
    });
    const result = await sim.run();
    assert.equal('pending' in result, false);
    assert.throws(() => new Sim({ seed: 1, pending: 'yes' }), (e) => e instanceof UsageError && /pending must be true or false/.test(e.message));
    const child = spawnSync(process.execPath, ['--import', REGISTER, '-e', ''], { env: { ...process.env, DST_PENDING: 'on' }, encoding: 'utf8' });
    assert.equal(child.status, 64);
    assert.match(child.stderr, /Failed to parse DST_PENDING: "on" is not 0 or 1/);
  });

  it('register mode prints it before the summary line', () => {
    const program = path.join(HERE, 'fixtures/pending/drop.mjs');
    const child = spawnSync(process.execPath, ['--import', REGISTER, program], {
      env: { ...process.env, DST_PENDING: '1', DST_SEED: '0x9e' },
      encoding: 'utf8',
      cwd: HERE,
    });
    assert.equal(child.status, 0, child.stderr);
    const lines = child.stderr.trim().split('\n');
    assert.deepEqual(lines.slice(0, 2), ['dst: 2 promises created by host code never settled:', '    2  created at fixtures/pending/drop.mjs:6:10 (host main)']);
    assert.match(lines[2], /^dst: seed 0x9e /);
  });
});
