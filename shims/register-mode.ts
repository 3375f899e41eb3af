/**
 * Register mode: `node --import dst-runtime/register app.js`. The whole process is the
 * simulation; the entry module and everything outside another host's context is host "main".
 * Nothing is uninstalled: the process exits when no ref'd simulated work remains, like Node.
 *
 * Idle: when Node's loop runs dry ('beforeExit': no real work pending) while ref'd simulated
 * handles remain and nothing is scheduled, no event can ever happen again — a listening server
 * no simulated client will reach, a socket waiting for data no peer will send. Real Node would
 * wait for ever. The run stops with exit code 75 (ExitCode.idle) and a report naming each
 * handle and the line that made it. DST_IDLE=exit instead exits as if those handles were gone,
 * with the program's own exit code (for programs meant to end that way).
 */
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatTimeNs } from '../runtime/clock/units.js';
import { UsageError } from '../runtime/errors.js';
import { ExitCode, exitCodeOfFailure } from '../runtime/exit-codes.js';
import { formatFailure, type FailureReport } from '../runtime/failure.js';
import { parseFaultSpec, type FaultSpec } from '../runtime/faults/plan.js';
import { ProgramFaults } from '../runtime/faults/program-faults.js';
import { DEFAULTS, type DiskMode, envDiskFaults, envDiskMode, envDurationNs, envPending, envPositiveInteger, envStrict, replayEnvironment, replayNode, shellQuote } from '../runtime/options.js';
import type { ResolvedRule } from '../runtime/disk/faults.js';
import { formatPendingPromises } from './async-hooks/pending-promises.js';
import { formatSeed, parseSeed } from '../runtime/random/seed.js';
import { captureSite, OWN_DIST, userStack } from '../runtime/trace/site.js';
import { World, type WorldHost } from '../runtime/world.js';
import { topLevelPhase } from '../runtime/scheduler/loop-phases.js';
import { NODE_MAJOR } from './context.js';
import { shapesKept } from '../runtime/scheduler/shape-keeper.js';
import { onRealDisk } from '../runtime/disk/real.js';
import { installShims } from './install.js';
import { ensureHooks, LOADER_HOOKS, runHookChainOutside } from './module/module-hosts.js';
import { holdEveryImport } from './module/code-cache.js';
import { childKeepAlive } from './process/child-processes.js';
import { hookProcessEvent, setScopeOfThrow } from './process/own-events.js';
import { creationSites, formatAddress, type KeepAlive, ownerOf, siteOf, tcpKeepAlive } from './net/net-binding.js';
import { installTripwire } from './strict/tripwire.js';
import { mirrorSignature } from './registry.js';
import { originals } from '../runtime/originals.js';

/** Node's process object, taken at load: a program may replace the global one. */
const nodeProcess: NodeJS.Process = originals.process;

const VERSION_STATE = Symbol.for('dst-runtime.register');

/** This build's register entries, as paths: a replay names them `dst-runtime/register`. */
const OWN_REGISTER = new Set(['register.mjs', 'register.cjs'].map((file) => path.join(OWN_DIST, file)));

function isOwnRegister(specifier: string): boolean {
  try {
    const file = specifier.startsWith('file:') ? fileURLToPath(specifier) : path.resolve(specifier);
    return OWN_REGISTER.has(file);
  } catch {
    return false;
  }
}

/**
 * Node's options as a replay should show them: the preload of this very build by path or file
 * URL (as `dst run` starts its children) is the package's `dst-runtime/register`, which resolves
 * wherever dst-runtime is installed (and inside its own checkout).
 */
