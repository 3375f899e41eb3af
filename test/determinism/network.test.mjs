import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNetworkSeed } from './fixtures/network-scenario.mjs';

const runner = fileURLToPath(new URL('./fixtures/run-network-seeds.mjs', import.meta.url));
const SEEDS = 200;

function runChild(from, to) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runner, String(from), String(to)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`runner exited ${code}: ${err}`));
      else resolve(out.trim().split('\n').map((line) => JSON.parse(line)));
    });
  });
}

describe('determinism of a multi-host network scenario with random faults', function () {
  this.timeout(300_000);

  it(`gives identical fingerprints for ${SEEDS} seeds run in two separate processes`, async () => {
    // Two processes at once (the machine has 2 cores); each runs every seed.
    const [first, second] = await Promise.all([runChild(0, SEEDS), runChild(0, SEEDS)]);
    assert.equal(first.length, SEEDS);
    assert.deepEqual(second, first);
    const fingerprints = new Set(first.map((r) => r.fingerprint));
    assert.equal(fingerprints.size, SEEDS, 'different seeds give different executions');
    const outputs = new Set(first.map((r) => r.outputHash));
    assert.equal(outputs.size, SEEDS);
    // The scenario really exercises the network: every seed saw traffic and faults.
    assert.ok(first.every((r) => r.lines > 50), 'every seed logged network activity');
  });

  it('gives the same result in-process as in a child process, and the same trace twice (seed 0x17)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dst-net-'));
    const a = await runNetworkSeed(0x17, { trace: path.join(dir, 'a.jsonl') });
    const b = await runNetworkSeed(0x17, { trace: path.join(dir, 'b.jsonl') });
    assert.deepEqual(a, b);
    assert.equal(readFileSync(path.join(dir, 'a.jsonl'), 'utf8'), readFileSync(path.join(dir, 'b.jsonl'), 'utf8'));
    const [child] = await runChild(0x17, 0x18);
    assert.deepEqual(child, a);
    const kinds = new Set(readFileSync(path.join(dir, 'a.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).kind));
    for (const kind of ['net', 'timeout', 'interval', 'boot']) assert.ok(kinds.has(kind), `trace has ${kind} events`);
  });
});

describe('the fingerprint tells connections apart', function () {
  this.timeout(60_000);
  const program = fileURLToPath(new URL('../net/fixtures/tcp-destroy-order.mjs', import.meta.url));
  const register = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
  const fingerprintOf = (order) =>
    new Promise((resolve, reject) => {
      const env = { ...process.env, DST_SEED: '0x30' };
      const child = spawn(process.execPath, ['--import', register, program, order], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => {
        const found = /fingerprint ([0-9a-f]{16})/.exec(err);
        if (code !== 0 || found === null) reject(new Error(`exit ${code}: ${err}`));
        else resolve(found[1]);
      });
    });

  it('two runs that end the same two connections in swapped order have different fingerprints (seed 0x30)', async () => {
    // Same events at the same instants on the same host: before deliveries mixed in their
    // socket, the fingerprint was the same, and a run whose connections swapped (the native
    // order of http's connections list) passed as a replay.
    const [ab, ba, again] = await Promise.all([fingerprintOf('ab'), fingerprintOf('ba'), fingerprintOf('ab')]);
    assert.equal(again, ab);
    assert.notEqual(ba, ab);
  });
});
