/**
 * Real module loads a library-mode client may be waiting for (World.realLoadsInFlight).
 *
 * A client that awaits `import(...)` holds nothing simulated, yet Node keeps the process alive
 * until the load is done, and the client then goes on. Where the load is real asynchronous work,
 * the run must wait for it rather than end as quiescent (and it must not depend on how long the
 * load takes: the simulation stands still meanwhile). Measured on Node 20 (docs/notes/node-facts.md,
 * "Dynamic import() and the event loop"):
 * - without loader hooks, the ES module loader reads a file not yet loaded with fs/promises:
 *   real FSReqPromise and CloseReq requests, one after another, with only microtasks between;
 * - with loader hooks on Node's loader thread (module.register: dst-runtime's own on Node 20 once
 *   a module host has run, or a project's, such as tsx), every import(), even of a builtin, is a
 *   request to that thread; while one is pending Node refs the thread, and its MessagePort joins
 *   the process's list of active handles.
 * Node 22 and 24 load synchronously within the import()'s microtasks when no hooks thread exists
 * (dst-runtime uses module.registerHooks there), so nothing real is in flight between two events.
 *
 * Simulated requests are left out (native-handles.ts hides those the shims answer); so are the
 * real requests of socket writes and DNS lookups, which simulated sockets leave in Node's list
 * until they are collected: only file requests and the hooks thread's ports count. Of ports, only
 * those the loader posts a request on count (see portHolds): a runner's own, and one a host's
 * code listens on (which keeps its process alive in Node too, and whose messages are simulated
 * events), never do.
 *
 * Every run waits for these loads, a run of hosts only too: a host that awaits import() is a
 * process Node keeps alive until the module is there (found 2026-12-05: on Node 20, once a module
 * host had started the hooks thread, a later host's `await import('node:dgram')` ended its run as
 * quiescent after 1 event in 21 of 30 runs, and the rest of the host ran after the run).
 *
 * A test runner may load the module itself, in another process: Vitest's forks pool fetches a
 * module a test imports from its main process over the worker's IPC channel, and the answer comes
 * back as a 'message'. A birpc request (Vitest's) holds the simulation until its answer
 * (holdForAnswer). Any other message counts below only while a client waits: a forwarded console
 * line wants no answer, and would keep a run of hosts from ending for IPC_ANSWER_MS. So a message sent over the process's channel while a host's code runs (the
 * runner's code, working for that host: a host itself sees no channel, ipc-channel.ts) counts as
 * real work in flight until the next message arrives, or for at most IPC_ANSWER_MS of real time
 * (a message that wants no answer, such as a forwarded console line, must not keep a run whose
 * clients wait on nothing from ending), and then for IPC_SETTLE_MS more: Vitest hands the answer
 * on to the waiting import() a real turn or more after it arrived (seen: the run ended between
 * the two in 4 of 5 tries). Timers cannot cut into running code, so only real waiting counts.
 */
import { EventEmitter } from 'node:events';
import { originals } from '../../runtime/originals.js';
import { runtimeCallback } from '../../runtime/driver/runtime-resources.js';
import type { World } from '../../runtime/world.js';
import { realResourcesUnhidden } from '../net/native-handles.js';

/** Requests Node's module loader makes to read a file. */
const LOAD_REQUESTS = new Set(['FSReqPromise', 'CloseReq', 'FSReqCallback']);

/**
 * Per port of Node 20's loader-hooks thread (its Worker's) while the loader awaits answers from
 * it: the holds of the runs whose hosts made the requests. HooksProxy#makeAsyncRequest posts each
 * request there and refs the worker, which refs that port, until every answer is in (it waits for
 * them with Atomics.waitAsync, not on a port), then unrefs it: an entry lives from the first post
 * (shims/worker-threads/messaging.ts, from the loader's frames on the stack) to that unref
 * (releaseLoaderPort). Ports are not read from process._getActiveHandles(): Node aborts there on
 * a handle whose object is gone (a monitorEventLoopDelay histogram a host had enabled:
 * AsyncWrap::GetOwner, found by a probe, 2026-12-05).
 */
const portHolds = new Map<object, Array<() => void>>();

/**
 * A host of `world` (library mode) made the loader post a request on `port`: the simulation is
 * held, no event of any host runs and virtual time stands still, until the loader has every
 * answer and unrefs the port (releaseLoaderPort), and the import goes on in the microtasks after
 * that. Left alone, other hosts' timers ran on while the answer was awaited (a probe, 2026-12-05:
 * a host's import() beside a 1 ms interval, after a module host had started the hooks thread,
 * settled after 0 to 15,360 ticks, 7 outcomes in 10 runs of one seed).
 */
