// Register mode's compile cache (runtime/compile-cache.ts). On Node 22.1+ it is Node's own
// (module.enableCompileCache); Node 20 has none, and register mode keeps a V8 code cache of the
// runtime's chunks itself, in `dst-runtime/` under NODE_COMPILE_CACHE. Either way a program
// must see nothing of it: the same output, the same fingerprint, the same stack positions in
// the runtime's own frames as with the cache off (NODE_DISABLE_COMPILE_CACHE=1), cold or warm,
// and a corrupt or unwritable cache costs only speed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REGISTER = fileURLToPath(new URL('../../dist/register.mjs', import.meta.url));
const CHUNKS = fileURLToPath(new URL('../../dist/chunks/', import.meta.url));
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
/** Whether this Node has its own compile cache (22.1+), which register mode uses instead. */
const NODE_HAS_CACHE = typeof (await import('node:module')).default.enableCompileCache === 'function';

// A program whose output runs through the runtime: timers, the clock, errors thrown inside the
// runtime's own frames (the socket shim's port check, the performance shim), with their stacks.
const PROGRAM = String.raw`
import net from 'node:net';
const lines = [];
for (const f of [() => net.connect({ port: -5 }), () => performance.mark(Symbol('m'))]) {
  try { f(); } catch (e) { lines.push(e.stack.split('\n').filter((l) => /\/dist\/|\.ts:\d/.test(l)).join(' | ')); }
}
setTimeout(() => { lines.push(String(Date.now()), String(Math.random())); console.log(lines.join('\n')); }, 25);
`;

describe('register mode: the compile cache changes nothing a program sees', function () {
  this.timeout(60_000);
  let dir;
  let program;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-register-cache-'));
    program = path.join(dir, 'program.mjs');
    fs.writeFileSync(program, PROGRAM);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Runs the program under register mode with `env` (the cache directory included); its output. */
  function run(env, args = []) {
    const result = spawnSync(process.execPath, [...args, '--import', REGISTER, program], {
      encoding: 'utf8',
      env: { ...process.env, DST_SEED: '0x51', NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined, NODE_OPTIONS: undefined, ...env },
    });
    assert.equal(result.status, 0, result.stderr);
    return { stdout: result.stdout, stderr: result.stderr };
  }

  /** The runtime's own entries in `cache`: name -> contents. */
  function entries(cache) {
    const own = path.join(cache, 'dst-runtime');
    if (!fs.existsSync(own)) return new Map();
    return new Map(fs.readdirSync(own).sort().map((name) => [name, fs.readFileSync(path.join(own, name))]));
  }

  it('cold, warm and off give the same output, stacks and fingerprint', () => {
    const cache = path.join(dir, 'cache-a');
    const off = run({ NODE_DISABLE_COMPILE_CACHE: '1', NODE_COMPILE_CACHE: cache });
    assert.equal(fs.existsSync(cache), false, 'NODE_DISABLE_COMPILE_CACHE=1 still made a cache');
    assert.match(off.stdout, /register-mode-[\w-]+\.cjs:\d+:\d+/, 'no runtime frame in the stacks: the test checks nothing');
    const cold = run({ NODE_COMPILE_CACHE: cache });
    const warm = run({ NODE_COMPILE_CACHE: cache });
    assert.deepEqual(cold, off);
    assert.deepEqual(warm, off);
  });

  if (NODE_HAS_CACHE) {
    it(`Node ${NODE_MAJOR} has a compile cache of its own: register mode turns it on and keeps none itself`, () => {
      const cache = path.join(dir, 'cache-node');
      run({ NODE_COMPILE_CACHE: cache });
      const made = fs.readdirSync(cache);
      assert.ok(made.length > 0, 'Node made no cache');
      assert.ok(!made.includes('dst-runtime'), `register mode kept a cache of its own: ${made}`);
    });
    return;
  }

  it('Node 20: one entry per chunk the runtime loaded, written once, then used as it is', () => {
    const cache = path.join(dir, 'cache-b');
    run({ NODE_COMPILE_CACHE: cache });
    const first = entries(cache);
    const chunks = new Set(fs.readdirSync(CHUNKS).filter((f) => f.endsWith('.cjs')).map((f) => f.slice(0, -'.cjs'.length)));
    assert.ok(first.size >= 2, `entries: ${[...first.keys()]}`);
    for (const name of first.keys()) {
      const chunk = /^(.*)-[0-9a-f]{40}\.bin$/.exec(name)?.[1];
      assert.ok(chunks.has(chunk), `${name} is not a chunk's entry`);
    }
    assert.ok([...first.keys()].some((name) => name.startsWith('register-mode-')));
    const stamps = new Map([...first.keys()].map((name) => [name, fs.statSync(path.join(cache, 'dst-runtime', name)).mtimeMs]));
    run({ NODE_COMPILE_CACHE: cache });
    assert.deepEqual(entries(cache), first);
    for (const [name, stamp] of stamps) assert.equal(fs.statSync(path.join(cache, 'dst-runtime', name)).mtimeMs, stamp, `${name} was written again`);
  });

  it('Node 20: a corrupt entry is compiled from the source, and written anew', () => {
    const cache = path.join(dir, 'cache-c');
    const want = run({ NODE_DISABLE_COMPILE_CACHE: '1' });
    run({ NODE_COMPILE_CACHE: cache });
    const good = entries(cache);
    const [name, bytes] = [...good].find(([entry]) => entry.startsWith('register-mode-'));
    fs.writeFileSync(path.join(cache, 'dst-runtime', name), Buffer.alloc(bytes.length, 0x5a));
    assert.deepEqual(run({ NODE_COMPILE_CACHE: cache }), want);
    const rewritten = entries(cache).get(name);
    assert.notDeepEqual(rewritten, Buffer.alloc(bytes.length, 0x5a), 'the corrupt entry was kept');
    assert.deepEqual(run({ NODE_COMPILE_CACHE: cache }), want);
    assert.deepEqual(entries(cache).get(name), rewritten, 'the rewritten entry was not used');
  });

  it('Node 20: an unwritable cache directory costs nothing but speed', () => {
    const file = path.join(dir, 'not-a-directory');
    fs.writeFileSync(file, 'x');
    assert.deepEqual(run({ NODE_COMPILE_CACHE: file }), run({ NODE_DISABLE_COMPILE_CACHE: '1' }));
    assert.equal(fs.readFileSync(file, 'utf8'), 'x');
  });

  it('Node 20: with a simulated disk the entries still go to the real disk', () => {
    const cache = path.join(dir, 'cache-d');
    run({ NODE_COMPILE_CACHE: cache, DST_DISK: 'simulated' });
    assert.ok(entries(cache).size >= 2);
  });

  it('Node 20: no cache with --enable-source-maps (Node maps only what its own loader compiled)', () => {
    const cache = path.join(dir, 'cache-e');
    const mapped = run({ NODE_COMPILE_CACHE: cache }, ['--enable-source-maps']);
    assert.equal(fs.existsSync(path.join(cache, 'dst-runtime')), false);
    assert.match(mapped.stdout, /\/shims\/[\w/-]+\.ts:\d+:\d+/, 'the runtime frames were not mapped to its sources');
  });
});
