/**
 * Register mode when a program goes idle for ever: Node's loop is empty, nothing is scheduled,
 * yet ref'd simulated handles remain (a listening server, a socket waiting for data no peer
 * will send, a write blocked on a peer that never reads). Real Node would wait for ever; the
 * run stops with exit code 75 and a report naming each handle and the line that made it.
 * DST_IDLE=exit keeps the old behaviour (exit with the program's own code).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STARTUP_MS } from 'dst-runtime';

const FIXTURES = fileURLToPath(new URL('./fixtures/idle/', import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));
const REGISTER_MJS = path.join(PACKAGE_DIR, 'dist', 'register.mjs');
const REGISTER_CJS = path.join(PACKAGE_DIR, 'dist', 'register.cjs');

function run(fixture, env = {}) {
  const preload = fixture.endsWith('.cjs') ? ['--require', REGISTER_CJS] : ['--import', REGISTER_MJS];
  const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DST_')));
  const child = spawnSync(process.execPath, [...preload, fixture], {
    cwd: FIXTURES,
    env: { ...cleanEnv, DST_SEED: '0x75', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr, preload };
}

const show = (child) => `status ${child.status}\n--- stdout\n${child.stdout}--- stderr\n${child.stderr}`;

/** "file:line:col" of the call on the line holding `marker` (col: where `call` starts). */
function siteOf(fixture, marker, call) {
  const lines = fs.readFileSync(path.join(FIXTURES, fixture), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(marker));
  assert.ok(index >= 0, `${marker} not found in ${fixture}`);
  const col = lines[index].indexOf(call);
  assert.ok(col >= 0, `${call} not found on line ${index + 1} of ${fixture}`);
  return `${fixture}:${index + 1}:${col + 1}`;
}

/** The handle lines of the report (indented by 4, between the summary and the seed). */
function handleLines(stderr) {
  const lines = stderr.split('\n');
  const start = lines.findIndex((l) => l.startsWith('dst: run idle:'));
  const end = lines.findIndex((l, i) => i > start && l.startsWith('  seed '));
  assert.ok(start >= 0 && end > start, stderr);
  return lines.slice(start + 1, end).map((l) => l.replace(/^ {4}/, ''));
}

