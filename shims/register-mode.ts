/**
 * Register mode: `node --import dst-runtime/register app.js`. The whole process is the
 * simulation; the entry module and everything outside another host's context is host "main".
 * Nothing is uninstalled: the process exits when no ref'd simulated work remains, like Node.
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatTimeNs } from '../runtime/clock/units.js';
import { UsageError } from '../runtime/errors.js';
import { ExitCode } from '../runtime/exit-codes.js';
import { formatFailure } from '../runtime/failure.js';
import { DEFAULTS, envDurationNs, envPositiveInteger, shellQuote } from '../runtime/options.js';
import { formatSeed, parseSeed } from '../runtime/random/seed.js';
import { World } from '../runtime/world.js';
import { installShims } from './install.js';
import { installTripwire } from './tripwire.js';

const VERSION_STATE = Symbol.for('dst-runtime.register');

function replayCommand(seedText: string): string {
  const argv = process.argv.slice(1).map((arg, i) => (i === 0 ? path.relative(process.cwd(), arg) || arg : arg));
  // Settings that change the run travel with the seed, so the replay is exact.
  const settings = ['DST_TIME_LIMIT', 'DST_EVENT_LIMIT']
    .filter((name) => process.env[name] !== undefined && process.env[name] !== '')
    .map((name) => `${name}=${shellQuote(process.env[name]!)}`);
  return [`DST_SEED=${seedText}`, ...settings, ...['node', ...process.execArgv, ...argv].map(shellQuote)].join(' ');
}

function usageExit(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`dst: ${message}\n`);
  process.exit(ExitCode.usage);
}

/** Starts register mode once per process (the ESM and CJS entries may both be loaded). */
export function startRegisterMode(): World {
  const g = globalThis as Record<symbol, World | undefined>;
  const existing = g[VERSION_STATE];
  if (existing !== undefined) return existing;

  const env = process.env;
  let seed: bigint;
  let eventsMax: number;
  let timeLimitNs: number;
  try {
    seed = env.DST_SEED !== undefined && env.DST_SEED !== ''
      ? parseSeed(env.DST_SEED, 'DST_SEED')
      : BigInt(Math.floor(Math.random() * 2 ** 32)); // outside the simulation: a fresh seed
    eventsMax = envPositiveInteger(env, 'DST_EVENT_LIMIT') ?? DEFAULTS.eventsMax;
    timeLimitNs = envDurationNs(env, 'DST_TIME_LIMIT') ?? DEFAULTS.timeLimitNs;
  } catch (error) {
    if (error instanceof UsageError) usageExit(error);
    throw error;
  }
  const seedText = formatSeed(seed);
  const traceFile = env.DST_TRACE !== undefined && env.DST_TRACE !== '' ? env.DST_TRACE : undefined;
  let world: World;
  try {
    world = new World({
      seed,
      mode: 'register',
      epochMs: DEFAULTS.epochMs,
      eventsMax,
      timeLimitNs,
      durationNs: undefined,
      traceFile,
      replay: replayCommand(seedText),
    });
  } catch (error) {
    usageExit(new UsageError(`Failed to open DST_TRACE=${traceFile}: ${(error as Error).message}`));
  }
  const main = world.addHost('main', 'host');
  world.fallbackHost = main;
  g[VERSION_STATE] = world;

  world.onFailure = (report) => {
    process.stderr.write(`${formatFailure(report)}\n`);
    process.exit(ExitCode.limit);
  };

  // A crash prints Node's own error (after 'exit' handlers), so the seed block comes first.
  process.on('uncaughtExceptionMonitor', (error, origin) => {
    const fatal = process.listenerCount('uncaughtException') === 0 && !process.hasUncaughtExceptionCaptureCallback();
    if (!fatal) return;
    const host = world.currentHost() ?? main;
    const what = origin === 'unhandledRejection' ? 'an unhandled rejection' : 'an uncaught exception';
    const head = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const report = world.report(
      origin === 'unhandledRejection' ? 'unhandled-rejection' : 'crash',
      host,
      error,
      `host "${host.name}" crashed with ${what}: ${head} (Node's report follows)`,
    );
    world.flushTrace();
    process.stderr.write(`${formatFailure(report, { withError: false })}\n`);
  });

  process.on('exit', (code) => {
    world.flushTrace();
    const summary =
      `dst: seed ${seedText}  fingerprint ${world.fingerprint}  virtual ${formatTimeNs(world.nowNs)}  ` +
      `events ${world.eventsRun}  exit ${code}`;
    if (env.DST_QUIET !== '1') process.stderr.write(`${summary}\n`);
    if (env.DST_REPORT !== undefined && env.DST_REPORT !== '') {
      const report = {
        seed: seedText,
        fingerprint: world.fingerprint.toString(),
        elapsedNs: world.nowNs,
        events: world.eventsRun,
        exitCode: code,
        replay: world.options.replay,
      };
      fs.writeFileSync(env.DST_REPORT, `${JSON.stringify(report)}\n`);
    }
  });

  installShims(world);
  if (env.DST_STRICT !== '0') installTripwire(world);
  return world;
}
