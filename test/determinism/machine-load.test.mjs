/**
 * A simulated run is a function of its seed, not of the machine it runs on: the same program
 * under register mode prints the same lines and ends with the same fingerprint on a quiet
 * machine and on a loaded one (real pauses of the main thread, forced garbage collections, a
 * one-thread pool, the process stopped and continued as a busy scheduler would). Plain Node
 * does not: its output may change with load, which is why a program compared with plain Node
 * must not depend on it (see "fetch's body stream" in docs/notes/node-facts.md).
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REGISTER = path.join(HERE, '../../dist/register.mjs');
const LOAD = path.join(HERE, '../support/real-time-load.mjs');
const HTTP_PROGRAM = path.join(HERE, '../net/fixtures/http-register.mjs');
const CHILDREN_PROGRAM = path.join(HERE, 'fixtures/children.mjs');
const execFileAsync = promisify(execFile);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The environment of a child: none of this process's DST_* settings or preloads. */
function childEnv(extra) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key !== 'NODE_OPTIONS' && !key.startsWith('DST_') && !key.startsWith('UV_')) env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs node with `args`, stopping it for 30 ms of every 35 (SIGSTOP, SIGCONT) while it runs when
 * `stopped` is set, as a machine with more runnable processes than cores deschedules it.
 */
function runNode(args, { env, stopped = false }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let running = true;
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running = false;
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    });
    if (!stopped) return;
    (async () => {
      while (running) {
        try {
          child.kill('SIGSTOP');
          await sleep(30);
        } finally {
          if (running) child.kill('SIGCONT');
        }
        await sleep(5);
      }
    })().catch(reject);
  });
}

describe('determinism: a simulated run does not depend on the machine\'s load', function () {
  this.timeout(180_000);
  let dir;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-load-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Runs `program` under register mode with `seed` in each of `ways`: its stdout and fingerprint per way. */
  async function underLoads(program, seed, ways) {
    const results = {};
    for (const [name, way] of Object.entries(ways)) {
      const report = path.join(dir, `${name.replaceAll(' ', '-')}.json`);
      const env = childEnv({ ...way.env, DST_SEED: seed, DST_REPORT: report, DST_QUIET: '1' });
      const result = await runNode([...way.args, '--import', REGISTER, program], { env, stopped: way.stopped });
      assert.equal(result.code, 0, `${name}: ${result.stderr}`);
      const { fingerprint, events } = JSON.parse(fs.readFileSync(report, 'utf8'));
      results[name] = { stdout: result.stdout, fingerprint, events };
    }
    return results;
  }

  it('a server that fetches from itself prints the same lines with the same fingerprint under load (seed 0x2b)', async function () {
    // Once, on a heavily loaded machine, test/net/http.test.mjs saw plain Node print
    // "one two |three" for the /stream response where this program prints "one |two |three":
    // the simulated run was right, the plain one depended on load. The simulated run must not.
    const ways = {
      quiet: { args: [], env: {} },
      'real pauses and garbage collections': { args: ['--expose-gc', '--import', LOAD], env: { LOAD_SEED: '7', LOAD_SPIN_MS: '12' } },
      'a one-thread pool and a 1 MB young generation': { args: ['--max-semi-space-size=1'], env: { UV_THREADPOOL_SIZE: '1' } },
      'stopped and continued': { args: [], env: {}, stopped: true },
    };
    const results = await underLoads(HTTP_PROGRAM, '0x2b', ways);
    assert.match(results.quiet.stdout, /^GET \/stream 200 chunked one \|two \|three$/m);
    for (const [name, result] of Object.entries(results)) assert.deepEqual(result, results.quiet, name);
  });

  it('children racing timers print the same lines with the same fingerprint under load, and another seed gives other timing (seed 0xc1)', async function () {
    const ways = {
      quiet: { args: [], env: {} },
      'real pauses and garbage collections': { args: ['--expose-gc', '--import', LOAD], env: { LOAD_SEED: '7', LOAD_SPIN_MS: '12' } },
      'stopped and continued': { args: [], env: {}, stopped: true },
    };
    const results = await underLoads(CHILDREN_PROGRAM, '0xc1', ways);
    for (const line of ['slow says slow', 'bursts stdout "burst 1\\nburst 2\\nburst 3\\n"', 'sort "c\\nb\\na\\n"', 'exec null from exec', 'execFile code 4', 'raced says late']) {
      assert.ok(results.quiet.stdout.includes(line), `${line}\n${results.quiet.stdout}`);
    }
    for (const [name, result] of Object.entries(results)) assert.deepEqual(result, results.quiet, name);
    const other = await underLoads(CHILDREN_PROGRAM, '0xc2', { quiet: ways.quiet });
    assert.notEqual(other.quiet.fingerprint, results.quiet.fingerprint);
  });

  it('plain Node hands a fetch body over as one chunk when a due timer wrote twice before the socket was read (the fact the program avoids)', async function () {
    // The server writes 'one ', arms a 20 ms timer, and the loop is then busy for 60 ms, as a
    // descheduled process would be. When the loop comes back the timers phase runs before the
    // poll phase reads the client's socket: 'two ' is written first, and undici's body (a Node
    // Readable read whole) yields both parts at once.
    const program = `
      import http from 'node:http';
      const server = http.createServer((req, res) => {
        res.write('one ');
        setTimeout(() => res.end('two '), 20);
        const endMs = performance.now() + 60;
        while (performance.now() < endMs) {}
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const response = await fetch('http://127.0.0.1:' + server.address().port + '/');
      const parts = [];
      for await (const chunk of response.body) parts.push(Buffer.from(chunk).toString());
      console.log(JSON.stringify(parts));
      server.close();
    `;
    const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', program], { env: childEnv({}) });
    assert.deepEqual(JSON.parse(stdout), ['one two ']);
  });
});