describe('register mode: a program that would wait for ever (DST_SEED=0x75)', function () {
  this.timeout(120_000);

  it('a listening server alone: exit 75, the report names it and its listen() line, beforeExit never runs', () => {
    const child = run('server-only.mjs');
    assert.equal(child.status, 75, show(child));
    assert.equal(child.stdout, 'listening on 8080\n', 'the program\'s beforeExit listener must not run: in Node it never would');
    assert.match(child.stderr, /^dst: run idle: no simulated event can ever happen again, yet 1 ref'd handle keeps the program alive \(real Node would wait for ever\)$/m);
    assert.deepEqual(handleLines(child.stderr), [
      `TCP server listening on [::]:8080: listen() at ${siteOf('server-only.mjs', '// LISTEN', 'listen(')}`,
    ]);
    assert.match(child.stderr, /^ {2}seed {5}0x75$/m);
    assert.match(child.stderr, /^ {2}time {5}0\.000000000 s \(virtual\) {3}event 0 {3}host main \(boot 1\)$/m);
    const replay = /^ {2}replay {3}(.*)$/m.exec(child.stderr)?.[1];
    assert.equal(replay, "DST_SEED=0x75 node --import dst-runtime/register server-only.mjs" /* pasteable: the package name, not the build path */);
    assert.match(child.stderr, /DST_IDLE=exit/);
    assert.match(child.stderr, /^dst: seed 0x75 .* exit 75$/m);
  });

  it('a child that does not exit by itself and is never killed: exit 75, the report names it and its spawn() line', () => {
    const child = run('child-lingers.mjs');
    assert.equal(child.status, 75, show(child));
    assert.equal(child.stdout, '');
    assert.deepEqual(handleLines(child.stderr).map((line) => line.replace(/pid \d+/, 'pid N')), [
      `child process sh "-c" "exec sleep 30" (pid N), still running: it did not exit within 5 s of real time, so it runs until the program kills it: spawn() at ${siteOf('child-lingers.mjs', '// SPAWN', 'spawn(')}`,
    ]);
  });

  it('a listening server alone under DST_FAULTS=skew: still exit 75 at once (the clock steps queued keep no run going)', () => {
    const child = run('server-only.mjs', { DST_FAULTS: 'skew' });
    assert.equal(child.status, 75, show(child));
    assert.deepEqual(handleLines(child.stderr), [
      `TCP server listening on [::]:8080: listen() at ${siteOf('server-only.mjs', '// LISTEN', 'listen(')}`,
    ]);
    assert.match(child.stderr, /^ {2}time {5}0\.000000000 s \(virtual\) {3}event 0 {3}host main \(boot 1\)$/m);
    assert.equal(/^ {2}replay {3}(.*)$/m.exec(child.stderr)?.[1], 'DST_SEED=0x75 DST_FAULTS=skew node --import dst-runtime/register server-only.mjs');
  });

  it('a busy callback under DST_FAULTS=skew is no idle run: what came due during it runs after it', () => {
    const child = run('busy-under-skew.mjs', { DST_FAULTS: 'skew' });
    assert.equal(child.status, 0, show(child));
    assert.equal(child.stdout, 'busy callback done\ntimer due during the spin ran at 20010\n');
  });

  it('an http server alone: exit 75 at once, as with net (its connection checker is no event while it has no connection; issue 20 item 9)', () => {
    const child = run('http-server-only.mjs');
    assert.equal(child.status, 75, show(child));
    assert.equal(child.stdout, 'listening on 8080\n');
    assert.deepEqual(handleLines(child.stderr), [
      `TCP server listening on [::]:8080: listen() at ${siteOf('http-server-only.mjs', '// LISTEN', 'listen(')}`,
    ]);
    assert.match(child.stderr, /^ {2}time {5}0\.000000000 s \(virtual\) {3}event 0 {3}host main \(boot 1\)$/m);
  });

  it('DST_IDLE=exit keeps exiting with the program\'s own code (0) and no report', () => {
    const child = run('server-only.mjs', { DST_IDLE: 'exit' });
    assert.equal(child.status, 0, show(child));
    assert.equal(child.stdout, 'listening on 8080\nbeforeExit ran\n');
    assert.doesNotMatch(child.stderr, /run idle/);
  });

  it('an invalid DST_IDLE is a usage error (64) naming the variable', () => {
    const child = run('server-only.mjs', { DST_IDLE: 'forever' });
    assert.equal(child.status, 64, show(child));
    assert.match(child.stderr, /^dst: Failed to parse DST_IDLE: "forever" is not 'fail'/m);
    assert.equal(child.stdout, '');
  });

  it('after 5 s of work: a server, both ends of a silent connection and a UDP socket, each with its line; deterministic', () => {
    const child = run('stalled.mjs');
    assert.equal(child.status, 75, show(child));
    // On one host the handshake takes a draw of loopback's latency (10-100 µs), as data does.
    const accepted = /^accepted at ([\d.]+) ms\n$/.exec(child.stdout);
    assert.ok(accepted !== null, child.stdout);
    const afterConnect = Number(accepted[1]) - (STARTUP_MS + 5000);
    assert.ok(afterConnect >= 0.01 && afterConnect <= 0.1, `accepted ${afterConnect} ms after the connect`);
    const listen = siteOf('stalled.mjs', '// LISTEN', 'listen(');
    const lines = handleLines(child.stderr);
    assert.equal(lines.length, 4, child.stderr);
    assert.equal(lines[0], `TCP server listening on 127.0.0.1:7000: listen() at ${listen}`);
    assert.match(lines[1], new RegExp(`^TCP socket 127\\.0\\.0\\.1:7000 -> 127\\.0\\.0\\.1:\\d+ \\(reading, and no data can arrive\\): accepted by the server of listen\\(\\) at ${listen}$`));
    assert.match(lines[2], new RegExp(`^TCP socket 127\\.0\\.0\\.1:\\d+ -> 127\\.0\\.0\\.1:7000 \\(reading, and no data can arrive\\): connect\\(\\) at ${siteOf('stalled.mjs', '// CONNECT', 'connect(')}$`));
    assert.equal(lines[3], `UDP socket bound to 0.0.0.0:5353 (receiving, and no datagram can arrive): bind() at ${siteOf('stalled.mjs', '// BIND', 'bind(')}`);
    assert.match(child.stderr, /yet 4 ref'd handles keep the program alive/);
    assert.match(child.stderr, /^ {2}time {5}5\.000\d+ s \(virtual\) {3}event \d+ {3}host main \(boot 1\)$/m);
    assert.equal(run('stalled.mjs').stderr, child.stderr, 'the same seed gives the same report');
  });

  it('a write blocked on a peer that never reads (the only ref left) is named with its connect() line', () => {
    const child = run('blocked-writer.cjs');
    assert.equal(child.status, 75, show(child));
    assert.deepEqual(handleLines(child.stderr).map((l) => l.replace(/:\d+ -> /, ':<port> -> ')), [
      `TCP socket 127.0.0.1:<port> -> 127.0.0.1:7002 (16777216 bytes of writes waiting for the peer to read): connect() at ${siteOf('blocked-writer.cjs', 'net.connect', 'connect(')}`,
    ]);
  });

  it('a program that closes what it opened exits 0 without a report (--require)', () => {
    const child = run('closes.cjs');
    assert.equal(child.status, 0, show(child));
    assert.equal(child.stdout, 'got bye\nclosed\n');
    assert.doesNotMatch(child.stderr, /run idle/);
  });
});
