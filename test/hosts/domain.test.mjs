import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childEnv, REGISTER_CJS, warningLines } from '../support/programs.mjs';

const FIXTURES = fileURLToPath(new URL('./fixtures/domain/', import.meta.url));

/** Runs `node <args>` in the fixtures folder: its stdout split in lines, exit code and warning lines. */
function run(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: FIXTURES, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ lines: stdout.split('\n').filter(Boolean), status, signal, stderr, warnings: warningLines(stderr) });
    });
  });
}

const plainly = (name) => run(['cases.cjs', name]);
/** Under --require dst-runtime/register: the whole process is the host. */
const registered = (name) => run(['--require', REGISTER_CJS, 'cases.cjs', name], { DST_SEED: '0x5eed', DST_QUIET: '1' });
/** As the main of a library-mode host; the last line is how the run ended, as JSON. */
async function inLibrary(name, seed = '0x5eed') {
  const result = await run(['library.mjs', name, seed]);
  assert.equal(result.status, 0, result.stderr);
  const end = JSON.parse(result.lines.pop());
  return { ...result, end };
}

/**
 * node:domain around simulated callbacks, compared with plain Node: the fixture's programs run
 * plainly, in register mode and as a library-mode host, each in its own process (domain changes
 * EventEmitter and the process for good once loaded).
 */
describe('node:domain: errors in simulated callbacks reach the domain as in Node, in library and register mode (seed 0x5eed)', function () {
  this.timeout(120_000);

  it('timers, immediates, ticks, intervals, fs and socket callbacks, emitters, bind and intercept', async () => {
    const [plain, register, library] = await Promise.all([plainly('callbacks'), registered('callbacks'), inLibrary('callbacks')]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.deepEqual(plain.lines, [
      'caught timer domainThrown=true active=undefined',
      'caught immediate domainThrown=true active=undefined',
      'caught tick in timer domainThrown=true active=undefined',
      'caught fs callback domainThrown=true active=undefined',
      'caught emitter domainThrown=false active=null',
      "caught ENOENT: no such file or directory, stat '/nonexistent-dst-domain' domainThrown=false active=d",
      'caught socket data domainThrown=true active=undefined',
      'caught interval domainThrown=true active=undefined',
      'caught bound domainThrown=true active=undefined',
      'after all: process.domain=null',
    ]);
    // Library mode crashed the host at the first of these ("crashed with an uncaught exception:
    // Error: timer") before the simulation gave its events' errors to Node's domain path.
    assert.deepEqual(library.end.stopReason, 'quiescent', JSON.stringify(library.end));
    assert.deepEqual(library.lines, plain.lines);
    assert.deepEqual(library.warnings, plain.warnings);
    assert.equal(register.status, 0, register.stderr);
    assert.deepEqual(register.lines, plain.lines);
  });

  it('nested domains, process listeners, microtasks and rejections: the same handler gets each error', async () => {
    const [plain, register, library] = await Promise.all([plainly('nesting'), registered('nesting'), inLibrary('nesting')]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.deepEqual(plain.lines, [
      // Node exits a microtask's scope, and its domain, before reporting what it threw.
      'monitor microtask uncaughtException active=undefined',
      'process listener microtask active=null',
      // inner has no 'error' listener: the process listeners get it, with every domain left.
      'monitor inner timer uncaughtException active=inner',
      'process listener inner timer active=null',
      'outer caught rejection active=undefined e.domain=undefined',
      'monitor inner only uncaughtException active=inner',
      'process listener inner only active=null',
      // Before: 'inner', left entered for every later event of the run.
      'after all: process.domain=null',
    ]);
    assert.equal(library.end.stopReason, 'quiescent', JSON.stringify(library.end));
    assert.deepEqual(library.lines, plain.lines);
    assert.deepEqual(library.warnings, plain.warnings);
    assert.equal(register.status, 0, register.stderr);
    assert.deepEqual(register.lines, plain.lines);
  });

  it("an accepted socket's reads run in no domain of the server's; a domain it is added to takes their errors", async () => {
    const [plain, register, library] = await Promise.all([plainly('accepted-socket'), registered('accepted-socket'), inLibrary('accepted-socket')]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.deepEqual(plain.lines, ['connection active=d1', 'data active=d2 stack=1', 'd2 caught data active=undefined', 'after all: process.domain=undefined']);
    assert.equal(register.status, 0, register.stderr);
    assert.deepEqual(register.lines, plain.lines);
    assert.equal(library.end.stopReason, 'quiescent', JSON.stringify(library.end));
    assert.deepEqual(library.lines, plain.lines);
  });

  it('a domain handler that throws kills the host with its error, past the process listeners, as Node exits with code 7', async () => {
    const [plain, library] = await Promise.all([plainly('handler-throws'), inLibrary('handler-throws')]);
    assert.equal(plain.status, 7);
    assert.match(plain.stderr, /Error: thrown by the handler/);
    assert.deepEqual(plain.lines, ['handler timer']);
    assert.deepEqual(library.lines, plain.lines);
    assert.equal(library.end.kind, 'crash');
    assert.equal(library.end.host, 'h');
    assert.equal(library.end.summary, 'host "h" crashed with an uncaught exception: Error: thrown by the handler');
  });

  it('the same seed gives the same fingerprint', async () => {
    const [first, second] = await Promise.all([inLibrary('callbacks', '0x51'), inLibrary('callbacks', '0x51')]);
    assert.match(first.end.fingerprint, /^[0-9a-f]{16}$/);
    assert.equal(second.end.fingerprint, first.end.fingerprint);
    assert.deepEqual(second.lines, first.lines);
  });
});
