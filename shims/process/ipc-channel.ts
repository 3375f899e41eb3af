/**
 * The real process's IPC channel, which simulated code must not see.
 *
 * A process started by `child_process.fork()` has an IPC channel to its parent: `process.send`,
 * `process.channel`, `process.connected`, `process.disconnect`, and 'message'/'disconnect'
 * events. dst-runtime itself runs simulations in such processes: `dst explore`'s workers (one
 * forked process runs many seeds), mocha --parallel's workers. A simulated program started
 * plainly (`node app.js`, `dst run`) has no channel, so a program that looks for one
 * (`if (process.send) process.send('ready')`, a cluster- or pm2-aware server, a listener for
 * 'message') behaved differently in a worker than in its own replay, or took the explorer's
 * messages for its own. Inside a simulation the channel is not there:
 *
 * - library mode (a `Sim`'s hosts): the properties read as `undefined` while a host's code runs,
 *   and a host's 'message'/'disconnect' listeners are that host's own (process-host.ts), never
 *   called: a simulated host has no parent process;
 * - a seed of a plain program in an explore worker (program-seeds.ts): the properties, the
 *   worker's listeners and Node's own hooks that tie the channel's ref count to 'message'
 *   listeners are taken off `process` for the seed and put back after it. The explorer sends a
 *   worker nothing while a seed runs (cli/dst.mjs, AppWorker), so no message is missed.
 *
 * `process._send` and `process._disconnect` stay: Node's channel code calls them on `process`.
 */

/** The public properties a forked process has for its channel (`_channel` is DEP0129's alias). */
export const IPC_PROPERTIES = ['channel', '_channel', 'send', 'connected', 'disconnect'] as const;

/** The events a channel emits on `process`; 'internalMessage' carries Node's own (NODE_*) messages. */
export const IPC_EVENTS = ['message', 'disconnect', 'internalMessage'] as const;

/**
 * Node's listeners that ref the channel while the process has a 'message' or 'disconnect'
 * listener (lib/child_process.js `_forkChild`; the same names on Node 20, 22 and 24).
 */
const CHANNEL_REF_HOOKS: ReadonlyArray<readonly ['newListener' | 'removeListener', string]> = [
  ['newListener', 'onNewListener'],
  ['removeListener', 'onRemoveListener'],
];

/** Whether `proc` was started with an IPC channel (it has one now, or had one). */
export function hasIpcChannel(proc: NodeJS.Process): boolean {
  return Object.getOwnPropertyDescriptor(proc, 'send') !== undefined;
}

type Listener = (...args: unknown[]) => void;

/**
 * Takes the IPC channel off `proc` so that code running now sees a process started without one;
 * returns the function that puts it back as it was. Listeners added to the IPC events meanwhile
 * are the caller's to remove (program-seeds.ts removes every listener a seed added).
 */
export function hideIpcChannel(proc: NodeJS.Process): () => void {
  if (!hasIpcChannel(proc)) return () => {};
  const p = proc as unknown as Record<string, unknown>;
  // Node's ref-count hooks first: taking the worker's own listeners off must not move the count.
  const hooks: Array<[string, Listener]> = [];
  for (const [event, name] of CHANNEL_REF_HOOKS) {
    for (const listener of proc.rawListeners(event) as Listener[]) {
      if (listener.name !== name) continue;
      hooks.push([event, listener]);
      proc.removeListener(event, listener);
    }
  }
  const listeners: Array<[string, Listener[]]> = [];
  for (const event of IPC_EVENTS) {
    listeners.push([event, proc.rawListeners(event) as Listener[]]);
    proc.removeAllListeners(event);
  }
  const properties: Array<[string, PropertyDescriptor]> = [];
  for (const key of IPC_PROPERTIES) {
    const descriptor = Object.getOwnPropertyDescriptor(proc, key);
    if (descriptor === undefined || !descriptor.configurable) continue;
    properties.push([key, descriptor]);
    delete p[key];
  }
  return function showIpcChannel(): void {
    for (const [key, descriptor] of properties) {
      // Node's own code may have set it meanwhile (`connected = false` when the parent left).
      if (Object.getOwnPropertyDescriptor(proc, key) === undefined) Object.defineProperty(proc, key, descriptor);
    }
    for (const [event, list] of listeners) for (const listener of list) proc.on(event, listener);
    for (const [event, listener] of hooks) proc.on(event, listener);
  };
}
