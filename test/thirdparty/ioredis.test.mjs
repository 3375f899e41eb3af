// A real third-party client, unmodified: ioredis (from npm) on host "app" talks RESP to
// mini-redis (./fixtures/mini-redis.mjs) on host "redis" over the simulated network, while an
// "operator" host partitions, holds, kills and restarts at fixed virtual times. Everything
// the client observes (command results, errors, connection events, with performance.now()
// times) goes into one log; the test asserts its shape for several seeds and that one seed
// replays to the identical log and fingerprint.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import Redis from 'ioredis';
import { Sim, STARTUP_MS } from 'dst-runtime';

const SERVER_MAIN = fileURLToPath(new URL('./fixtures/mini-redis.mjs', import.meta.url));

/** How long TCP retransmits into a partition before the connection fails (network option). */
const TCP_TIMEOUT_MS = 2_000;
/** ioredis gives up on a connection attempt after this long (its own socket timer). */
const CONNECT_TIMEOUT_MS = 1_000;
/** ioredis rejects queued commands every (this + 1)th failed reconnect attempt. */
const MAX_RETRIES_PER_REQUEST = 1;
/** Reconnect delays 150, 250, 350 ms...: never a multiple of 100, so never tied with a tick. */
const retryDelayMs = (attempt) => 50 + 100 * Math.min(attempt, 5);

/**
 * The operator's faults, in virtual ms. Each is a multiple of 500 ms and the client's commands
 * go out at 25 + 100k ms, so no fault coincides with a command: the order of two hosts' events
 * at one instant is the scheduler's business, not something this test should pin.
 */
const FAULTS = [
  { atMs: 1_000, action: 'partition' }, // short: TCP retransmits, nothing breaks
  { atMs: 2_000, action: 'repair' },
  { atMs: 3_000, action: 'hold' }, // packets kept, delivered in order at release
  { atMs: 3_800, action: 'release' },
  { atMs: 4_500, action: 'partition' }, // long: the connection times out, reconnects time out
  { atMs: 8_500, action: 'repair' },
  { atMs: 9_500, action: 'kill' }, // the server process dies (SIGKILL) with its in-memory keyspace
  { atMs: 10_000, action: 'restart' },
];
const faultAt = (action, after = 0) => FAULTS.find((f) => f.action === action && f.atMs >= after).atMs;

/** INCR n goes out at 25, 125, ..., 10,925 ms, whatever state the connection is in. */
const TICK_FIRST_MS = 25;
const TICK_EVERY_MS = 100;
const TICKS = 110;
const FINAL_AT_MS = 11_000;

const MAX_RETRIES_ERROR =
  'MaxRetriesPerRequestError: Reached the max retries per request limit (which is 1). ' +
  'Refer to "maxRetriesPerRequest" option for details.';

function describeError(error) {
  const out = { name: error.name, message: error.message };
  if (error.code !== undefined) out.code = error.code;
  if (error.syscall !== undefined) out.syscall = error.syscall;
  return out;
}