export function holdForLoaderPort(world: World, port: object): void {
  let holds = portHolds.get(port);
  if (holds === undefined) portHolds.set(port, (holds = []));
  holds.push(world.holdForRealWork());
}

/** `port` was unref'd: if the loader's, the answers are in and the holds end. */
export function releaseLoaderPort(port: object): void {
  const holds = portHolds.get(port);
  if (holds === undefined) return;
  portHolds.delete(port);
  for (const release of holds) release();
}

/** MessagePort's own hasRef, as Node made it (the messaging shim wraps ref and unref only while a run is installed). */
const portHasRef = (MessagePort.prototype as unknown as { hasRef?: () => boolean }).hasRef;

/**
 * Whether the module loader awaits an answer from its hooks thread now: a port a request was
 * posted on is still ref'd. The unref that ends a request is seen only while a run's shims are
 * installed (releaseLoaderPort); one that came between two runs (the run that made the request
 * failed or was aborted meanwhile) left its entry here for ever, and every later run of hosts
 * only waited for it at its end, retrying each millisecond: a CI run on Node 20 hung twice so
 * (2026-12-06), and test/hosts/dynamic-import.test.mjs pins it. Such an entry is dropped here.
 */
function loaderAwaitsHooks(): boolean {
  // releaseLoaderPort deletes the entry being visited, which a Map's iteration allows.
  for (const port of portHolds.keys()) {
    if (portHasRef === undefined || Reflect.apply(portHasRef, port, []) === true) return true;
    releaseLoaderPort(port);
  }
  return false;
}

/** How long a message sent for a host counts as awaiting an answer (real ms). */
const IPC_ANSWER_MS = 10_000;
/** How long after the answer the runner may take to hand it on (real ms). */
const IPC_SETTLE_MS = 100;

/** Per run: what its hosts sent over and still await an answer on, and when (real ms) they last sent and were answered. */
interface Awaiting {
  targets: Set<object>;
  sentAt: number;
  answeredAt: number;
}
const awaitingOf = new WeakMap<World, Awaiting>();
/** The runs awaiting each channel's or port's next message: one listener per target, however many sends. */
const runsAwaiting = new WeakMap<object, Set<World>>();

/**
 * A host of `world` sent a message over `target` (the process's IPC channel, or a port): until
 * the target's next message, the run's clients may be waiting for it. `listen` adds a listener
 * for that next message, called once.
 */
function sentForHost(world: World, target: object, listen: (answered: () => void) => void): void {
  const now = originals.dateNow();
  let awaiting = awaitingOf.get(world);
  if (awaiting === undefined) awaitingOf.set(world, (awaiting = { targets: new Set(), sentAt: now, answeredAt: -Infinity }));
  awaiting.sentAt = now;
  awaiting.targets.add(target);
  const runs = runsAwaiting.get(target);
  if (runs !== undefined) {
    runs.add(world);
    return;
  }
  const waiting = new Set([world]);
  runsAwaiting.set(target, waiting);
  listen(() => {
    runsAwaiting.delete(target);
    const answeredAt = originals.dateNow();
    for (const each of waiting) {
      const state = awaitingOf.get(each);
      if (state === undefined) continue;
      state.targets.delete(target);
      state.answeredAt = answeredAt;
      each.kick();
    }
  });
}

/** How long a runner's request made for a host holds the simulation at most, awaiting its answer (real ms). */
const REQUEST_HOLD_MS = IPC_ANSWER_MS;

/**
 * The id of `message` if it is a request that awaits an answer of the same id, as birpc makes
 * them (Vitest's workers talk to their main process with it: `{ t: 'q', i: id, m, a }`; an event,
 * which wants no answer, has no id; the answer is `{ t: 's', i: id }`).
 */
function requestId(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { t, i } = message as { t?: unknown; i?: unknown };
  return t === 'q' && typeof i === 'string' ? i : undefined;
}

/** Whether `message` answers the request `id` (requestId). */
function answers(message: unknown, id: string): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const { t, i } = message as { t?: unknown; i?: unknown };
  return t === 's' && i === id;
}

/**
 * A host of `world` made the runner send request `id` over `target` (Vitest fetching a module for
 * a host's import(), over its worker's IPC channel or port): the simulation is held, no event of
 * any host runs and virtual time stands still, until its answer comes in (then the import goes on
 * in the microtasks after it) or, at most, REQUEST_HOLD_MS of real time. Left alone, other hosts'
 * timers ran on while the runner worked (Vitest 4's forks pool: a host's import() of a project
 * file beside a 1 ms interval, 2 outcomes in 6 runs of one seed).
 */
