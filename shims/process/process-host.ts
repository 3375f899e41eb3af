/**
 * A process per host (library mode): inside a simulated host, process.exit() ends that host,
 * not the simulation; process.on('SIGTERM' | 'exit' | 'uncaughtException' | ...) registers on
 * that host's own process events; process.kill(process.pid, signal) signals the host itself;
 * os.hostname() and os.networkInterfaces() describe the simulated machine.
 *
 * In register mode the whole process is host "main": its process object stays Node's own (only
 * os.hostname / networkInterfaces are simulated).
 */
import type { AsyncResource } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import { setHostProcessHooks } from '../../runtime/hosts/process-hooks.js';
import { originals } from '../../runtime/originals.js';
import type { World, WorldHost } from '../../runtime/world.js';
import { captureContext } from '../async-hooks/async-context.js';
import { callSites } from '../builtin-captures.js';
import { currentHost, type Host } from '../context.js';
import { invalidArgType, outOfRange } from '../node-errors.js';
import { killChild, setHostPidSource } from './child-processes.js';
import { clearDomains, giveToDomain, leaveScopeDomain } from './domain-errors.js';
import { hasIpcChannel, IPC_PROPERTIES } from './ipc-channel.js';
import { ipcSentForHost } from './real-loads.js';
import { mirrorSignature, type PatchSet } from '../registry.js';
import type { Realm, Shim } from '../shim.js';

/** Events that belong to a host's process rather than to the simulation's. */
const HOST_EVENTS = new Set<string | symbol>([
  'exit',
  'beforeExit',
  'uncaughtException',
  'uncaughtExceptionMonitor',
  'unhandledRejection',
  // Every signal a listener can be added for (Node throws for SIGKILL and SIGSTOP itself).
  ...Object.keys(os.constants.signals).filter((name) => name !== 'SIGKILL' && name !== 'SIGSTOP'),
  // A simulated host has no parent process: its IPC listeners are its own, never called
  // (ipc-channel.ts).
  'message',
  'disconnect',
]);

/** Thrown by process.exit() inside a host to unwind its code; never reported as a failure. */
export class HostExit extends Error {
  constructor(readonly host: Host, readonly code: number) {
    super(`host "${host.name}" called process.exit(${code})`);
    this.name = 'HostExit';
  }
}

const emitters = new WeakMap<Host, EventEmitter>();
const exitCodes = new WeakMap<Host, number>();

function emitterOf(host: Host): EventEmitter {
  let emitter = emitters.get(host);
  if (emitter === undefined) {
    emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    emitters.set(host, emitter);
  }
  return emitter;
}

/**
 * Depth of process.emit calls for host events in progress. Node emits 'unhandledRejection'
 * and 'uncaughtException' itself, possibly while a host's async context is current; the
 * listeners that run then (a test runner's) are not host code, and what they register or
 * remove must reach the real process.
 */
let emitting = 0;

/** The host whose process events a call concerns: library-mode hosts only. */
function processHost(event?: string | symbol): Host | undefined {
  if (event !== undefined && !HOST_EVENTS.has(event)) return undefined;
  if (emitting > 0) return undefined;
  const host = currentHost();
  if (host === undefined || host.world.mode !== 'library' || host.role === 'system') return undefined;
  return host;
}

/** Ends a host like process.exit(code): its 'exit' listeners run, then it is gone. */
export function exitHost(host: Host, code: number): void {
  if (host.state !== 'running') return;
  exitCodes.set(host, code);
  const emitter = emitters.get(host);
  try {
    emitter?.emit('exit', code);
  } finally {
    host.world.hosts.takeDown(host, 'exited');
  }
}

/**
 * Signals whose default action Node leaves the process running after (measured on Node 20, 22
 * and 24 with no listener: docs/notes/node-facts.md): ignored by the kernel's default or by Node
 * itself (SIGPIPE, SIGXFSZ), and SIGUSR1, on which Node starts its inspector.
 */
const SURVIVED = new Set(['SIGPIPE', 'SIGCHLD', 'SIGCONT', 'SIGURG', 'SIGXFSZ', 'SIGWINCH', 'SIGUSR1']);
/** Signals that stop a process until a SIGCONT (a library-mode host is paused: sim.resume()). */
const STOPPING = new Set(['SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU']);

/** What a process without a listener does on `signum`: Node's (and the kernel's) default action. */
function defaultAction(signum: number): 'survive' | 'stop' | 'end' {
  const names = signalNames(signum);
  if (names.some((name) => SURVIVED.has(name))) return 'survive';
  return names.some((name) => STOPPING.has(name)) ? 'stop' : 'end';
}