/** Runs the scenario under `seed`: the client's log and the run's result. */
async function runScenario(seed) {
  const log = [];
  const sim = new Sim({ seed, network: { tcpTimeoutMs: TCP_TIMEOUT_MS } });

  // A module host: every incarnation gets fresh module instances, so the keyspace (module
  // state of mini-redis) is lost by a crash exactly as a real in-memory server's would be.
  sim.host('redis', { main: SERVER_MAIN, env: { PORT: '6379' } });

  sim.client('app', async () => {
    // Milliseconds since the program started (performance.now() counts its process's start-up too).
    const now = () => performance.now() - STARTUP_MS;
    const sleepUntil = (atMs) => new Promise((resolve) => setTimeout(resolve, atMs - now()));
    const redis = new Redis({
      host: 'redis',
      port: 6379,
      connectionName: 'app',
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: retryDelayMs,
      maxRetriesPerRequest: MAX_RETRIES_PER_REQUEST,
    });
    redis.on('connect', () => log.push({ atMs: now(), event: 'connect' }));
    redis.on('ready', () => log.push({ atMs: now(), event: 'ready' }));
    redis.on('error', (error) => log.push({ atMs: now(), event: 'error', error: describeError(error) }));
    redis.on('close', () => log.push({ atMs: now(), event: 'close' }));
    redis.on('reconnecting', (delayMs) => log.push({ atMs: now(), event: 'reconnecting', delayMs }));
    redis.on('end', () => log.push({ atMs: now(), event: 'end' }));

    /** Issues a command now; its outcome is logged when it settles. */
    const issue = (command, promise) => {
      const issuedMs = now();
      return promise.then(
        (value) => log.push({ atMs: now(), command, issuedMs, value }),
        (error) => log.push({ atMs: now(), command, issuedMs, error: describeError(error) }),
      );
    };
    const runIdOf = (info) => /run_id:(\w+)/.exec(info)?.[1];

    // Issued before the connection is ready: ioredis keeps it in its offline queue.
    const settled = [issue('set greeting', redis.set('greeting', 'hello'))];
    setTimeout(() => settled.push(issue('info run_id', redis.info('server').then(runIdOf))), 550);
    for (let tick = 0; tick < TICKS; tick++) {
      await sleepUntil(TICK_FIRST_MS + tick * TICK_EVERY_MS);
      settled.push(issue('incr n', redis.incr('n')));
    }
    await sleepUntil(FINAL_AT_MS);
    settled.push(issue('get greeting', redis.get('greeting')));
    settled.push(issue('exists greeting n', redis.exists('greeting', 'n')));
    settled.push(issue('info run_id', redis.info('server').then(runIdOf)));
    await Promise.all(settled);
    const ended = once(redis, 'end');
    await issue('quit', redis.quit());
    await ended; // without it the run would end (clients done) before 'close' and 'end'
  });

  sim.client('operator', async () => {
    for (const { atMs, action } of FAULTS) {
      await new Promise((resolve) => setTimeout(resolve, atMs - (performance.now() - STARTUP_MS)));
      if (action === 'kill' || action === 'restart') sim[action]('redis');
      else sim[action]('app', 'redis');
    }
  });

  const result = await sim.run();
  return { log, result };
}

/**
 * The log without its times: events and non-INCR commands one per line, and consecutive INCRs
 * folded into runs ("incr @625..4425 -> 7..45": issued every 100 ms from 625 to 4425 ms,
 * answered 7 to 45 in order). Server run_ids become "first"/"second" (their values are random).
 */
function summarize(log) {
  const lines = [];
  const runIds = [];
  let run;
  const closeRun = () => {
    if (run === undefined) return;
    const issued = run.fromMs === run.toMs ? `@${run.fromMs}` : `@${run.fromMs}..${run.toMs}`;
    lines.push(`incr ${issued} -> ${run.error ?? (run.first === run.last ? run.first : `${run.first}..${run.last}`)}`);
    run = undefined;
  };
  for (const entry of log) {
    if (entry.command === 'incr n') {
      const error = entry.error && `${entry.error.name}: ${entry.error.message}`;
      const continues =
        run !== undefined && entry.issuedMs === run.toMs + TICK_EVERY_MS && (error !== undefined ? run.error === error : run.last + 1 === entry.value);
      if (continues) {
        run.toMs = entry.issuedMs;
        run.last = entry.value;
      } else {
        closeRun();
        run = { fromMs: entry.issuedMs, toMs: entry.issuedMs, error, first: entry.value, last: entry.value };
      }
      continue;
    }
    closeRun();
    if (entry.event === 'error') {
      lines.push(`error ${entry.error.name}: ${entry.error.message} (${entry.error.code}, ${entry.error.syscall})`);
    } else if (entry.event === 'reconnecting') {
      lines.push(`reconnecting in ${entry.delayMs} ms`);
    } else if (entry.event !== undefined) {
      lines.push(entry.event);
    } else if (entry.command === 'info run_id' && entry.value !== undefined) {
      if (!runIds.includes(entry.value)) runIds.push(entry.value);
      lines.push(`info run_id -> ${['first', 'second', 'third'][runIds.indexOf(entry.value)]}`);
    } else {
      lines.push(`${entry.command} -> ${entry.error ? `${entry.error.name}: ${entry.error.message}` : JSON.stringify(entry.value)}`);
    }
  }
  closeRun();
  return lines;
}