function replayExecArgv(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    const inline = /^(--import|--require|-r)=(.*)$/.exec(arg);
    if (inline !== null && isOwnRegister(inline[2]!)) out.push(`${inline[1]}=dst-runtime/register`);
    else if ((arg === '--import' || arg === '--require' || arg === '-r') && i + 1 < execArgv.length && isOwnRegister(execArgv[i + 1]!)) {
      out.push(arg, 'dst-runtime/register');
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * The command that replays this run, made when first asked for (a failure report, DST_REPORT):
 * resolving the machine's time zone for it (machineSettings) loads ICU's zone data, a quarter of
 * register mode's start-up CPU time on Node 20 when made eagerly. What it reads of the process
 * (argv, cwd, the environment) is copied at start, before the program can change it.
 */
function lazyReplayCommand(seedText: string): () => string {
  // The program as given when it is under the working directory, else by its absolute path.
  const argv = process.argv.slice(1).map((arg, i) => {
    if (i !== 0) return arg;
    const rel = path.relative(process.cwd(), arg);
    return rel === '' || rel.startsWith('..') ? arg : rel;
  });
  const execArgv = replayExecArgv(process.execArgv);
  const env = { ...process.env };
  let command: string | undefined;
  return () => {
    if (command !== undefined) return command;
    // Settings that change the run travel with the seed, so the replay is exact.
    const settings = ['DST_TIME_LIMIT', 'DST_EVENT_LIMIT', 'DST_DISK', 'DST_DISK_FAULTS', 'DST_IDLE', 'DST_PENDING', 'DST_FAULTS', 'DST_HELD_IMPORTS']
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => `${name}=${shellQuote(env[name]!)}`);
    command = [...replayEnvironment(env, env), `DST_SEED=${seedText}`, ...settings, ...[replayNode(env), ...execArgv, ...argv].map(shellQuote)].join(' ');
    return command;
  };
}

/**
 * Whether the process preloads something besides dst-runtime (`--import tsx`, a `--loader`, ...,
 * on the command line or in NODE_OPTIONS): such a tool may have registered in-thread loader hooks
 * before dst-runtime loaded, which only dst-runtime's own hooks, registered after them, can run
 * outside the program (module-hosts.ts runHookChainOutside).
 */
export function preloadsOthers(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const flags = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  for (let i = 0; i < flags.length; i++) {
    const match = /^(--import|--require|-r|--loader|--experimental-loader)(?:=(.*))?$/.exec(flags[i]!);
    if (match === null) continue;
    const value = match[2] ?? flags[++i];
    if (value !== undefined && value !== 'dst-runtime/register' && !isOwnRegister(value)) return true;
  }
  return false;
}

/**
 * Whether Node runs this process's entry through its ESM loader (what decides, on Node 20, where
 * in the loop the program's top level runs: loop-phases.ts topLevelPhase). As Node's
 * shouldUseESMLoader: an `--import`, `--loader` or `--experimental-loader` flag (on the command
 * line or in NODE_OPTIONS), `--experimental-default-type=module`, an .mjs entry, or a .js (or
 * extensionless) entry whose nearest package.json says "type": "module".
 */
export function entryUsesEsmLoader(execArgv: readonly string[], nodeOptions: string | undefined, entry: string | undefined): boolean {
  const flags = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  for (const flag of flags) {
    if (/^--(import|loader|experimental-loader)(=|$)/.test(flag)) return true;
    if (flag === '--experimental-default-type=module') return true;
  }
  if (entry === undefined) return false;
  if (entry.endsWith('.mjs')) return true;
  if (entry.endsWith('.cjs')) return false;
  for (let dir = path.dirname(path.resolve(entry)); ; dir = path.dirname(dir)) {
    let text: string | undefined;
    try {
      text = fs.readFileSync(path.join(dir, 'package.json'), 'utf8');
    } catch {
      text = undefined;
    }
    if (text !== undefined) {
      try {
        return (JSON.parse(text) as { type?: unknown }).type === 'module';
      } catch {
        return false;
      }
    }
    if (path.dirname(dir) === dir) return false;
  }
}

function usageExit(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  nodeProcess.stderr.write(`dst: ${message}\n`);
  nodeProcess.exit(ExitCode.usage);
}

export type IdleMode = 'fail' | 'exit';

function parseIdleMode(env: NodeJS.ProcessEnv): IdleMode {
  const text = env.DST_IDLE;
  if (text === undefined || text === '' || text === 'fail') return 'fail';
  if (text === 'exit') return 'exit';
  throw new UsageError(
    `Failed to parse DST_IDLE: ${JSON.stringify(text)} is not 'fail' (default: a program that would wait for ever ` +
      `stops with exit code ${ExitCode.idle} and a report) or 'exit' (it exits with its own code)`,
  );
}

/**
 * Records where the program calls net.Server#listen, net.Socket#connect and dgram.Socket#bind
 * (explicit or implicit, from send/connect), for the idle report: by the time the handle is
 * made, Node has often moved on to a nextTick or a lookup callback with no user frame left.
 */
let creationSitesRecorded = false;
export function recordCreationSites(): void {
  if (creationSitesRecorded) return;
  creationSitesRecorded = true;
  const wrap = (proto: Record<string, unknown>, name: string) => {
    const original = proto[name] as (...args: unknown[]) => unknown;
    const wrapped = {
      [name](this: object, ...args: unknown[]) {
        const site = captureSite();
        if (site !== undefined) creationSites.set(this, site);
        return Reflect.apply(original, this, args);
      },
    }[name]!;
    Object.defineProperty(wrapped, 'length', { value: original.length });
    proto[name] = wrapped;
  };
  wrap(net.Server.prototype as unknown as Record<string, unknown>, 'listen');
  wrap(net.Socket.prototype as unknown as Record<string, unknown>, 'connect');
  wrap(dgram.Socket.prototype as unknown as Record<string, unknown>, 'bind');
}

/** Every ref'd simulated handle of `world`, described; refs the runtime cannot name are counted. */
export function keepAliveReport(world: World): string[] {
  const keepers: KeepAlive[] = [...tcpKeepAlive(world), ...childKeepAlive(world)];
  for (const socket of world.network.udp.boundSockets()) {
    const owner = socket.owner as { holdsRef?: boolean; handle?: Record<PropertyKey, unknown> } | undefined;
    if (owner?.holdsRef !== true || !socket.receiving || socket.host.state !== 'running') continue;
    const site = owner.handle === undefined ? undefined : siteOf(ownerOf(owner.handle), 'bind()');
    const address = formatAddress({ address: socket.address, port: socket.port, family: socket.family });
    keepers.push({ refs: 1, what: `UDP socket bound to ${address} (receiving, and no datagram can arrive)`, site });
  }
  const lines = keepers.map((k) => `${k.what}: ${k.site ?? 'made where dst-runtime could not see it'}`);
  const named = keepers.reduce((sum, k) => sum + k.refs, 0);
  if (world.refs > named) {
    lines.push(`${world.refs - named} more ref'd handle(s) dst-runtime cannot name (this may be a bug in dst-runtime: please report it)`);
  }
  return lines;
}

/** The settings of a register-mode run that come from the environment (DST_*), validated. */
export interface RegisterSettings {
  eventsMax: number;
  timeLimitNs: number;
  idleMode: IdleMode;
  disk: DiskMode;
  diskFaults: ResolvedRule[] | undefined;
  pending: boolean;
  /** DST_FAULTS: production-shaped faults for the program (runtime/faults/). */
  faults: FaultSpec | undefined;
}

/** Reads RegisterSettings from `env`; throws a UsageError naming a bad value. */
export function registerSettings(env: NodeJS.ProcessEnv): RegisterSettings {
  const disk = envDiskMode(env);
  const diskFaults = envDiskFaults(env);
  if (diskFaults !== undefined && disk !== 'simulated') {
    throw new UsageError('Failed to parse DST_DISK_FAULTS: disk faults need simulated disks: set DST_DISK=simulated too');
  }
  return {
    eventsMax: envPositiveInteger(env, 'DST_EVENT_LIMIT') ?? DEFAULTS.eventsMax,
    timeLimitNs: envDurationNs(env, 'DST_TIME_LIMIT') ?? DEFAULTS.timeLimitNs,
    idleMode: parseIdleMode(env),
    disk,
    diskFaults,
    pending: envPending(env),
    faults: env.DST_FAULTS !== undefined && env.DST_FAULTS !== '' ? parseFaultSpec(env.DST_FAULTS) : undefined,
  };
}

/**
 * Whether register mode starts dst-runtime's loader hooks to hold the program's dynamic imports
 * (DST_HELD_IMPORTS=1), where Node's ESM loader runs hooks on a thread of its own (Node 20, and
 * 22 before 22.15). There an `import()` of a file is real asynchronous work: unheld, the
 * simulation runs on while it loads, so where it settles depends on the machine (one seed ran
 * 13,568 to 31,232 events of a 1 ms interval before `await import('typescript')` settled). Held,
 * it settles in an 'io' event at the instant it was made, as in `dst explore`'s workers, whose
 * programs run as module hosts with the hooks on; `dst run`, `check`, `explore` and `replay` set
 * it for every seed they run in register mode there. Not on by default: starting the hooks'
 * thread costs about 28 ms of start-up, and it puts an 'io' event under every import(), where
 * plain Node 20 settles a builtin's within the calling callback's microtasks. With Node's
 * in-thread hooks (22.15+, 24) an import settles within its own microtasks anyway: the setting
 * changes nothing there.
 */
export function holdsDynamicImports(env: NodeJS.ProcessEnv): boolean {
  const text = env.DST_HELD_IMPORTS;
  if (text !== undefined && text !== '' && text !== '0' && text !== '1') {
    throw new UsageError(`Failed to parse DST_HELD_IMPORTS: ${JSON.stringify(text)} is not 1 (hold every dynamic import()) or 0 (the default)`);
  }
  return text === '1' && LOADER_HOOKS === 'register';
}

/** True when `error` says the program's entry module itself does not exist. */
function isMissingEntry(error: unknown): boolean {
  const entry = process.argv[1];
  if (entry === undefined || !(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const file = path.resolve(entry);
  const url = (error as { url?: unknown }).url;
  return url === pathToFileURL(file).href || error.message.includes(`'${file}'`) || error.message.includes(`'${entry}'`);
}

/** Fails up front when the report could not be written at exit (a missing directory, a directory). */
function checkWritable(file: string, name: string): void {
  const existed = fs.existsSync(file);
  try {
    onRealDisk(() => fs.closeSync(fs.openSync(file, 'a')));
    if (!existed) onRealDisk(() => fs.rmSync(file, { force: true }));
  } catch (error) {
    throw new UsageError(`Failed to write ${name}=${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (error as Error).message}`);
  }
}

/**
 * The failure report of an error nothing handled (Node's 'uncaughtExceptionMonitor' with no
 * listener to take it): a crash, or an unhandled rejection, of `host`.
 */
export function fatalErrorReport(world: World, host: WorldHost, error: unknown, origin: NodeJS.UncaughtExceptionOrigin): FailureReport {
  const what = origin === 'unhandledRejection' ? 'an unhandled rejection' : 'an uncaught exception';
  const head = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return world.report(
    origin === 'unhandledRejection' ? 'unhandled-rejection' : 'crash',
    host,
    error,
    world.eventsRun === 0 && failedToLoad(error)
      ? `host "${host.name}" could not load a module: ${head} (Node's report follows)`
      : `host "${host.name}" crashed with ${what}: ${head} (Node's report follows)`,
  );
}

/**
 * Whether `error` is Node's loader refusing a module (a syntax or link error from its compiler,
 * a module not found), which Node reports for an ES module entry as a rejection of its import.
 */
function failedToLoad(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
  if (!(error instanceof SyntaxError)) return false;
  const frame = /^\s+at .*$/m.exec(error.stack ?? '')?.[0] ?? '';
  return frame.includes('node:internal/modules/') || frame.includes('node:internal/vm');
}

/**
 * Where a run's own output goes: its report (DST_REPORT), its trace (DST_TRACE), whether it
 * prints its summary (DST_QUIET). Read once at start, then taken out of the program's
 * environment: they are the runner's, not the program's. So the program sees, and passes to its
 * children, the same variables however its seed runs (alone under `dst run`, which sets them, or
 * in an explorer worker, which does not), and a child started with the program's own
 * `process.execArgv` (a register-mode run of its own, on the same DST_SEED) does not write over
 * this run's report or trace.
 */
export const RUN_OUTPUTS = ['DST_REPORT', 'DST_TRACE', 'DST_QUIET'] as const;

export function hideRunOutputs(env: NodeJS.ProcessEnv): void {
  for (const name of RUN_OUTPUTS) delete env[name];
}

/** Starts register mode once per process (the ESM and CJS entries may both be loaded). */
export function startRegisterMode(): World {
  const g = globalThis as Record<symbol, World | undefined>;
  const existing = g[VERSION_STATE];
  if (existing !== undefined) return existing;

  const env = process.env;
  const reportFile = env.DST_REPORT !== undefined && env.DST_REPORT !== '' ? env.DST_REPORT : undefined;
  const quiet = env.DST_QUIET === '1';
  let seed: bigint;
  let settings: RegisterSettings;
  let heldImports = false;
  try {
    seed = env.DST_SEED !== undefined && env.DST_SEED !== ''
      ? parseSeed(env.DST_SEED, 'DST_SEED')
      : BigInt(Math.floor(Math.random() * 2 ** 32)); // outside the simulation: a fresh seed
    settings = registerSettings(env);
    heldImports = holdsDynamicImports(env);
    envStrict(env);
    shapesKept(); // DST_KEEP_SHAPES, refused here if bad rather than as the World is made
    if (reportFile !== undefined) checkWritable(reportFile, 'DST_REPORT');
  } catch (error) {
    if (error instanceof UsageError) usageExit(error);
    throw error;
  }
  const { eventsMax, timeLimitNs, idleMode, disk, diskFaults, pending, faults } = settings;
  const seedText = formatSeed(seed);
  const traceFile = env.DST_TRACE !== undefined && env.DST_TRACE !== '' ? env.DST_TRACE : undefined;
  let world: World;
  try {
    const replay = lazyReplayCommand(seedText);
    world = new World({
      seed,
      mode: 'register',
      epochMs: DEFAULTS.epochMs,
      eventsMax,
      timeLimitNs,
      durationNs: undefined,
      traceFile,
      get replay() {
        return replay();
      },
      disk,
      ...(diskFaults === undefined ? {} : { diskFaults }),
      pending,
      // Node 22 and 24 run every entry before the loop: no need to look (and read package.json).
      topLevelPhase: topLevelPhase(NODE_MAJOR < 22 && entryUsesEsmLoader(nodeProcess.execArgv, env.NODE_OPTIONS, nodeProcess.argv[1])),
    });
  } catch (error) {
    usageExit(new UsageError(`Failed to open DST_TRACE=${traceFile}: ${(error as Error).message}`));
  }
  let summarized = false;
  const main = world.hosts.add('main', 'host');
  world.fallbackHost = main;
  const programFaults = faults === undefined ? undefined : new ProgramFaults(world, faults);
  programFaults?.install(main);
  g[VERSION_STATE] = world;
  hideRunOutputs(env);
  if (heldImports) {
    ensureHooks(true);
    holdEveryImport();
  } else if (LOADER_HOOKS === 'registerHooks' && preloadsOthers(process.execArgv, env.NODE_OPTIONS)) {
    ensureHooks();
    runHookChainOutside();
  }

  world.onFailure = (report) => {
    world.showFailure(report, formatFailure(report));
    nodeProcess.exit(exitCodeOfFailure(report.kind));
  };

  // A crash prints Node's own error (after 'exit' handlers), so the seed block comes first.
  hookProcessEvent('uncaughtExceptionMonitor', { before: (error: unknown, origin: unknown) => {
    // (Node's own handler emits this before 'uncaughtException'; the program's monitors run after.)
    const fatal = nodeProcess.listenerCount('uncaughtException') === 0 && !nodeProcess.hasUncaughtExceptionCaptureCallback();
    if (!fatal) {
      if (origin === 'uncaughtException') world.noteHandledThrow();
      return;
    }
    if (world.eventsRun === 0 && isMissingEntry(error)) {
      // `node --import dst-runtime/register missing.js`: one line, as `dst run missing.js` says it.
      summarized = true;
      nodeProcess.stderr.write(`dst: Failed to load ${process.argv[1]}: no such file\n`);
      nodeProcess.exit(ExitCode.usage);
    }
    // Node prints the stack next: without dst-runtime's own frames (DST_DEBUG=1 keeps them).
    if (error instanceof Error && typeof error.stack === 'string') {
      try {
        error.stack = userStack(error.stack);
      } catch {
        // a frozen error keeps its stack
      }
    }
    const host = world.currentHost() ?? main;
    const report = fatalErrorReport(world, host, error, origin as NodeJS.UncaughtExceptionOrigin);
    world.traceFailure(report);
    world.flushTrace();
    world.showFailure(report, formatFailure(report, { withError: false }));
  } });

  // Before the program's own listeners: in real Node they would never run while the handles
  // keep it alive.
  hookProcessEvent('beforeExit', { before: () => {
    if (world.refs === 0 || idleMode === 'exit' || world.result !== undefined) return;
    const lines = keepAliveReport(world);
    const count = lines.length;
    const report = world.report(
      'idle',
      main,
      lines.join('\n'),
      `run idle: no simulated event can ever happen again, yet ${count} ref'd handle${count === 1 ? ' keeps' : 's keep'} ` +
        `the program alive (real Node would wait for ever)`,
    );
    world.traceFailure(report);
    world.flushTrace();
    world.showFailure(
      report,
      `${formatFailure(report)}\n  fix      close them (server.close(), socket.end(), child.kill()) or unref() them; ` +
        `DST_IDLE=exit exits with the program's own code instead`,
    );
    nodeProcess.exit(ExitCode.idle);
  } });

  // The summary carries the code the process really exits with, which the program's own 'exit'
  // listeners may still change (process.exitCode = n, or process.exit(n) inside one, which
  // exits at once): so it is written after every 'exit' listener, or when the process exits
  // from inside one, whichever comes first.
  const summarize = (code: unknown): void => {
    if (summarized) return;
    summarized = true;
    world.flushTrace();
    const summary =
      `dst: seed ${seedText}  fingerprint ${world.fingerprint}  virtual ${formatTimeNs(world.nowNs)}  ` +
      `events ${world.eventsRun}  exit ${code}`;
    const pendingSites = world.pendingPromises?.();
    if (pendingSites !== undefined) nodeProcess.stderr.write(`${formatPendingPromises(pendingSites)}\n`);
    if (!quiet) {
      // The fault mix (DST_FAULTS) is part of what the seed ran: printed with the summary.
      if (programFaults !== undefined) nodeProcess.stderr.write(`dst: faults ${world.faultMix}\n`);
      nodeProcess.stderr.write(`${summary}\n`);
    }
    if (reportFile !== undefined) {
      const report = {
        seed: seedText,
        fingerprint: world.fingerprint.toString(),
        elapsedNs: world.nowNs,
        events: world.eventsRun,
        exitCode: code,
        replay: world.options.replay,
        ...(programFaults === undefined ? {} : { faults: programFaults.mix }),
        ...(pendingSites === undefined ? {} : { pending: pendingSites }),
        ...(world.shownFailure === undefined ? {} : { failure: { kind: world.shownFailure.kind, message: world.shownFailure.summary } }),
      };
      onRealDisk(() => fs.writeFileSync(reportFile, `${JSON.stringify(report)}\n`));
    }
  };
  const exitCodeNow = (fallback: unknown): unknown => {
    const code = nodeProcess.exitCode;
    return code === undefined || code === null || code === '' ? fallback : Number(code);
  };
  hookProcessEvent('exit', { after: (code) => summarize(exitCodeNow(code)) });
  setScopeOfThrow(() => world.asyncScopeOfThrow());
  const processWithExit = nodeProcess as unknown as { reallyExit: (code?: number) => never };
  const reallyExit = processWithExit.reallyExit;
  processWithExit.reallyExit = function reallyExitAfterSummary(this: unknown, code?: number): never {
    summarize(code ?? 0);
    return Reflect.apply(reallyExit, this, [code]) as never;
  };
  mirrorSignature(processWithExit.reallyExit, reallyExit);

  try {
    installShims(world, { whole: true });
  } catch (error) {
    if (error instanceof UsageError) usageExit(error);
    throw error;
  }
  recordCreationSites();
  if (envStrict(env)) installTripwire(world);
  return world;
}
