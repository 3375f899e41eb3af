/**
 * Many seeds of a plain program in one process, one after the other: what a `dst explore`
 * worker runs, instead of one `node --import dst-runtime/register` process per seed (whose
 * start-up, not the program, was most of a small program's time per seed).
 *
 * Each seed must run exactly as `DST_SEED=<seed> node --import dst-runtime/register app.js`
 * runs it (test/determinism/program-seeds.test.mjs compares the fingerprints), so a seed is a
 * register-mode world of its own, and the program sees what it would see in a fresh process:
 *
 * - a fresh module graph: the program is imported as module host "main" is
 *   (module-hosts.ts: its ES modules and CommonJS files, node_modules included, are new
 *   instances per seed), with its own process.argv and the process.execArgv its replay has;
 *   its process.env is Node's own (TZ moves the time zone, values become strings), with the
 *   seed's variables and without the runner's (RUN_OUTPUTS), put back after the seed;
 * - the process's events stay Node's own, as in register mode: the program's listeners are
 *   removed after its seed, and process.exit() ends the seed (its 'exit' listeners run first);
 * - globals the program added or replaced are put back, and process.exitCode too;
 * - the worker's IPC channel to the explorer is not there while the seed runs (no process.send,
 *   no 'message' listeners: process/ipc-channel.ts), as in a process started plainly.
 *
 * A seed ends as the process would: when Node's loop has nothing left ('beforeExit' with no
 * ref'd real work: the explorer's IPC channel is unref'd while a seed runs), with the program's
 * exit code; or at process.exit(), a crash, a simulator failure, or a strict-mode escape. Only the
 * first way leaves nothing of the program running: after any other, the result says the process
 * is not fit for another seed (`reusable: false`), and the explorer replaces it.
 *
 * - what the program changed of Node's built-in objects and process-wide settings is put back
 *   to what they were before the worker's first seed (process-state.ts: Array.prototype.x,
 *   fs.readFile = wrapped, require.extensions, Error.stackTraceLimit, console.log, the working
 *   directory, umask, title, capture callback, source maps, EventEmitter, stream, dns, net and
 *   util.inspect defaults, process.report, methods and listeners on process.stdout/stderr and
 *   the global agents, require.cache entries shadowing a builtin), and the http(s) global
 *   agents' pooled sockets are destroyed, the ports it listened on closed and Node's
 *   performance timeline cleared.
 *
 * What cannot be put back makes the result say the process is not fit for another seed
 * (`reusable: false`, `unfit` says why), so the next seed runs in a fresh process, as its replay
 * does: a built-in object frozen, sealed or made non-extensible, a non-configurable property
 * changed or a non-configurable global added (a script's top-level var), V8 flags, the first load of a builtin that changes the process (domain), a warning
 * Node emits once per process (a deprecation). What is not detected (process-state.ts says why):
 * an existing property's attributes changed while its value stays, a data property turned into
 * an accessor returning the same value, internal state of Node's modules with no accessor (the
 * Buffer pool's offset, caches). `dst explore --process-per-seed` runs each seed in a fresh
 * process.
 */
import { topLevelPhase } from '../runtime/scheduler/loop-phases.js';
import { NODE_MAJOR } from './context.js';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import timers from 'node:timers';
import { ExitCode, exitCodeOfFailure } from '../runtime/exit-codes.js';
import { type FailureReport, runtimeError } from '../runtime/failure.js';
import { DEFAULTS } from '../runtime/options.js';
import { originals } from '../runtime/originals.js';
import { formatSeed, parseSeed } from '../runtime/random/seed.js';
import { World } from '../runtime/world.js';
import { installShims, uninstallShims } from './install.js';
import { ensureHooks, moduleHostMain, runHookChainOutside } from './module/module-hosts.js';
import { fatalErrorReport, hideRunOutputs, keepAliveReport, preloadsOthers, recordCreationSites, registerSettings } from './register-mode.js';
import { escapedRealWork } from './strict/tripwire.js';
import { hideIpcChannel } from './process/ipc-channel.js';
import { hookProcessEvent, setScopeOfThrow } from './process/own-events.js';
import { clearTimeline } from './clock/performance.js';
import { keepCryptoShim } from './crypto/random.js';
import { closeListenedPorts, noteListenedPorts } from './worker-threads/messaging.js';
import { ProgramFaults } from '../runtime/faults/program-faults.js';
import { ProcessState } from './process-state.js';
import { takeAloneReason } from './seed-fitness.js';
import { runtimeCallback } from '../runtime/driver/runtime-resources.js';
import { realResourcesUnhidden } from './net/native-handles.js';

