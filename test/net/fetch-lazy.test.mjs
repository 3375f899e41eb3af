/**
 * Register mode installs fetch's shim when the program first reaches Node's undici, not at
 * start-up (shims/net/fetch.ts, "waiting for the program's first use"). A shim a program could
 * get around would be a determinism hole: each way of reaching undici is tried here, in a fresh
 * `node --import dst-runtime/register` process, and must end with the shim in place (the global
 * dispatcher's dispatch patched) and the same run as a plain fetch (same fingerprint).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');
const FIXTURE = path.join(HERE, 'fixtures/fetch-lazy.mjs');
const run = promisify(execFile);
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

async function register(file, env) {
  const { stdout, stderr } = await run(process.execPath, ['--import', REGISTER, file], { env: { ...process.env, DST_SEED: '0x5', ...env } });
  const fingerprint = /fingerprint (\S+)/.exec(stderr)?.[1];
  return { stdout: stdout.trim(), fingerprint };
}

describe('fetch shim installed at the first use of undici (register mode)', function () {
  this.timeout(60_000);

  it('an empty program does not load undici (seed 0x5)', async () => {
    const { stdout } = await register(path.join(HERE, 'fixtures/fetch-unused.cjs'));
    assert.equal(stdout, 'undici loaded: false');
  });

  it('a fetch, the first use, runs on the simulated network (seed 0x5)', async () => {
    const { stdout, fingerprint } = await register(FIXTURE, { WAY: 'fetch' });
    assert.equal(stdout, 'fetch: ok after 0 ms, own dispatch true');
    assert.match(fingerprint, /^[0-9a-f]{16}$/);
  });

  const ways = [
    ['fetch-captured', 'the global fetch taken before its first call'],
    ['response-first', 'new Headers() and new Response() first (Node 22+: V8 lazy globals, read unseen)'],
    ['dynamic-import-http', "import('node:http'), then its WebSocket"],
    ['namespace-import-http', "a static `import * as http from 'node:http'` (the ESM facade reads WebSocket)"],
    ['require-http', "require('node:http').WebSocket"],
    ['require-http-bare', "require('http').MessageEvent"],
    ['get-builtin-module', "process.getBuiltinModule('node:http').WebSocket (where Node has it)"],
    ['websocket-global', 'the global WebSocket (Node 22+)'],
    ['dispatcher-slot', "the global dispatcher's slot, as the npm package undici reads it"],
  ];
  for (const [way, what] of ways) {
    it(`${what}: the shim is in place and the run is a plain fetch's (seed 0x5)`, async () => {
      const reference = await register(FIXTURE, { WAY: 'fetch' });
      const { stdout, fingerprint } = await register(FIXTURE, { WAY: way });
      assert.equal(stdout, `${way}: ok after 0 ms, own dispatch true`);
      assert.equal(fingerprint, reference.fingerprint);
    });
  }

  it('a CommonJS program that reads the global Headers first runs on, as plainly, the same run twice (seed 0x5)', async () => {
    const file = path.join(HERE, 'fixtures/fetch-lazy-headers.cjs');
    const plain = await run(process.execPath, [file]);
    assert.equal(plain.stdout, 'timer 1\nresponse 200 2\nclosed\n');
    const first = await register(file);
    assert.equal(first.stdout, plain.stdout.trim());
    assert.deepEqual(await register(file), first);
  });

  it('Node 22+ makes the undici globals V8 lazy data properties; Node 20 JavaScript accessors', async () => {
    // Why Node 22+ triggers replace WebSocket unread (shims/net/fetch.ts): reading the
    // descriptor of Response loads undici there.
    const { stdout } = await run(process.execPath, ['-p', "typeof Object.getOwnPropertyDescriptor(globalThis, 'Response').get"]);
    assert.equal(stdout.trim(), NODE_MAJOR >= 22 ? 'undefined' : 'function');
  });

  it('Node 22+: redefining a lazy undici global loads undici, deleting it first does not', async function () {
    if (NODE_MAJOR < 22) this.skip();
    const probe = (code) => run(process.execPath, ['-e', `${code}; console.log(Symbol.for('undici.globalDispatcher.1') in globalThis)`]);
    const define = "Object.defineProperty(globalThis, 'WebSocket', { configurable: true, get() {} })";
    assert.equal((await probe(define)).stdout.trim(), 'true');
    assert.equal((await probe(`delete globalThis.WebSocket; ${define}`)).stdout.trim(), 'false');
  });
});