/**
 * Queues `deliver`, a signal sent to `host`'s own process, for the poll phase that reads it
 * (libuv's signal pipe): this turn's, or the next one's when sent from an I/O callback, whose
 * poll has returned (after the immediates it queued). Unref'd, as Node's signal wraps are.
 */
function queueSignal(host: Host, deliver: () => void, scope: AsyncResource | undefined): void {
  const world = host.world as World;
  if (world.inPoll(host as WorldHost)) world.scheduleNextPoll(host as WorldHost, deliver, scope);
  else world.schedule(host as WorldHost, 0, 'io', deliver, undefined, false, scope);
}

/**
 * Delivers a signal (a name, or a number from 1 to 64) to a host: the listeners of every name
 * the number has run (SIGABRT and SIGIOT are one signal), or, with none, what Node's default
 * does: most signals end the host with 128 + the number, some leave it running, the stopping
 * ones pause it. `caught`: it had listeners when it was sent (nothing happens without them now).
 */
export function signalHost(host: Host, signal: string | number, caught = false): void {
  if (host.state !== 'running') return;
  // By name from sim.stop() and sim.kill() (process-hooks.ts).
  const signum = typeof signal === 'number' ? signal : ((os.constants.signals as Record<string, number>)[signal] ?? 15);
  const emitter = emitters.get(host);
  const heard = emitter === undefined ? [] : listenedNames(emitter, signum);
  for (const name of heard) emitter!.emit(name, name, signum);
  if (heard.length > 0) return;
  // Caught when it was sent (a listener's handler was installed): its listeners are gone now, and
  // Node drops it with the signal's wrap.
  if (caught) return;
  const action = defaultAction(signum);
  if (action === 'survive') return;
  if (action === 'stop') {
    host.world.hosts.pause(host.name);
    return;
  }
  exitCodes.set(host, 128 + signum);
  if (signum === os.constants.signals.SIGKILL) host.world.hosts.takeDown(host, 'crashed');
  else host.world.hosts.takeDown(host, 'exited');
}

export function hostExitCode(host: Host): number | undefined {
  return exitCodes.get(host);
}

/**
 * What Node's uncaught-exception path does for a host's error, in its order: 'unhandledRejection'
 * listeners for a rejection; else 'uncaughtExceptionMonitor', then the node:domain that takes it
 * (Node's capture callback, which 'uncaughtException' listeners never see), else, with every
 * domain left, the host's 'uncaughtException' listeners. True when handled; `{ fatal }` when a
 * domain's error handler threw, which Node makes fatal with that new error. The listeners run in
 * the host's context (so what they schedule is the host's), as in Node, where they run inside
 * the callback that threw.
 */
function handleUncaught(host: Host, error: unknown, origin: 'uncaughtException' | 'unhandledRejection'): boolean | { fatal: unknown } {
  if (error instanceof HostExit) return true;
  if (host.world.mode !== 'library') return false;
  if (currentHost() === host) return deliverUncaught(host, error, origin);
  return host.world.als.run(host, () => deliverUncaught(host, error, origin));
}

function deliverUncaught(host: Host, error: unknown, origin: 'uncaughtException' | 'unhandledRejection'): boolean | { fatal: unknown } {
  const emitter = emitters.get(host);
  if (origin === 'unhandledRejection' && emitter !== undefined && emitter.listenerCount('unhandledRejection') > 0) {
    emitter.emit('unhandledRejection', error);
    return true;
  }
  emitter?.emit('uncaughtExceptionMonitor', error, origin);
  if (origin === 'uncaughtException') {
    const outcome = giveToDomain(error);
    if (outcome.handled) return true;
    if ('thrown' in outcome) return { fatal: outcome.thrown };
  }
  clearDomains();
  if (emitter !== undefined && emitter.listenerCount('uncaughtException') > 0) {
    emitter.emit('uncaughtException', error, origin);
    return true;
  }
  return false;
}

type Method = (this: unknown, ...args: any[]) => unknown;