/** Node's process object, taken at load: a program may replace the global one. */
const nodeProcess: NodeJS.Process = originals.process;

/**
 * Whether work would keep Node's loop turning after 'beforeExit': the simulation's (the driver's
 * immediates, real work it waits for such as real-disk fs calls), real requests in flight, ref'd
 * real timers and immediates. Handles are not counted: Node lists the stdio pipes and the IPC
 * channel among them whether or not they hold the loop, and a program's own sockets are
 * simulated ones. Called from an immediate of our own, which Node no longer counts while it runs.
 */
function workPending(world: World): boolean {
  if (world.driver.queuedImmediates > 0 || world.realWorkHolds > 0) return true;
  // Not the requests the shims answer themselves (a simulated disk's FSReqCallbacks are never
  // dispatched, and Node lists them until they are collected: the seed would never end).
  const real = realResourcesUnhidden();
  if (real.requests.length > 0) return true;
  return real.rest.some((kind) => kind === 'Timeout' || kind === 'Immediate');
}

/** How often the strict-mode check looks for escaped real timers (as register mode's tripwire). */
const STRICT_CHECK_MS = 5;
/** Node's exit code when the entry module's top-level await never settles. */
const UNSETTLED_TOP_LEVEL_AWAIT = 13;

/**
 * Node 20 runs the entry module with an 'exit' listener of its own (handleProcessExit, which sets
 * exit code 13 for a top-level await that never settled) until the module's evaluation settles,
 * also a CommonJS entry run under --import; 22 and 24 do not. A program counting its 'exit'
 * listeners sees it: so does a seed in a worker (pinned by test/determinism/program-seeds.test.mjs).
 */
const ENTRY_EXIT_LISTENER = NODE_MAJOR < 22;

/** One seed of a program, as register mode would have ended it. */
export interface ProgramSeedResult {
  seed: string;
  /** The exit code the process would have exited with. */
  exitCode: number;
  fingerprint: string;
  elapsedNs: number;
  events: number;
  /** The fault mix the seed ran with (DST_FAULTS), when faults were on. */
  faults?: import('../runtime/faults/plan.js').FaultMix;
  /** The failure register mode reports, when the simulator saw one (a crash, a limit, idle). */
  failure?: { kind: FailureReport['kind']; summary: string; host: string | undefined };
  /** The seed ended with nothing of the program left running: the process can run another. */
  reusable: boolean;
  /** Why the process cannot run another seed, when it cannot. */
  unfit?: string;
  /**
   * Why this program's seeds must each run in a process of their own, this one included (its
   * result here may differ from its replay's): seed-fitness.ts everySeedAlone.
   */
  alone?: string;
}

export interface ProgramSeedOptions {
  /** The replay command of this seed, for failure reports. */
  replay: string;
  /** DST_TRACE of this seed. */
  trace?: string;
  /** process.argv.slice(2) of the program. */
  argv?: string[];
  /**
   * Variables the program's process.env has besides this process's (DST_SEED is added; the run's
   * own outputs, register-mode.ts RUN_OUTPUTS, are taken out, as register mode takes them out).
   */
  env?: Record<string, string>;
  /** The program's process.execArgv (default: this process's), as the seed's replay starts it. */
  execArgv?: readonly string[];
}

/** Thrown by process.exit() inside a seed: unwinds the program's code, as the exit would have. */
const kExit = Symbol('dst-runtime.program-exit');

interface SeedRun {
  world: World;
  /** Ends the seed with this exit code (the first call wins). */
  end(exitCode: number, reusable: boolean, report?: FailureReport): void;
  /** While the program's 'exit' listeners run: the code process.exit() inside them sets. */
  exiting: boolean;
  exitCode: number;
  /** The program's main module has finished evaluating (its top-level await included). */
  topLevelSettled: boolean;
  /** DST_IDLE as the seed started: register mode reads it once, before the program can change it. */
  idleMode: ReturnType<typeof registerSettings>['idleMode'];
}

let running: SeedRun | undefined;
let processHooked = false;
/** The process as before the first seed: what every seed after it is put back to. */
let processState: ProcessState | undefined;
/**
 * The global object's properties and Node's environment as before the first seed, taken once:
 * every seed starts from them (a seed's changes are put back before the next), so taking them
 * again before each seed read the same ~200 descriptors and every variable again for nothing.
 */