/** What the client observes under every seed: latencies differ, this does not. */
const EXPECTED = [
  'connect',
  'ready',
  'set greeting -> "OK"',
  'incr @25..525 -> 1..6',
  'info run_id -> first',
  // The short partition and the hold only delay replies: the counter goes on.
  'incr @625..4425 -> 7..45',
  // The long partition: TCP gives up exactly TCP_TIMEOUT_MS after the first lost segment (the
  // INCR of 4525 ms), then each reconnect attempt times out (ioredis's timer).
  'error Error: read ETIMEDOUT (ETIMEDOUT, read)',
  'close',
  'reconnecting in 150 ms',
  'error Error: connect ETIMEDOUT (ETIMEDOUT, connect)',
  'close',
  'reconnecting in 250 ms',
  // Second failed attempt = maxRetriesPerRequest + 1: ioredis rejects its offline queue
  // (commands issued while disconnected), then the commands lost in flight on the dead socket.
  `incr @6525..7625 -> ${MAX_RETRIES_ERROR}`,
  `incr @4525..6425 -> ${MAX_RETRIES_ERROR}`,
  'error Error: connect ETIMEDOUT (ETIMEDOUT, connect)',
  'close',
  'reconnecting in 350 ms',
  // Repaired: the next attempt connects, the offline queue is sent. The rejected INCRs never
  // reached the server (the partition dropped them), so the counter continues at 46.
  'connect',
  'ready',
  'incr @7725..9425 -> 46..63',
  // The kill: the dead process's socket is closed by its kernel (FIN, no error), and
  // reconnects are refused while the server is down.
  'close',
  'reconnecting in 150 ms',
  'error Error: connect ECONNREFUSED 10.0.0.1:6379 (ECONNREFUSED, connect)',
  'close',
  'reconnecting in 250 ms',
  `incr @9525..9625 -> ${MAX_RETRIES_ERROR}`,
  'error Error: connect ECONNREFUSED 10.0.0.1:6379 (ECONNREFUSED, connect)',
  'close',
  'reconnecting in 350 ms',
  // Restarted: a new process with an empty keyspace and a new run_id.
  'connect',
  'ready',
  'incr @9725..10925 -> 1..13',
  'get greeting -> null',
  'exists greeting n -> 1',
  'info run_id -> second',
  'quit -> "OK"',
  'close',
  'end',
];

