/**
 * A seed's events must not depend on when the process first loaded a Node builtin. Many of Node's
 * modules take functions from node:timers when they load (`const { setImmediate } =
 * require('timers')`: http2, tls, js_stream_socket, _http_common, _http_server, readline's
 * keypress decoder, PerformanceObserver delivery, fs.rm's retries, Node 24's util.debounce and
 * fs.Utf8Stream; node:domain takes async_hooks.createHook). Loaded before a simulation they held
 * Node's functions, loaded first during one the simulated ones:
 * - seed 0x17 of the TLS determinism scenario took 282 events in a fresh process and 290 after an
 *   https run (node:http2 first loaded by the second run's install), same output: on Node 22 in a
 *   mocha --parallel worker that had run test/net/https-global-agent.test.mjs first (issue 17);
 * - fs.rm's retries ran on virtual time when fs.rm was first called inside a host, and escaped to
 *   real time (strict mode stopped the run) when the process had called fs.rm before.
 * Now Node's modules get Node's functions whenever they load (shims/builtin-captures.ts) and the
 * real Timeouts they make inside a host are adopted by the simulation (shims/timers/node-timeouts.ts):
 * readline's lone-ESC timeout, fs.rm's retries and util.debounce run on virtual time in both orders.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
/** Runs a fixture in a child of its own; its stderr is shown only if it fails. */
function runJson(script, order) {
  const child = spawnSync(process.execPath, [fixture(script), order], { encoding: 'utf8' });
  assert.equal(child.status, 0, `${script} ${order} failed (${child.signal ?? child.status}):\n${child.stderr}`);
  return JSON.parse(child.stdout);
}

describe('Node builtins loaded before or during the first simulation', function () {
  this.timeout(120_000);

  it('TLS scenario seed 0x17: node:http2 first loaded by a simulation gives the events, fingerprint and output of loaded before it', () => {
    const fresh = runJson('builtins-load-order.mjs', 'fresh');
    const afterHttps = runJson('builtins-load-order.mjs', 'after-https');
    assert.match(fresh.output, /^batch h2c h2c \/batch at \d+ ping [\d.]+$/m, 'the scenario ran to its end');
    assert.deepEqual(afterHttps, fresh);
  });

  it('library mode: each builtin’s program gives the same output, fingerprint and events whether the builtin was loaded before dst-runtime or first inside a host', () => {
    // Arrange / Act: one process per order, every case in it (load-order-cases.mjs).
    const before = runJson('load-order-cases.mjs', 'before');
    const during = runJson('load-order-cases.mjs', 'during');

    // Assert: the same in both orders, case by case (named in the failure).
    assert.deepEqual(Object.keys(during), Object.keys(before));
    for (const name of Object.keys(before)) assert.deepEqual(during[name], before[name], `case ${name}`);
    // ... and on virtual time, as plain Node does it on real time.
    const output = (name) => before[name].output?.join('\n') ?? before[name].error;
    assert.equal(output('readline-escape'), 'escape after 500 ms @500');
    assert.equal(output('http2-h2c'), 'h2c hello /a trailer=1 @12\nh2c hello /b trailer=1 @18\ndestroyed stream closed 8 @18');
    assert.equal(output('abort-signal-timeout'), 'aborted TimeoutError after 250 ms @250');
    assert.match(output('http'), /slow request: HTTP\/1\.1 408 Request Timeout @30005$/);
    assert.equal(output('domain'), 'timeout in domain true @2\nimmediate in domain true @2\nthen in domain true @2\nafter the domain: none @2');
    // Three retries, 50, 100 and 150 ms apart, against a writer that keeps the directory busy.
    const rm = /^rm ENOTEMPTY after (\d+) ms/.exec(output('fs-rm-retries'));
    assert.ok(rm !== null && Number(rm[1]) >= 300, `fs.rm retried on virtual time: ${output('fs-rm-retries')}`);
    if (NODE_MAJOR >= 24) assert.equal(output('util-debounce'), 'debounce debounced 4@220 debounced 5@450 @600');
  });

  it('register mode: `--import <preload of the builtins> --import dst-runtime/register` prints what the program alone prints, fingerprint included', () => {
    const env = {
      ...process.env,
      DST_SEED: '0x31',
      DST_DISK: 'simulated',
      DST_DISK_FAULTS: 'paths=/tmp/dst-load-order-register/**,latency=1-3ms',
    };
    delete env.DST_TRACE;
    const run = (preload) => {
      const child = spawnSync(process.execPath, [...preload, '--import', 'dst-runtime/register', 'load-order-register.mjs'], {
        cwd: fileURLToPath(new URL('./fixtures/', import.meta.url)),
        encoding: 'utf8',
        env,
      });
      assert.equal(child.status, 0, `the program failed (${child.signal ?? child.status}):\n${child.stdout}${child.stderr}`);
      return `${child.stdout}${child.stderr}`;
    };
    const before = run(['--import', './preload-builtins.mjs']);
    const during = run([]);
    assert.equal(during, before);
    assert.match(before, /^h2c hello \/a trailer=1 @\d+\nh2c hello \/b trailer=1 @\d+\ndestroyed stream closed 8 @\d+\nsession closed @\d+\nrm ENOTEMPTY @\d+\nescape @\d+\nobserved one two @\d+\naborted TimeoutError @\d+\n/);
    assert.match(before, /dst: seed 0x31 {2}fingerprint [0-9a-f]{16} .* exit 0\n$/);
  });
});