/** `original`, except that on `p` inside a host it acts on that host's own process events. */
function hostAware(p: object, name: string, original: Method, perHost: (emitter: EventEmitter, host: Host, args: any[]) => unknown): Method {
  const adds = LISTENER_ADDERS.has(name);
  const fn = function (this: unknown, ...args: any[]) {
    const host = this === p ? processHost(args[0]) : undefined;
    if (host === undefined) {
      if (adds && this === p) noteSignalListener(p as NodeJS.Process, args[0]);
      return Reflect.apply(original, this, args);
    }
    return perHost(emitterOf(host), host, args);
  };
  // Node's own name and length (on is addListener, off is removeListener).
  mirrorSignature(fn, original);
  return fn;
}

/** process.exit of `p`: inside a host it ends that host; outside, `realExit` (Node's, or Jest's own). */
function exitOf(p: NodeJS.Process, realExit: Method): Method {
  return function exit(this: unknown, ...args: unknown[]): never {
    const host = processHost();
    // As called: Node's exit() sets process.exitCode only when given an argument, undefined too.
    if (host === undefined) return Reflect.apply(realExit, this, args) as never;
    const exitCode = exitCodeArgument(args.length === 0 ? p.exitCode : args[0], exit);
    exitHost(host, exitCode);
    throw new HostExit(host, exitCode);
  };
}

/**
 * The code process.exit(code) ends with, checked as Node's process.exitCode setter checks it
 * (an integer, or a string of one; none is 0), without setting the process's own exitCode,
 * which is the test runner's.
 */
function exitCodeArgument(code: unknown, hideFrom: Function): number {
  if (code === undefined || code === null) return 0;
  const value = typeof code === 'string' && code !== '' && Number.isInteger(+code) ? +code : code;
  if (typeof value !== 'number') throw invalidArgType('code', 'of type number', code, hideFrom);
  if (!Number.isInteger(value)) throw outOfRange('code', 'an integer', value, hideFrom);
  return value;
}

const realPid = process.pid;
setHostPidSource((host) => idsOf(host).pid);
const pids = new WeakMap<Host, { pid: number; ppid: number }>();

/**
 * The process ids of a host incarnation, drawn from its seeded stream: plainly they differ on
 * every run, and a program that prints or branches on them (an id generator, a lock file) would
 * too. A restarted host is a new process with a new pid; its parent is a supervisor's.
 */
function idsOf(host: Host): { pid: number; ppid: number } {
  let ids = pids.get(host);
  if (ids === undefined) {
    const stream = host.stream('pid');
    ids = { pid: stream.int(100, 32_768), ppid: stream.int(2, 100) };
    pids.set(host, ids);
  }
  return ids;
}

/** The simulated host whose process ids code now sees, if any. */
function pidHost(): Host | undefined {
  const host = currentHost();
  return host === undefined || host.role === 'system' ? undefined : host;
}

const LISTENER_ADDERS = new Set(['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']);

/**
 * The async context a signal's listeners run in, per process (register mode): Node makes the
 * signal's wrap when its first listener is added, and calls the listeners in that wrap's context.
 */
const signalScopes = new WeakMap<object, Map<string, AsyncResource | undefined>>();

function noteSignalListener(proc: NodeJS.Process, event: unknown): void {
  if (typeof event !== 'string' || !Object.prototype.hasOwnProperty.call(os.constants.signals, event)) return;
  const host = currentHost();
  if (host === undefined || host.world.mode !== 'register' || proc.listenerCount(event) > 0) return;
  let scopes = signalScopes.get(proc);
  if (scopes === undefined) signalScopes.set(proc, (scopes = new Map()));
  scopes.set(event, captureContext('SIGNALWRAP'));
}

/** Every name of signal number `signum`, in os.constants.signals order (SIGABRT and SIGIOT are 6). */
function signalNames(signum: number): string[] {
  const known = os.constants.signals as Record<string, number>;
  return Object.keys(known).filter((name) => known[name] === signum);
}

/**
 * The names of signal `signum` that `emitter` (a process, or a library host's own emitter) has
 * listeners for. None for SIGKILL and SIGSTOP, which no listener can catch.
 */
function listenedNames(emitter: { listenerCount(event: string): number }, signum: number): string[] {
  const { SIGKILL, SIGSTOP } = os.constants.signals;
  if (signum === SIGKILL || signum === SIGSTOP) return [];
  return signalNames(signum).filter((name) => emitter.listenerCount(name) > 0);
}

/**
 * The number process.kill(pid, signal) sends, as Node's kill reads its arguments; undefined when
 * Node's kill throws for them (a pid that is not an integer, an unknown name) or kill(2) fails
 * (a number that is no signal: EINVAL). 0 only tests that the process exists.
 */
