import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { Sim, STARTUP_MS } from 'dst-runtime';
import { crashWithWorkInFlight } from '../support/crash-in-flight.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const FIXTURES = fileURLToPath(new URL('./fixtures/thread-pool/', import.meta.url));
const REGISTER_MJS = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
/**
 * Runs fixtures/thread-pool/`file` twice under register mode (seed 0x7b): both exit 0 and print
 * `expected`, with one fingerprint.
 */
function assertReplays(file, expected) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
  const runs = [0, 1].map(() =>
    spawnSync(process.execPath, ['--import', REGISTER_MJS, file], { cwd: FIXTURES, env: { ...env, DST_SEED: '0x7b' }, encoding: 'utf8', timeout: 60_000 }),
  );
  for (const run of runs) assert.equal(run.status, 0, run.stderr);
  assert.equal(runs[0].stdout, expected);
  assert.equal(runs[1].stdout, runs[0].stdout);
  const fingerprint = (run) => /fingerprint ([0-9a-f]{16})/.exec(run.stderr)?.[1];
  assert.ok(fingerprint(runs[0]) !== undefined, runs[0].stderr);
  assert.equal(fingerprint(runs[1]), fingerprint(runs[0]));
}
const SLOW_ITERATIONS = 200_000; // a pbkdf2 of tens of ms: the thread pool finishes it last