let globalsBefore: Map<PropertyKey, PropertyDescriptor> | undefined;
let envBefore: Array<[string, string | undefined]> | undefined;
/** Node's own process.env, whose variables a seed's program reads and writes as in a fresh process. */
const realEnv: NodeJS.ProcessEnv = nodeProcess.env;

/** Listens, once per process and before any program does, for what ends a seed. */
function hookProcess(): void {
  if (processHooked) return;
  processHooked = true;
  recordCreationSites();
  // Not listeners of the process (own-events.ts): the program sees only its own.
  hookProcessEvent('uncaughtException', { before: (error: unknown, origin: unknown) => {
    // process.exit() unwinding the program's code: no listener of the program's sees it.
    if (error === kExit) return true;
    const run = running;
    if (run === undefined) {
      nodeProcess.stderr.write(`dst: uncaught error outside every seed (a bug in dst-runtime): ${(error as Error)?.stack ?? String(error)}\n`);
      (nodeProcess as unknown as { reallyExit(code: number): never }).reallyExit(ExitCode.hostCrash);
      return;
    }
    // The program's own listeners handle it: not fatal, as in Node.
    const world = run.world;
    if (nodeProcess.listenerCount('uncaughtException') > 0 || nodeProcess.hasUncaughtExceptionCaptureCallback()) {
      if (origin === 'uncaughtException') world.noteHandledThrow();
      return;
    }
    const host = world.currentHost() ?? world.fallbackHost!;
    const report = fatalErrorReport(world, host, error, origin as NodeJS.UncaughtExceptionOrigin);
    run.end(ExitCode.hostCrash, true, report);
    return true;
  } });
  // process.exit() inside a promise job rejects that promise with the unwinding: handled, as the
  // exit would have ended the process (a program's `.catch(() => process.exit(1))` after its
  // seed exited otherwise crashed the worker: Node wraps the value in an UnhandledPromiseRejection).
  hookProcessEvent('unhandledRejection', { before: (reason: unknown) => reason === kExit });
  setScopeOfThrow(() => running?.world.asyncScopeOfThrow());
  hookProcessEvent('beforeExit', { before: () => {
    const run = running;
    if (run === undefined) return;
    const world = run.world;
    if (world.refs > 0 && run.idleMode === 'fail' && world.result === undefined) {
      const lines = keepAliveReport(world);
      const count = lines.length;
      const report = world.report(
        'idle',
        world.fallbackHost!,
        lines.join('\n'),
        `run idle: no simulated event can ever happen again, yet ${count} ref'd handle${count === 1 ? ' keeps' : 's keep'} ` +
          `the program alive (real Node would wait for ever)`,
      );
      // Register mode exits here, before the program's own 'beforeExit' listeners run.
      run.end(ExitCode.idle, true, report);
      throw kExit;
    }
    // The program's listeners run after this one and may start more work: look once they and
    // what they queued have run. This immediate keeps the loop for one more turn; if nothing else
    // does, the process would have exited here.
    originals.setImmediate(runtimeCallback(() => {
      if (running !== run) return;
      if (workPending(world)) return;
      run.end(run.topLevelSettled ? exitCodeNow(0) : UNSETTLED_TOP_LEVEL_AWAIT, true);
    }));
  } });
}

/**
 * An 'exit' listener threw (the listeners after it do not run, as in Node). As Node does, the
 * error goes to the program's 'uncaughtException' listeners (or its capture callback), and the
 * process exits with the code it had; with none, it is a crash (exit code 1), which the seed
 * reports as one: the report, or undefined when the program took the error.
 */
function exitListenerThrew(world: World, error: unknown): FailureReport | undefined {
  if (nodeProcess.listenerCount('uncaughtException') > 0 || nodeProcess.hasUncaughtExceptionCaptureCallback()) {
    try {
      (nodeProcess.emit as (event: string, ...args: unknown[]) => boolean)('uncaughtException', error, 'uncaughtException');
    } catch (again) {
      if (again !== kExit) return fatalErrorReport(world, world.fallbackHost!, again, 'uncaughtException');
    }
    return undefined;
  }
  return fatalErrorReport(world, world.fallbackHost!, error, 'uncaughtException');
}

function settingsNow(): ReturnType<typeof registerSettings> {
  return registerSettings(nodeProcess.env);
}

function exitCodeNow(fallback: number): number {
  const code = nodeProcess.exitCode;
  return code === undefined || code === null || (code as unknown) === '' ? fallback : Number(code);
}