function signalNumber(pid: unknown, signal: unknown): number | undefined {
  if (pid != ((pid as number) | 0)) return undefined;
  if (signal === ((signal as number) | 0)) return (signal as number) >= 0 && (signal as number) <= 64 ? (signal as number) : undefined;
  const name = (signal || 'SIGTERM') as string;
  const known = os.constants.signals as Record<string, number>;
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(known, name) ? known[name] : undefined;
}

/**
 * process.kill(process.pid, signal) in register mode, where the host's process is the real one:
 * a signal with listeners arrives as an event of the host now. Sent for real, it would reach
 * Node only when its loop next polls, which a simulation that runs on in one check phase may
 * never let happen before it ends (the listener then never ran). Without listeners the real
 * signal does what Node's default does. One caught, whose listeners are gone by the time it
 * arrives, is dropped, as Node drops it once the signal's wrap is closed.
 */
function signalOwnProcess(proc: NodeJS.Process, host: Host, signum: number): boolean {
  const names = listenedNames(proc, signum);
  if (names.length === 0) return false;
  // One event per name: Node has a signal wrap per name, and runs each wrap's callback (its ticks
  // and microtasks after it) in its own context. Unref'd, as Node's signal wraps are: with
  // nothing else alive the process exits before its loop polls again, and the listener never
  // runs (20, 22 and 24). Read by a poll phase (queueSignal): from an I/O callback (or Node 20's
  // ES module entry, which runs as one), the next turn's, after this turn's immediates.
  for (const name of names) {
    const deliver = (): void => {
      if (proc.listenerCount(name) > 0) (proc.emit as (event: string, ...args: unknown[]) => boolean).call(proc, name, name, signum);
    };
    queueSignal(host, deliver, signalScopes.get(proc)?.get(name));
  }
  return true;
}

/** A pid no process has (above Linux's largest pid_max): kill(2) answers ESRCH. */
const NO_SUCH_PID = 0x7fffffff;

/**
 * process.kill of a realm: kill(process.pid, signal) inside a host signals that host. Arguments
 * Node rejects reach Node's own kill, which throws its error (ERR_INVALID_ARG_TYPE,
 * ERR_UNKNOWN_SIGNAL, or EINVAL from kill(2)) without sending anything. Node takes a pid as a
 * number or a string of one ("1234").
 */
function killOf(realKill: Method, proc: NodeJS.Process): Method {
  return function kill(this: unknown, pid: number, signal: string | number = 'SIGTERM'): true {
    const current = pidHost();
    const integral = pid == ((pid as number) | 0);
    const own = current !== undefined && integral && Number(pid) === idsOf(current).pid;
    if (!own && current !== undefined && integral) {
      // One of the host's children (shims/process/child-processes.ts), or its process group
      // (-pid, a detached child's): never a real process.
      const signum = signalNumber(pid, signal);
      const answer = signum === undefined ? undefined : killChild(current, Math.abs(Number(pid)), signum);
      if (answer === 0) return true;
      if (answer !== undefined) return Reflect.apply(realKill, this, [NO_SUCH_PID, signal]) as true;
    }
    if (!own) {
      // A library host is a machine of its own: no other pid names a process on it, and a real
      // process that happens to have the number (or a process group, pid 0 or below) must never
      // get the signal. Node's kill still checks the arguments first.
      if (current !== undefined && current.world.mode === 'library' && integral) return Reflect.apply(realKill, this, [NO_SUCH_PID, signal]) as true;
      return Reflect.apply(realKill, this, [pid, signal]) as true;
    }
    const signum = signalNumber(pid, signal);
    // Invalid: Node's kill throws for the real process's pid as it would for the host's.
    if (signum === undefined) return Reflect.apply(realKill, this, [realPid, signal]) as true;
    // Only asks whether the process exists: it does.
    if (signum === 0) return true;
    if (current.world.mode === 'register') {
      if (signalOwnProcess(proc, current, signum)) return true;
      return Reflect.apply(realKill, this, [realPid, signal]) as true;
    }
    const host = processHost();
    if (host === undefined) return Reflect.apply(realKill, this, [realPid, signal]) as true;
    // To a listener a signal arrives asynchronously, as an unref'd signal wrap's callback (a
    // process with nothing else alive exits first), dropped if the listeners are gone by then,
    // and read by a poll phase as in register mode (signalOwnProcess).
    const emitter = emitters.get(host);
    const caught = emitter !== undefined && listenedNames(emitter, signum).length > 0;
    if (caught) {
      queueSignal(host, () => signalHost(host, signum, true), undefined);
      return true;
    }
    // Without one, the kernel's default action: a signal that ends the process does so before
    // kill(2) returns to it (nothing after the call runs, not even its ticks: 20, 22 and 24).
    if (defaultAction(signum) === 'end') {
      signalHost(host, signum);
      throw new HostExit(host, 128 + signum);
    }
    host.world.schedule(host, 0, 'io', () => signalHost(host, signum), undefined, true);
    return true;
  };
}