/** The timing facts behind EXPECTED, checked for every seed. */
function assertTiming(log) {
  const events = log.filter((e) => e.event !== undefined);
  const incrs = log.filter((e) => e.command === 'incr n');
  const within = (ms, from, to) => ms >= from && ms < to;

  // Every INCR was issued on its tick and settled exactly once.
  assert.deepEqual(
    incrs.map((e) => e.issuedMs).sort((a, b) => a - b),
    Array.from({ length: TICKS }, (_, i) => TICK_FIRST_MS + i * TICK_EVERY_MS),
  );

  for (const e of incrs.filter((i) => i.error === undefined)) {
    // Short partition: nothing gets through before the repair (TCP retransmits it after).
    if (within(e.issuedMs, faultAt('partition'), faultAt('repair'))) assert.ok(e.atMs >= faultAt('repair'), `INCR @${e.issuedMs} answered at ${e.atMs}`);
    // Hold: the packets wait for the release, then arrive promptly and in order.
    if (within(e.issuedMs, faultAt('hold'), faultAt('release'))) assert.ok(within(e.atMs, faultAt('release'), faultAt('release') + 20), `INCR @${e.issuedMs} answered at ${e.atMs}`);
    // Nothing is answered while the long partition lasts or while the server is down.
    assert.ok(!within(e.atMs, faultAt('partition', 4_000), faultAt('repair', 4_000)), `INCR @${e.issuedMs} answered at ${e.atMs} during the partition`);
    assert.ok(!within(e.atMs, faultAt('kill'), faultAt('restart')), `INCR @${e.issuedMs} answered at ${e.atMs} while the server was down`);
  }
  // With no fault in effect, a command is answered within a few round trips (1-5 ms a hop).
  // After the long partition the client is connected again only at about 9.3 s: TCP gives up
  // at 6,525 ms (exactly 2 s after the first lost segment), so the attempt in flight at the
  // repair (8.5 s) is the one started at 7,925 ms; it times out at 8,925 ms (ioredis's timer)
  // and the next one goes out 350 ms later.
  for (const [fromMs, toMs] of [[0, 1_000], [3_800, 4_500], [9_300, 9_500], [10_400, FINAL_AT_MS]]) {
    for (const e of incrs.filter((i) => within(i.issuedMs, fromMs, toMs))) {
      assert.ok(e.error === undefined && e.atMs - e.issuedMs < 20, `INCR @${e.issuedMs} settled at ${e.atMs}: ${JSON.stringify(e)}`);
    }
  }

  // The long partition: the read times out within the TCP timeout of the first lost segment.
  const firstLostMs = faultAt('partition', 4_000) + TICK_FIRST_MS;
  const readTimeout = events.find((e) => e.error?.syscall === 'read');
  assert.equal(readTimeout.atMs, firstLostMs + TCP_TIMEOUT_MS, `read ETIMEDOUT at ${readTimeout.atMs}`);
  // Virtual timers are exact: each reconnect starts delayMs after 'reconnecting', and ioredis's
  // connect timer fires exactly CONNECT_TIMEOUT_MS later.
  events.forEach((e, i) => {
    if (e.error?.syscall !== 'connect' || e.error.code !== 'ETIMEDOUT') return;
    const reconnecting = events.slice(0, i).findLast((r) => r.event === 'reconnecting');
    assert.equal(e.atMs, reconnecting.atMs + reconnecting.delayMs + CONNECT_TIMEOUT_MS);
  });
  // Queued commands are rejected at the instant of the failed attempt that exhausts them.
  for (const e of incrs.filter((i) => i.error !== undefined)) {
    assert.ok(events.some((c) => c.event === 'close' && c.atMs === e.atMs), `rejection at ${e.atMs} is not at a close`);
  }
  // Every reconnection happens after the fault that prevented it is over.
  const connects = events.filter((e) => e.event === 'connect').map((e) => e.atMs);
  assert.ok(connects[1] > faultAt('repair', 4_000) && connects[2] > faultAt('restart'), `connects at ${connects}`);
  // The kill is noticed one hop after it happens.
  const killClose = events.find((e) => e.event === 'close' && e.atMs > faultAt('kill'));
  assert.ok(killClose.atMs - faultAt('kill') <= 10, `kill noticed at ${killClose.atMs}`);
}

describe('ioredis (npm, unmodified) against mini-redis under partitions, a hold and a kill', function () {
  const pinnedSeed = 0x10ed15;
  let pinned;

  before(async () => {
    pinned = await runScenario(pinnedSeed);
  });

  it(`observes the expected reconnects, errors and counter values (seed ${pinnedSeed.toString(16)})`, () => {
    assert.deepEqual(summarize(pinned.log), EXPECTED);
    assertTiming(pinned.log);
    const runIds = pinned.log.filter((e) => e.command === 'info run_id').map((e) => e.value);
    assert.equal(runIds.length, 2);
    assert.match(runIds[0], /^[0-9a-f]{40}$/);
    assert.notEqual(runIds[0], runIds[1], 'the restarted server is a new process');
    assert.equal(pinned.result.stopReason, 'clients-done');
  });

  it(`replays the same seed to the identical log and fingerprint (seed ${pinnedSeed.toString(16)})`, async () => {
    const again = await runScenario(pinnedSeed);
    assert.deepEqual(again.log, pinned.log);
    assert.deepEqual(again.result, pinned.result);
  });

  for (const seed of [1, 2, 0xdeadbeef]) {
    it(`keeps the same behaviour with other latencies (seed ${seed.toString(16)})`, async () => {
      const other = await runScenario(seed);
      assert.deepEqual(summarize(other.log), EXPECTED);
      assertTiming(other.log);
      assert.notDeepEqual(other.log, pinned.log, 'another seed draws other latencies');
      assert.notEqual(other.result.fingerprint, pinned.result.fingerprint);
    });
  }
});