/** What a program may change of the process, to be put back after its seed (the globals: globalsBefore). */
interface Snapshot {
  listeners: Map<string | symbol, Function[]>;
  exit: NodeJS.Process['exit'];
  mainModule: unknown;
}

function takeGlobals(): Map<PropertyKey, PropertyDescriptor> {
  const globals = new Map<PropertyKey, PropertyDescriptor>();
  for (const key of Reflect.ownKeys(globalThis)) globals.set(key, Object.getOwnPropertyDescriptor(globalThis, key)!);
  return globals;
}

function snapshot(): Snapshot {
  const listeners = new Map<string | symbol, Function[]>();
  for (const name of nodeProcess.eventNames()) listeners.set(name, nodeProcess.rawListeners(name).slice());
  return { listeners, exit: nodeProcess.exit, mainModule: (nodeProcess as unknown as { mainModule: unknown }).mainModule };
}

function sameDescriptor(a: PropertyDescriptor, b: PropertyDescriptor): boolean {
  return Object.is(a.value, b.value) && a.get === b.get && a.set === b.set && a.writable === b.writable && a.enumerable === b.enumerable && a.configurable === b.configurable;
}

function restore(before: Snapshot, globals: Map<PropertyKey, PropertyDescriptor>): string | undefined {
  const g = globalThis as Record<PropertyKey, unknown>;
  let kept: string | undefined;
  for (const key of Reflect.ownKeys(globalThis)) {
    if (globals.has(key)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, key);
    if (descriptor?.configurable) delete g[key];
    // A script's top-level var (vm.runInThisContext), Object.defineProperty: there for good.
    else kept ??= `the program defined the global ${String(key)} as non-configurable (it cannot be deleted)`;
  }
  for (const [key, descriptor] of globals) {
    const now = Object.getOwnPropertyDescriptor(globalThis, key);
    if (now !== undefined && sameDescriptor(now, descriptor)) continue;
    if (now === undefined || now.configurable) Object.defineProperty(globalThis, key, descriptor);
    else {
      if (now.writable && 'value' in descriptor) g[key] = descriptor.value;
      const after = Object.getOwnPropertyDescriptor(globalThis, key);
      if (after === undefined || !sameDescriptor(after, descriptor)) kept ??= `the program made the global ${String(key)} non-configurable (it cannot be put back)`;
    }
  }
  for (const name of nodeProcess.eventNames()) {
    const kept = before.listeners.get(name) ?? [];
    for (const listener of nodeProcess.rawListeners(name)) {
      if (!kept.includes(listener)) nodeProcess.removeListener(name, listener as (...args: unknown[]) => void);
    }
  }
  nodeProcess.exit = before.exit;
  nodeProcess.exitCode = undefined;
  (nodeProcess as unknown as { mainModule: unknown }).mainModule = before.mainModule;
  // Sockets a keep-alive agent pooled belong to machines of the last seed's world.
  http.globalAgent.destroy();
  https.globalAgent.destroy();
  // Ports it listened on (they keep the loop, and would get later seeds' messages) and its
  // performance timeline are the process's.
  closeListenedPorts();
  clearTimeline();
  return kept;
}

/**
 * The program's process.env is Node's own, as in a fresh process (values become strings, TZ
 * moves the time zone): its variables are taken before the first seed and put back after each, in
 * their order, so that the next seed's program enumerates what a fresh process would give it.
 */
function takeEnv(): Array<[string, string | undefined]> {
  return Object.keys(realEnv).map((key) => [key, realEnv[key]]);
}

function putBackEnv(before: Array<[string, string | undefined]>): boolean {
  const keys = Object.keys(realEnv);
  if (keys.length === before.length && keys.every((key, i) => key === before[i]![0] && realEnv[key] === before[i]![1])) return false;
  const known = new Set(before.map(([key]) => key));
  for (const key of keys) if (!known.has(key)) delete realEnv[key];
  for (const [key, value] of before) if (realEnv[key] !== value) realEnv[key] = value;
  const now = Object.keys(realEnv);
  if (now.some((key, i) => key !== before[i]![0])) {
    // A variable deleted and set again moved to the end: set them all again in their order.
    for (const [key] of before) delete realEnv[key];
    for (const [key, value] of before) realEnv[key] = value;
  }
  return true;
}

/**
 * Runs one seed of the program `file` in this process, as register mode runs it. One seed at
 * a time; the promise settles when the seed ends (see the top of this file).
 */