/** Node's, also where a test's fake timers replaced the global before dst-runtime loaded. */
const realQueueMicrotask = originals.queueMicrotask;

/**
 * queueMicrotask inside a library-mode host: the callback's exception crashes that host. Node
 * catches it in runMicrotask and calls triggerUncaughtException, but on Node 20 and 22 the
 * async context is gone by the time 'uncaughtException' is emitted (executionAsyncId() is 0,
 * every AsyncLocalStorage store undefined; 24 keeps it), so the thrower's host could not be
 * told from the emit. Catching here, as an event's own exception is caught, is what Node
 * does a frame later. Register mode keeps Node's own machinery.
 */
function queueMicrotask(callback: () => void): void {
  const host = processHost();
  if (host === undefined || typeof callback !== 'function') return realQueueMicrotask(callback);
  realQueueMicrotask(() => {
    try {
      callback();
    } catch (error) {
      // Node runs the callback inside runInAsyncScope, whose after hooks run before the error
      // reaches the uncaught path: node:domain's leaves the domain it was queued in first.
      leaveScopeDomain();
      host.world.hosts.failed(host, error, 'crash');
    }
  });
}

const realHostname = os.hostname;
const realNetworkInterfaces = os.networkInterfaces;

function hostname(): string {
  const host = currentHost();
  return host === undefined ? realHostname() : host.name;
}