function holdForAnswer(world: World, id: string, listen: (onMessage: (message: unknown) => void) => () => void): void {
  const release = world.holdForRealWork();
  let stop: () => void = () => undefined;
  // The runtime's own timer, made outside every host (strict mode's tripwire and the program's
  // async hooks see none of it), and never what keeps the process alive.
  const timer = world.outsideHosts(() =>
    originals.setTimeout(
      runtimeCallback(() => {
        stop();
        release();
      }),
      REQUEST_HOLD_MS,
    ),
  );
  timer.unref();
  stop = listen((message) => {
    if (!answers(message, id)) return;
    stop();
    originals.clearTimeout(timer);
    release();
  });
}

/**
 * A message went out over the process's IPC channel while a host of `world` ran (shims/process/
 * process-host.ts sees Node's `process._send` called then): until the next message comes in,
 * the run's clients may be waiting for it.
 */
export function ipcSentForHost(world: World, proc: NodeJS.Process, message?: unknown): void {
  const id = requestId(message);
  if (id !== undefined) {
    holdForAnswer(world, id, (onMessage) => {
      // EventEmitter's own methods: process.on inside a host adds the host's listener (process-host.ts).
      EventEmitter.prototype.prependListener.call(proc, 'message', onMessage);
      return () => EventEmitter.prototype.removeListener.call(proc, 'message', onMessage);
    });
  }
  sentForHost(world, proc, (answered) => {
    const once = (): void => {
      EventEmitter.prototype.removeListener.call(proc, 'message', once);
      answered();
    };
    // EventEmitter's own method: process.on inside a host adds the host's listener (process-host.ts).
    EventEmitter.prototype.prependListener.call(proc, 'message', once);
  });
}

/**
 * A message was posted on a MessagePort while a host of `world` ran, and the port is listened to
 * (Vitest's threads pool fetches modules over its worker's port, as the forks pool does over the
 * IPC channel): until the port's next message, the run's clients may be waiting for it. A port
 * nobody listens to is left alone (a listener would start it, and a runner that polls it with
 * receiveMessageOnPort would lose its messages).
 */
export function portSentForHost(world: World, port: object, message?: unknown): void {
  const target = port as {
    listenerCount?(event: string): number;
    once?(event: string, listener: () => void): unknown;
    on?(event: string, listener: (message: unknown) => void): unknown;
    off?(event: string, listener: (message: unknown) => void): unknown;
  };
  if (typeof target.listenerCount !== 'function' || typeof target.once !== 'function' || target.listenerCount('message') === 0) return;
  const id = requestId(message);
  if (id !== undefined && typeof target.on === 'function' && typeof target.off === 'function') {
    holdForAnswer(world, id, (onMessage) => {
      target.on!('message', onMessage);
      return () => target.off!('message', onMessage);
    });
  }
  sentForHost(world, port, (answered) => target.once!('message', answered));
}

/** How long (real ms) a run may wait at its end for real work before it says so on stderr. */
const WAIT_NOTICE_MS = 5_000;

/** Sets World.realLoadsInFlight for a library-mode run (called as its shims are installed). */
export function watchRealLoads(world: World): void {
  // Since when (real ms) the run has waited at its end, and whether it said so.
  let waitingSince: number | undefined;
  let told = false;
  const inFlight = (clientsWaiting: boolean): string | undefined => {
    if (clientsWaiting) {
      const awaiting = awaitingOf.get(world);
      if (awaiting !== undefined) {
        const now = originals.dateNow();
        if ((awaiting.targets.size > 0 && now - awaiting.sentAt < IPC_ANSWER_MS) || now - awaiting.answeredAt < IPC_SETTLE_MS) {
          return 'an answer to a message sent over the process\'s IPC channel or a port';
        }
      }
    }
    if (loaderAwaitsHooks()) return 'an answer from Node\'s loader-hooks thread';
    const requests = realResourcesUnhidden().requests.filter((name) => LOAD_REQUESTS.has(name));
    return requests.length === 0 ? undefined : `real file requests (${requests.join(', ')})`;
  };
  world.realLoadsInFlight = (clientsWaiting) => {
    const what = inFlight(clientsWaiting);
    if (what === undefined) {
      waitingSince = undefined;
      return undefined;
    }
    // A wait that does not end is a hang with no other sign: say what the run waits for, once.
    const now = originals.dateNow();
    waitingSince ??= now;
    if (!told && now - waitingSince >= WAIT_NOTICE_MS) {
      told = true;
      originals.process.stderr.write(
        `dst: the run of seed ${world.seedText} has nothing left to run, and has waited ${Math.round((now - waitingSince) / 1000)} s (real time) for ${what}, ` +
          'which a host may be awaiting (a dynamic import()); virtual time stands still meanwhile. If none of its hosts made it, code outside the simulation did (an earlier test\'s leftover)\n',
      );
    }
    return what;
  };
}
