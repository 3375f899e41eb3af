/**
 * Virtual time in register mode: small programs whose EXACT output under
 * `--import dst-runtime/register` is known, because time only moves when the simulation moves it.
 * (Real Node could never print these lines exactly; that is the point.) Wall-clock duration is
 * never asserted, except as a lower bound where a test must prove real time did pass.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STARTUP_MS } from 'dst-runtime';

const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));
const REGISTER_MJS = path.join(PACKAGE_DIR, 'dist', 'register.mjs');
const RUN_TIMEOUT_MS = 30_000;
const SEED = '0x7e57';

const EPOCH_ISO = '2025-01-01T00:00:00.000Z';
const EPOCH_MS = Date.UTC(2025, 0, 1);
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

let tmpDir;

/** Writes `source` to tmpDir/name and runs it under the simulator; returns stdout and timing. */
function simulate(name, source, extraEnv = {}) {
  const file = path.join(tmpDir, name);
  fs.writeFileSync(file, source);
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key === 'NODE_OPTIONS' || key.startsWith('DST_')) delete env[key];
  }
  const startedMs = performance.now();
  const result = spawnSync(process.execPath, ['--import', REGISTER_MJS, file], {
    cwd: tmpDir,
    env: { ...env, DST_QUIET: '1', DST_SEED: SEED, ...extraEnv },
    encoding: 'utf8',
    timeout: RUN_TIMEOUT_MS,
  });
  const wallMs = performance.now() - startedMs;
  assert.equal(result.error, undefined, `${name}: failed to run: ${result.error?.message}`);
  assert.equal(result.signal, null, `${name}: killed by ${result.signal}\nstderr:\n${result.stderr}`);
  assert.equal(result.status, 0, `${name}: exit code ${result.status}\nstderr:\n${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr, wallMs };
}

describe(`virtual time under --import dst-runtime/register (Node ${process.version}, seed ${SEED})`, function () {
  before(function () {
    assert.ok(fs.existsSync(REGISTER_MJS), `Failed to find ${REGISTER_MJS}: run \`npm run build\` first`);
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dst-virtual-time-'));
  });
  after(function () {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  });

  it('a 1-hour timer completes, and performance.now() then reads exactly 3600000 more than at the start (STARTUP_MS, the process\'s start-up)', function () {
    const { stdout } = simulate(
      'one-hour.mjs',
      `const before = performance.now();
setTimeout(() => {
  console.log('performance.now() at start', before);
  console.log('elapsed', performance.now() - before, 'performance.now()', performance.now());
}, ${HOUR_MS});
`,
    );
    assert.equal(stdout, `performance.now() at start ${STARTUP_MS}\nelapsed ${HOUR_MS} performance.now() ${STARTUP_MS + HOUR_MS}\n`);
  });

  it('setInterval(10) fires exactly 100 times in the first second, at 10, 20, ... 1000 ms after the start', function () {
    // Counts firings at most 1000 ms after the program started; the first firing past the window
    // (at 1010) clears the interval and reports.
    const { stdout } = simulate(
      'interval.cjs',
      `const start = performance.now();
let count = 0;
let first;
let last;
let evenlySpaced = true;
const interval = setInterval(() => {
  const now = performance.now() - start;
  if (now <= 1000) {
    if (now !== (count + 1) * 10) evenlySpaced = false;
    count++;
    if (first === undefined) first = now;
    last = now;
    return;
  }
  clearInterval(interval);
  console.log('count', count, 'first', first, 'last', last, 'next', now, 'evenly spaced', evenlySpaced);
}, 10);
`,
    );
    assert.equal(stdout, 'count 100 first 10 last 1000 next 1010 evenly spaced true\n');
  });

  it('Date.now(), new Date(), performance.now() and hrtime stand still during a long synchronous loop', function () {
    // Atomics.wait blocks for real time without reading any clock: 20 x 5 ms >= 100 ms of wall time.
    const { stdout, wallMs } = simulate(
      'busy-loop.cjs',
      `const d0 = Date.now();
const p0 = performance.now();
const h0 = process.hrtime.bigint();
const cell = new Int32Array(new SharedArrayBuffer(4));
let acc = 0;
for (let i = 0; i < 20; i++) {
  Atomics.wait(cell, 0, 0, 5);
  for (let j = 0; j < 100000; j++) acc += j;
}
console.log('Date.now moved', Date.now() - d0);
console.log('new Date moved', new Date().getTime() - d0);
console.log('performance.now moved', performance.now() - p0);
console.log('hrtime.bigint moved', String(process.hrtime.bigint() - h0));
console.log('work done', acc > 0);
`,
    );
    assert.equal(
      stdout,
      'Date.now moved 0\nnew Date moved 0\nperformance.now moved 0\nhrtime.bigint moved 0\nwork done true\n',
    );
    assert.ok(wallMs >= 100, `the loop blocked for real time (took ${wallMs} ms)`);
  });

  it(`Date starts at the default epoch, ${EPOCH_ISO}`, function () {
    const { stdout } = simulate(
      'epoch.mjs',
      `console.log(new Date().toISOString());
console.log(Date.now());
console.log(new Date(Date.now()).getTime() === new Date().getTime());
console.log(Date());
`,
      { TZ: 'UTC' },
    );
    assert.equal(
      stdout,
      `${EPOCH_ISO}\n${EPOCH_MS}\ntrue\nWed Jan 01 2025 00:00:00 GMT+0000 (Coordinated Universal Time)\n`,
    );
  });

  it('timers/promises setTimeout of 2 days resolves and Date advances by exactly 2 days', function () {
    // The default virtual-time budget is 24 h of pending work; this run allows 3 days.
    const { stdout } = simulate(
      'two-days.mjs',
      `import { setTimeout as sleep } from 'node:timers/promises';
const d0 = Date.now();
const value = await sleep(${2 * DAY_MS}, 'slept');
console.log(value, Date.now() - d0, new Date().toISOString(), performance.now());
`,
      { DST_TIME_LIMIT: '3d' },
    );
    assert.equal(stdout, `slept ${2 * DAY_MS} 2025-01-03T00:00:00.000Z ${STARTUP_MS + 2 * DAY_MS}\n`);
  });

  it('process.hrtime.bigint() advances by exactly 5000000n across a 5 ms timer', function () {
    const { stdout } = simulate(
      'hrtime.cjs',
      `const h0 = process.hrtime.bigint();
const t0 = process.hrtime();
setTimeout(() => {
  console.log(String(process.hrtime.bigint() - h0) + 'n', JSON.stringify(process.hrtime(t0)));
}, 5);
`,
    );
    assert.equal(stdout, '5000000n [0,5000000]\n');
  });

  it('Intl.DateTimeFormat format() and formatToParts() without a date format virtual now, not the real clock', function () {
    const { stdout } = simulate(
      'intl-now.mjs',
      `const f = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'short', timeStyle: 'medium' });
const parts = () => f.formatToParts().map((p) => p.value).join('');
console.log(f.format(), '|', f.format(undefined), '|', parts(), '|', f.format === f.format);
await new Promise((resolve) => setTimeout(resolve, 3_661_000));
console.log(f.format(), '|', parts(), '|', f.format(0), '|', [Date.UTC(2030, 0, 2)].map(f.format)[0]);
`,
    );
    // Formatted here by the same Node and ICU
    const f = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'short', timeStyle: 'medium' });
    // (formatToParts keeps the narrow no-break space that V8's format turns into a plain one).
    const parts = (date) => f.formatToParts(date).map((p) => p.value).join('');
    const start = f.format(EPOCH_MS);
    const later = EPOCH_MS + 3_661_000;
    assert.equal(start.slice(0, 8), '1/1/25, ');
    assert.equal(
      stdout,
      `${start} | ${start} | ${parts(EPOCH_MS)} | true\n` +
        `${f.format(later)} | ${parts(later)} | ${f.format(0)} | ${f.format(Date.UTC(2030, 0, 2))}\n`,
    );
  });

  it('File lastModified, util.log and readline crlfDelay follow virtual time, whatever the real clock does', function () {
    // Node's internals read these from copies of Date.now taken at startup. Real time is made to
    // pass (Atomics.wait) where virtual time does not, and virtual time passes where real time does not.
    const { stdout, wallMs } = simulate(
      'clock-internals.mjs',
      `import readline from 'node:readline';
import { PassThrough } from 'node:stream';
import util from 'node:util';
const cell = new Int32Array(new SharedArrayBuffer(4));
const sleepReal = (ms) => Atomics.wait(cell, 0, 0, ms);
await new Promise((resolve) => setTimeout(resolve, 3_661_000));
console.log('File', new File([], 'a').lastModified);
if (util.log) util.log('x %d', 1); else console.log('1 Jan 01:01:01 - x 1');
const input = new PassThrough();
const rl = readline.createInterface({ input });
const lines = [];
rl.on('line', (line) => lines.push(JSON.stringify(line)));
rl.on('close', () => console.log('lines', lines.join(' ')));
input.write('a\\r');
setTimeout(() => {
  sleepReal(150); // 150 real ms, 50 virtual: one CRLF
  input.write('\\nb\\r');
  setTimeout(() => input.end('\\nc\\n'), 150); // 150 virtual ms, no real time: a CR, then an LF
}, 50);
`,
      { TZ: 'UTC' },
    );
    const at = EPOCH_MS + 3_661_000;
    assert.equal(stdout, `File ${at}\n1 Jan 01:01:01 - x 1\nlines "a" "b" "" "c"\n`);
    assert.ok(wallMs >= 150, `real time passed between the CR and the LF (took ${wallMs} ms)`);
  });

  it('os.uptime() is the host hrtime in seconds, cut to hundredths, and moves exactly with virtual time', function () {
    const { stdout } = simulate(
      'os-uptime.mjs',
      `import os from 'node:os';
const agrees = () => os.uptime() === Math.floor(Number(process.hrtime.bigint() / 10_000_000n)) / 100;
const start = os.uptime();
console.log('agrees with hrtime', agrees(), start > 1);
setTimeout(() => console.log('after 5 s', (os.uptime() - start).toFixed(2), agrees()), 5000);
`,
    );
    assert.equal(stdout, 'agrees with hrtime true true\nafter 5 s 5.00 true\n');
  });
});