export function runProgramSeed(file: string, seedText: string, options: ProgramSeedOptions): Promise<ProgramSeedResult> {
  if (running !== undefined) throw new Error(`Failed to run seed ${seedText} of ${file}: seed ${running.world.seedText} is still running in this process`);
  hookProcess();
  // Before anything of a seed: the built-in objects and settings every seed starts from.
  if (processState === undefined) {
    // Held imports outside host graphs too (Node 20's loader thread), as register mode holds them
    // under the CLI (DST_HELD_IMPORTS=1): an ES module a CommonJS file of the program imports has
    // no host query (its importer's URL has none), and its own import() must be held all the same.
    ensureHooks(true);
    // A tool preloaded in NODE_OPTIONS (--import tsx) registered its hooks before these.
    if (preloadsOthers(process.execArgv, process.env.NODE_OPTIONS)) runHookChainOutside();
    noteListenedPorts();
    keepCryptoShim();
    processState = new ProcessState();
  }
  const state = processState;
  const seed = parseSeed(seedText, 'seed');
  const settings = settingsNow();
  const world = new World({
    seed,
    mode: 'register',
    epochMs: DEFAULTS.epochMs,
    eventsMax: settings.eventsMax,
    timeLimitNs: settings.timeLimitNs,
    durationNs: undefined,
    traceFile: options.trace,
    replay: options.replay,
    disk: settings.disk,
    ...(settings.diskFaults === undefined ? {} : { diskFaults: settings.diskFaults }),
    pending: settings.pending,
    // As `node --import dst-runtime/register app` (the seed's replay) runs the entry.
    topLevelPhase: topLevelPhase(true),
  });
  const main = world.hosts.add('main', 'host');
  world.fallbackHost = main;
  const programFaults = settings.faults === undefined ? undefined : new ProgramFaults(world, settings.faults);
  programFaults?.install(main);
  // The explorer's IPC channel is not the program's: plainly it has none (ipc-channel.ts). Hidden
  // before the snapshot, so that the listeners the seed adds are the only ones restore() removes.
  const showIpcChannel = hideIpcChannel(nodeProcess);
  const before = snapshot();
  globalsBefore ??= takeGlobals();
  envBefore ??= takeEnv();
  const globals = globalsBefore;
  const env = envBefore;
  for (const [key, value] of Object.entries({ ...(options.env ?? {}), DST_SEED: seedText })) realEnv[key] = value;
  hideRunOutputs(realEnv);
  const execArgvBefore = nodeProcess.execArgv;
  nodeProcess.execArgv = [...(options.execArgv ?? execArgvBefore)];
  state.begin();
  takeAloneReason();
  let strictTimer: NodeJS.Timeout | undefined;

  return new Promise<ProgramSeedResult>((resolve) => {
    let result: ProgramSeedResult | undefined;
    const run: SeedRun = {
      world,
      exiting: false,
      exitCode: 0,
      topLevelSettled: false,
      idleMode: settings.idleMode,
      end(exitCode, reusable, report) {
        if (result !== undefined) return;
        let code = exitCode;
        // The program's 'exit' listeners run, as in Node; process.exit() inside one sets the code.
        run.exiting = true;
        run.exitCode = code;
        nodeProcess.exitCode = code;
        let crash: FailureReport | undefined;
        try {
          nodeProcess.emit('exit', code);
        } catch (error) {
          if (error !== kExit) {
            reusable = false;
            crash = exitListenerThrew(world, error);
          }
        }
        code = run.exiting ? exitCodeNow(run.exitCode) : run.exitCode;
        // An 'exit' listener threw and no listener of the program's took it: a crash, as alone.
        if (crash !== undefined && report === undefined) {
          report = crash;
          code = ExitCode.hostCrash;
        }
        world.flushTrace();
        result = {
          seed: formatSeed(seed),
          exitCode: code,
          fingerprint: world.fingerprint.toString(),
          elapsedNs: world.nowNs,
          events: world.eventsRun,
          ...(programFaults === undefined ? {} : { faults: programFaults.mix }),
          ...(report === undefined ? {} : { failure: { kind: report.kind, summary: report.summary, host: report.host } }),
          reusable,
        };
        if (strictTimer !== undefined) originals.clearInterval(strictTimer);
        running = undefined;
        world.dispose();
        // Put back what the program changed once what its last code queued (promise jobs, ticks)
        // has run: a seed that crashed or exited mid-event still has some.
        originals.setImmediate(runtimeCallback(() => {
          uninstallShims(world);
          const globalKept = restore(before, globals);
          putBackEnv(env);
          nodeProcess.execArgv = execArgvBefore;
          const check = state.restore();
          showIpcChannel();
          if (check.restored.length > 0 && nodeProcess.env.DST_DEBUG_RESTORE === '1') {
            nodeProcess.stderr.write(`dst: put back after seed ${seedText}: ${check.restored.join(', ')}\n`);
          }
          const alone = takeAloneReason();
          if (alone !== undefined) result!.alone = alone;
          const unfit = check.reusable ? globalKept : check.reason;
          if (unfit !== undefined) {
            result!.reusable = false;
            result!.unfit = unfit;
          } else if (alone !== undefined) {
            // Its seeds run alone from now on: this process runs none of them again.
            result!.reusable = false;
            result!.unfit = alone;
          } else if (workPending(world)) {
            // Whatever is still pending belongs to this seed's program: not fit for another seed.
            result!.reusable = false;
            result!.unfit = 'work of the program is still pending';
          }
          resolve(result!);
        }));
      },
    };
    world.onFailure = (report) => {
      run.end(exitCodeOfFailure(report.kind) ?? ExitCode.hostCrash, true, report);
    };
    running = run;
    installShims(world, { whole: true });
    // After the shims: the process shim's own process.exit (library mode only) sits under this.
    nodeProcess.exit = function exitSeed(...args: unknown[]): never {
      // As Node's exit(): an argument, undefined included, is the code (the setter checks it).
      if (args.length !== 0) nodeProcess.exitCode = args[0] as number;
      if (run.exiting) {
        run.exitCode = exitCodeNow(0);
        run.exiting = false; // the code is final, as when Node exits from inside an 'exit' listener
      } else {
        run.end(exitCodeNow(0), true);
      }
      throw kExit;
    } as NodeJS.Process['exit'];
    if (nodeProcess.env.DST_STRICT !== '0') {
      const check = (): void => {
        if (running !== run) return;
        const escaped = escapedRealWork(world);
        if (escaped === undefined) return;
        const error = runtimeError(`${escaped} escaped the simulation (set DST_STRICT=0 to allow real timers; the run is then not reproducible)`);
        const host = world.currentHost();
        run.end(ExitCode.escape, false, world.report('crash', host, error, `strict mode: ${escaped} escaped the simulation`));
      };
      world.driver.onCheckpoint = check;
      strictTimer = originals.setInterval(runtimeCallback(check), STRICT_CHECK_MS);
      strictTimer.unref();
    }
    const handleProcessExit = (): void => {
      nodeProcess.exitCode ??= UNSETTLED_TOP_LEVEL_AWAIT;
    };
    if (ENTRY_EXIT_LISTENER) nodeProcess.on('exit', handleProcessExit);
    const loading = moduleHostMain({
      main: path.resolve(file),
      argv: options.argv ?? [],
    }, { env: realEnv })();
    loading.then(
      () => {
        run.topLevelSettled = true;
        nodeProcess.removeListener('exit', handleProcessExit);
      },
      (error: unknown) => {
        run.topLevelSettled = true;
        nodeProcess.removeListener('exit', handleProcessExit);
        if (running !== run || error === kExit) return;
        reportEntryRejection(error);
      },
    );
  });
}

/**
 * What Node does when the evaluation of the entry module rejects (a top-level throw): its
 * uncaught-exception handler with origin 'unhandledRejection' (triggerUncaughtException(error,
 * true), not the 'unhandledRejection' event): 'uncaughtExceptionMonitor', then 'uncaughtException',
 * which the program's listeners may handle, and which is otherwise fatal (hookProcess). Handled,
 * Node then queues an empty immediate "so that any ticks get processed", through the timers
 * module: a simulated immediate, as in the seed's own process.
 */
function reportEntryRejection(error: unknown): void {
  const emit = nodeProcess.emit as (event: string, ...args: unknown[]) => boolean;
  try {
    emit.call(nodeProcess, 'uncaughtExceptionMonitor', error, 'unhandledRejection');
    emit.call(nodeProcess, 'uncaughtException', error, 'unhandledRejection');
  } catch (thrown) {
    // A listener's process.exit() ends the seed there, as it ends the process.
    if (thrown === kExit) return;
    throw thrown;
  }
  if (nodeProcess.listenerCount('uncaughtException') > 0) timers.setImmediate(() => {});
}