function networkInterfaces(): NodeJS.Dict<os.NetworkInterfaceInfo[]> {
  const host = currentHost();
  if (host === undefined) return realNetworkInterfaces();
  const { ipv4, ipv6 } = host.world.network.addressesOf(host);
  const mac = `02:00:00:00:${((host.index + 1) >> 8).toString(16).padStart(2, '0')}:${((host.index + 1) & 255).toString(16).padStart(2, '0')}`;
  return {
    lo: [
      { address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' },
      { address: '::1', netmask: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', family: 'IPv6', mac: '00:00:00:00:00:00', internal: true, cidr: '::1/128', scopeid: 0 },
    ],
    eth0: [
      { address: ipv4, netmask: '255.0.0.0', family: 'IPv4', mac, internal: false, cidr: `${ipv4}/8` },
      { address: ipv6, netmask: 'ff00::', family: 'IPv6', mac, internal: false, cidr: `${ipv6}/8`, scopeid: 0 },
    ],
  };
}

/**
 * A forked process's IPC channel (a dst explore worker's, mocha --parallel's) reads as absent
 * inside a host, as in a process started without one; outside hosts it is Node's own.
 */
function hideChannelFromHosts(patches: PatchSet, proc: NodeJS.Process): void {
  for (const key of IPC_PROPERTIES) {
    const descriptor = Object.getOwnPropertyDescriptor(proc, key);
    if (descriptor === undefined || !descriptor.configurable) continue;
    let value = descriptor.value;
    const read = descriptor.get === undefined ? () => value : () => descriptor.get!.call(proc);
    const write = descriptor.get === undefined
      ? (next: unknown) => {
          value = next;
        }
      : (next: unknown) => descriptor.set?.call(proc, next);
    const get = function (): unknown {
      return processHost() === undefined || readByNodeChannel(get) ? read() : undefined;
    };
    patches.defineGetter(proc, key, get, descriptor.enumerable ?? false, write);
  }
  // Node's channel code sends through process._send: a send while a host's code runs is the
  // test runner's, working for that host (real-loads.ts).
  const realSend = (proc as unknown as Record<string, Method>)._send;
  if (typeof realSend === 'function') {
    const send = function _send(this: unknown, ...args: unknown[]): unknown {
      const host = processHost();
      if (host !== undefined) ipcSentForHost(host.world as World, proc, args[0]);
      return Reflect.apply(realSend, this, args);
    };
    patches.replace(proc as unknown as Record<string, Method>, '_send', send);
  }
}

/**
 * Whether Node's own channel code reads the property (`process.send` reads `this.connected`):
 * a test runner's worker that took `process.send` before the simulation and sends inside a host's
 * call (Vitest's forks pool fetches a module the host imports over it) must find its channel open.
 */
function readByNodeChannel(getter: Function): boolean {
  const sites = callSites(getter, 1);
  return sites?.[0]?.getFileName() === 'node:internal/child_process';
}

export const processHostShim: Shim = {
  name: 'process-host',
  install(patches: PatchSet) {
    patches.replace(os, 'hostname', hostname);
    patches.replace(os, 'networkInterfaces', networkInterfaces as typeof os.networkInterfaces);
  },
  realm(patches: PatchSet, realm: Realm) {
    patches.replace(realm.global, 'queueMicrotask', queueMicrotask);
    if (realm.process === undefined) return;
    const proc = realm.process;
    // process.nextTick stays Node's own (the driver drains its queue between events), but a
    // test's fake timers may have put a fake on this process (Node's, or a Jest context's copy),
    // whose callbacks would wait for the fake clock: host code, and Node's own code that reads
    // process.nextTick at each call (streams), get Node's until the run is over.
    if (proc.nextTick !== originals.nextTick) patches.replace(proc, 'nextTick', originals.nextTick);
    const p = proc as unknown as Record<string, Method>;
    // Node's on and addListener are one function, and off and removeListener: so are the wrappers.
    const wrappers = new Map<Method, Method>();
    const wrap = (name: string, perHost: (emitter: EventEmitter, host: Host, args: any[]) => unknown, returnsProcess = true) => {
      const original = p[name]!;
      let wrapper = wrappers.get(original);
      if (wrapper === undefined) {
        wrapper = hostAware(proc, name, original, (emitter, host, args) => {
          const result = perHost(emitter, host, args);
          return returnsProcess ? proc : result;
        });
        wrappers.set(original, wrapper);
      }
      patches.replace(p, name, wrapper);
    };
    wrap('on', (e, _h, [event, listener]) => e.on(event, listener));
    wrap('addListener', (e, _h, [event, listener]) => e.addListener(event, listener));
    wrap('once', (e, _h, [event, listener]) => e.once(event, listener));
    wrap('prependListener', (e, _h, [event, listener]) => e.prependListener(event, listener));
    wrap('prependOnceListener', (e, _h, [event, listener]) => e.prependOnceListener(event, listener));
    wrap('off', (e, _h, [event, listener]) => e.off(event, listener));
    wrap('removeListener', (e, _h, [event, listener]) => e.removeListener(event, listener));
    wrap('removeAllListeners', (e, _h, [event]) => e.removeAllListeners(event));
    wrap('listeners', (e, _h, [event]) => e.listeners(event), false);
    wrap('rawListeners', (e, _h, [event]) => e.rawListeners(event), false);
    wrap('listenerCount', (e, _h, [event]) => e.listenerCount(event), false);
    // process.emit is NOT redirected (Node's internals emit these events themselves); it
    // only marks that such an emit is in progress.
    const realEmit = p.emit!;
    patches.replace(p, 'emit', function emit(this: unknown, event: string | symbol, ...args: unknown[]) {
      if (!HOST_EVENTS.has(event)) return Reflect.apply(realEmit, this, [event, ...args]);
      emitting++;
      try {
        return Reflect.apply(realEmit, this, [event, ...args]);
      } finally {
        emitting--;
      }
    } as Method);
    patches.replace(p, 'exit', exitOf(proc, p.exit!));
    if (hasIpcChannel(proc)) hideChannelFromHosts(patches, proc);
    patches.replace(p, 'kill', killOf(p.kill!, p as unknown as NodeJS.Process));
    const realPpid = Object.getOwnPropertyDescriptor(proc, 'ppid');
    let ppidOutside: unknown = realPpid?.get !== undefined ? realPpid.get.call(proc) : realPpid?.value;
    const pidOutside = proc.pid;
    patches.defineGetter(proc, 'pid', () => {
      const host = pidHost();
      return host === undefined ? pidOutside : idsOf(host).pid;
    });
    patches.defineGetter(proc, 'ppid', () => {
      const host = pidHost();
      return host === undefined ? ppidOutside : idsOf(host).ppid;
    }, true, (value) => {
      if (pidHost() === undefined) ppidOutside = value;
    });
  },
};

setHostProcessHooks({ handleUncaught, signal: signalHost, exitCode: hostExitCode, isExit: (e) => e instanceof HostExit });

export type { World };