describe('zlib, crypto jobs and WebAssembly compiles in a host: held in virtual time, completions in call order (seed 0x7b)', function () {
  this.timeout(60_000);

  it('virtual time stands still while the thread pool works, and the client is waited for', async () => {
    const seen = {};
    const sim = new Sim({ seed: 0x7b });
    let ticks = 0;
    // Ticks at 2, 4, 6 ... ms: none at 3 ms, where the work starts and (virtually) ends.
    sim.host('ticker', () => setInterval(() => ticks++, 2));
    sim.client('worker', async () => {
      await sleep(3);
      seen.before = { now: performance.now(), ticks };
      const gz = await promisify(zlib.gzip)(Buffer.alloc(2_000_000, 'abcdefghij'));
      seen.gunzipped = (await promisify(zlib.gunzip)(gz)).length;
      seen.key = (await promisify(crypto.pbkdf2)('pw', 'salt', SLOW_ITERATIONS, 16, 'sha256')).toString('hex');
      seen.digest = Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.from('x'))).toString('hex');
      seen.after = { now: performance.now(), ticks };
    });
    const result = await sim.run();
    assert.equal(result.stopReason, 'clients-done');
    assert.equal(seen.gunzipped, 2_000_000);
    assert.equal(seen.key, crypto.pbkdf2Sync('pw', 'salt', SLOW_ITERATIONS, 16, 'sha256').toString('hex'));
    assert.equal(seen.digest, crypto.createHash('sha256').update('x').digest('hex'));
    assert.deepEqual(seen.after, seen.before);
    assert.deepEqual(seen.before, { now: STARTUP_MS + 3, ticks: 1 });
  });

  it('delivers completions in the order the calls were made, across zlib, crypto and fs', async () => {
    const runOnce = async () => {
      const order = [];
      const sim = new Sim({ seed: 0x7b });
      sim.client('worker', async () => {
        const waits = [
          // The slow one first: plainly every other call finishes before it.
          promisify(crypto.pbkdf2)('pw', 'salt', SLOW_ITERATIONS, 16, 'sha256').then(() => order.push('pbkdf2')),
          promisify(zlib.deflate)('small').then(() => order.push('deflate')),
          crypto.subtle.digest('SHA-256', Buffer.from('x')).then(() => order.push('digest')),
          promisify(crypto.scrypt)('pw', 'salt', 8).then(() => order.push('scrypt')),
          promisify(crypto.generateKeyPair)('ed25519').then(() => order.push('generateKeyPair')),
          fs.promises.stat(fileURLToPath(import.meta.url)).then(() => order.push('stat')),
          promisify(zlib.brotliCompress)('small').then(() => order.push('brotliCompress')),
        ];
        setImmediate(() => order.push('immediate'));
        await Promise.all(waits);
        order.push(`all at ${performance.now()} ms`);
      });
      const result = await sim.run();
      return { order, fingerprint: result.fingerprint, events: result.events };
    };
    const first = await runOnce();
    // deflate and brotliCompress take two writes each (the data, then the final flush): the
    // second is made when the first is delivered, so it queues behind every earlier call.
    assert.deepEqual(first.order, ['immediate', 'pbkdf2', 'digest', 'scrypt', 'generateKeyPair', 'stat', 'deflate', 'brotliCompress', `all at ${STARTUP_MS} ms`]);
    assert.deepEqual(await runOnce(), first);
  });

  it('streams go through the same path: a gzip and gunzip pipeline returns the bytes, the same way every run', async () => {
    const input = crypto.createHash('sha512').update('seed').digest().toString('hex').repeat(20_000); // 2.5 MB
    const runOnce = async () => {
      let output = '';
      const sim = new Sim({ seed: 0x7b });
      sim.client('worker', async () => {
        const gzip = zlib.createGzip({ chunkSize: 16 * 1024 });
        const gunzip = zlib.createGunzip();
        gunzip.on('data', (chunk) => (output += chunk));
        const done = new Promise((resolve, reject) => gunzip.on('end', resolve).on('error', reject));
        gzip.pipe(gunzip);
        for (let i = 0; i < input.length; i += 100_000) gzip.write(input.slice(i, i + 100_000));
        gzip.end();
        await done;
      });
      const result = await sim.run();
      assert.equal(result.stopReason, 'clients-done');
      assert.equal(output.length, input.length);
      assert.ok(output === input);
      return result.fingerprint;
    };
    assert.equal(await runOnce(), await runOnce());
  });

  it('passes errors on unchanged: a corrupt gunzip reaches the callback with Node\'s code, errno and message', async () => {
    const plain = await promisify(zlib.gunzip)(Buffer.from('not gzip at all')).catch((error) => error);
    const seen = [];
    const sim = new Sim({ seed: 0x7b });
    sim.client('worker', async () => {
      seen.push(await promisify(zlib.gunzip)(Buffer.from('not gzip at all')).catch((error) => error));
      seen.push(await crypto.subtle.digest('NO-SUCH', Buffer.from('x')).catch((error) => error));
      try {
        crypto.pbkdf2('pw', 'salt', 1, 16, 'no-such-digest', () => seen.push('called'));
      } catch (error) {
        seen.push(error);
      }
      await sleep(1); // the thrown call held nothing: time moves on
    });
    const result = await sim.run();
    assert.equal(result.stopReason, 'clients-done');
    assert.equal(plain.code, 'Z_DATA_ERROR');
    assert.deepEqual([seen[0].code, seen[0].errno, seen[0].message], [plain.code, plain.errno, plain.message]);
    assert.equal(seen[1].name, 'NotSupportedError');
    assert.equal(seen[2].code, 'ERR_CRYPTO_INVALID_DIGEST');
    assert.equal(seen.length, 3);
    assert.equal(result.elapsedNs, 1_000_000);
  });

  it('a host that crashed while its job was in flight never sees the callback', async () => {
    const seen = await crashWithWorkInFlight(0x7b, (calls) => {
      crypto.pbkdf2('pw', 'salt', SLOW_ITERATIONS, 16, 'sha256', () => calls.push('pbkdf2 callback ran'));
      zlib.gzip('data', () => calls.push('gzip callback ran'));
    });
    assert.deepEqual(seen, [`observer at ${STARTUP_MS + 20} ms`]);
  });

  it('leaves calls from outside every host alone, during a run too', async () => {
    const sim = new Sim({ seed: 0x7b });
    sim.client('c', () => sleep(5));
    const running = sim.run();
    const key = await promisify(crypto.pbkdf2)('pw', 'salt', 10, 8, 'sha256');
    const gz = await promisify(zlib.gzip)('outside');
    const result = await running;
    assert.equal(result.stopReason, 'clients-done');
    assert.equal(key.length, 8);
    assert.equal(zlib.gunzipSync(gz).toString(), 'outside');
  });

  it('WebAssembly: compiles take no virtual time and settle in call order; instantiate(module) keeps its place', async () => {
    // (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
    const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 2, 127, 127, 1, 127, 3, 2, 1, 0, 7, 7, 1, 3, 97, 100, 100, 0, 0, 10, 9, 1, 7, 0, 32, 0, 32, 1, 106, 11]);
    const runOnce = async () => {
      const order = [];
      const sim = new Sim({ seed: 0x7b });
      let ticks = 0;
      sim.host('ticker', () => setInterval(() => ticks++, 1));
      sim.client('worker', async () => {
        const module = new WebAssembly.Module(bytes);
        setImmediate(() => order.push('immediate'));
        const waits = [];
        for (let i = 0; i < 10; i++) waits.push(WebAssembly.instantiate(bytes).then(({ instance }) => order.push(`bytes ${instance.exports.add(i, ticks)}`)));
        waits.push(WebAssembly.instantiate(module).then((instance) => order.push(`module ${instance.exports.add(100, ticks)}`)));
        waits.push(WebAssembly.compile(bytes).then(() => order.push(`compile at ${ticks} ticks`)));
        await Promise.all(waits);
      });
      const result = await sim.run();
      assert.equal(result.stopReason, 'clients-done');
      return { order, fingerprint: result.fingerprint };
    };
    const first = await runOnce();
    const fromBytes = Array.from({ length: 10 }, (_, i) => `bytes ${i}`);
    assert.deepEqual(first.order, ['module 100', 'immediate', ...fromBytes, 'compile at 0 ticks']);
    assert.deepEqual(await runOnce(), first);
  });

  it('a file-backed Blob (fs.openAsBlob) is read in no virtual time, through arrayBuffer, text and stream', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-blob-'));
    const file = path.join(dir, 'data.bin');
    fs.writeFileSync(file, crypto.createHash('sha512').update('blob').digest().toString('hex').repeat(40_000)); // 5 MB
    try {
      const runOnce = async () => {
        const seen = [];
        let ticks = 0;
        const sim = new Sim({ seed: 0x7b });
        sim.host('ticker', () => setInterval(() => ticks++, 1));
        sim.client('reader', async () => {
          const blob = await fs.openAsBlob(file);
          seen.push(`arrayBuffer ${(await blob.arrayBuffer()).byteLength} at ${ticks} ticks`);
          seen.push(`text ${(await blob.slice(10, 1010).text()).length} at ${ticks} ticks`);
          let streamed = 0;
          for await (const chunk of blob.stream()) streamed += chunk.length;
          seen.push(`stream ${streamed} at ${ticks} ticks`);
          seen.push(`memory ${(await new Blob(['abc']).text())} at ${ticks} ticks`);
        });
        const result = await sim.run();
        assert.equal(result.stopReason, 'clients-done');
        return { seen, fingerprint: result.fingerprint };
      };
      const first = await runOnce();
      assert.deepEqual(first.seen, ['arrayBuffer 5120000 at 0 ticks', 'text 1000 at 0 ticks', 'stream 5120000 at 0 ticks', 'memory abc at 0 ticks']);
      assert.deepEqual(await runOnce(), first);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('register mode: an interval racing a gzip and a pbkdf2 prints the same every run', () => {
    // The gzip takes several writes; its first completes before the pbkdf2, and the rest are
    // queued behind it.
    assertReplays('race.mjs', 'pbkdf2 efc91758dce6821c58952fed9cd42ea1 after 0 ticks\ngzip 1983 after 0 ticks\nticks at the end: 9\n');
  });

  it('register mode: in-memory Blobs read as streams (Response(blob), stream(), FormData) take no virtual time, the same every run', () => {
    // Node 24 goes on to a blob stream's next chunk from a real setImmediate (lib/internal/blob.js
    // took it at startup): the simulation waits for it. Before, the chain advanced a chunk per
    // batch of simulated events, 11 virtual seconds of a 1 ms interval for these reads, and
    // `new Response(blob)` alone could stop a run in strict mode (exit 74).
    assertReplays(
      'blob-streams.mjs',
      'Response(blob): 84000 bytes after 0 ticks, 0 immediates\nstream(): 84000 bytes in 6 chunks after 0 ticks\nFormData: true true\nResponse(stream): true after 0 ticks\n',
    );
  });

  it('register mode: a throw in the callback of work started in a node:domain reaches that domain', () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
    const plain = spawnSync(process.execPath, ['domains.cjs'], { cwd: FIXTURES, env, encoding: 'utf8', timeout: 60_000 });
    const simulated = spawnSync(process.execPath, ['--import', REGISTER_MJS, 'domains.cjs'], { cwd: FIXTURES, env: { ...env, DST_SEED: '0x7b' }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(plain.stdout, 'caught: gzip, pbkdf2, randomBytes, readFile\n', plain.stderr);
    assert.equal(simulated.status, 0, simulated.stderr);
    assert.equal(simulated.stdout, plain.stdout);
  });
});
