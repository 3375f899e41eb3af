/**
 * Determinism under disk faults: two stores on simulated disks that fail reads, writes and
 * fsyncs, corrupt reads, lag (and are slowed while running), fill up and tear at a crash, talking
 * over TCP while a chaos client crashes them (fixtures/disk-scenario.mjs). Every draw of a fault
 * comes from the seed, so the same seed gives the same run in another process and in this one,
 * and different seeds give different runs. The counts prove each fault really fired.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDiskSeed } from './fixtures/disk-scenario.mjs';

const RUNNER = fileURLToPath(new URL('./fixtures/run-disk-seeds.mjs', import.meta.url));
const SEEDS = 30;

function runChild(from, to) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNNER, String(from), String(to)], { stdio: ['ignore', 'pipe', 'pipe'] });
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

describe('determinism under disk faults (EIO, failed fsync, corrupted reads, latency, slow disks, ENOSPC, torn writes)', function () {
  // Two child processes at once, a few seconds of real time per seed on a loaded machine.
  this.timeout(600_000);

  it(`gives identical runs for ${SEEDS} seeds in two separate processes, a different run per seed, and every fault fires`, async () => {
    // Act
    const [first, second] = await Promise.all([runChild(1, SEEDS + 1), runChild(1, SEEDS + 1)]);

    // Assert
    assert.equal(first.length, SEEDS);
    assert.deepEqual(second, first);
    assert.equal(new Set(first.map((r) => r.fingerprint)).size, SEEDS, 'different seeds give different executions');
    assert.equal(new Set(first.map((r) => r.logHash)).size, SEEDS);
    const seedsWith = (key) => first.filter((r) => (r.counts[key] ?? 0) > 0).length;
    const fired = {
      'EIO on read': seedsWith('EIO:read'),
      'EIO on write': seedsWith('EIO:write'),
      'EIO on fsync': seedsWith('EIO:fsync') + seedsWith('EIO:fdatasync'),
      'ENOSPC': seedsWith('ENOSPC:write'),
      'short write at the quota': seedsWith('short'),
      'corrupted read': seedsWith('corrupt'),
      'torn write found at boot': seedsWith('boot:torn'),
      'slow disk': seedsWith('slow'),
    };
    for (const [fault, seeds] of Object.entries(fired)) assert.ok(seeds > 0, `${fault} fired in none of ${SEEDS} seeds: ${JSON.stringify(fired)}`);
  });

  it('gives the same run in this process as in a child process, and the same trace twice (seed 0x3)', async () => {
    // Arrange
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-disk-det-'));
    try {
      // Act
      const a = await runDiskSeed(3, { trace: path.join(dir, 'a.jsonl') });
      const b = await runDiskSeed(3, { trace: path.join(dir, 'b.jsonl') });
      const [child] = await runChild(3, 4);

      // Assert
      assert.deepEqual(b, a);
      assert.deepEqual(child, a);
      const trace = fs.readFileSync(path.join(dir, 'a.jsonl'), 'utf8');
      assert.equal(fs.readFileSync(path.join(dir, 'b.jsonl'), 'utf8'), trace);
      const kinds = new Set(trace.trim().split('\n').map((line) => JSON.parse(line).kind));
      for (const kind of ['io', 'net', 'crashed', 'boot']) assert.ok(kinds.has(kind), `the trace has ${kind} events: ${[...kinds].join(', ')}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
