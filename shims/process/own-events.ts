/**
 * The runtime's own handling of process events in a process it runs a program in (register
 * mode's idle check, crash report and summary; an explorer worker's end of a seed): called from
 * process.emit, not added to the process as listeners. So the program sees only its own
 * listeners, as under plain Node: `process.listenerCount('uncaughtException')` is 0 until it adds
 * one (a program that adds its handler only when there is none added none in a worker, and its
 * throw crashed there while it was handled alone), `eventNames()` lists only its events, and its
 * 11th 'beforeExit' listener, not its 10th, warns of a possible leak.
 *
 * Node emits these events through the process's `emit` property (the uncaught-exception handler
 * and C++'s beforeExit and exit all look it up as they emit), so a wrapper there sees each.
 */
import type { AsyncResource } from 'node:async_hooks';
import { originals } from '../../runtime/originals.js';

const nodeProcess: NodeJS.Process = originals.process;

export interface ProcessEventHook {
  /**
   * Runs before the program's listeners, with the event's arguments. `true`: the event is the
   * runtime's alone, the program's listeners are not called, and emit returns true.
   */
  before?(...args: unknown[]): boolean | void;
  /** Runs after the program's listeners, also when one threw. */
  after?(...args: unknown[]): void;
}

const hooks = new Map<string | symbol, ProcessEventHook[]>();
let installed = false;
/**
 * The async scope an uncaught error was thrown in (World.asyncScopeOfThrow), when the runtime
 * left it as the error went through: the program's listeners run in it.
 */
let scopeOfThrow: (() => AsyncResource | undefined) | undefined;

/** Where 'uncaughtExceptionMonitor' and 'uncaughtException' find the scope their error was thrown in. */
export function setScopeOfThrow(find: () => AsyncResource | undefined): void {
  install();
  scopeOfThrow = find;
}

const THROWN = new Set<string | symbol>(['uncaughtExceptionMonitor', 'uncaughtException']);

/** Handles `event` of the process before and after the program's listeners (see above). */
export function hookProcessEvent(event: string | symbol, hook: ProcessEventHook): void {
  install();
  let list = hooks.get(event);
  if (list === undefined) hooks.set(event, (list = []));
  list.push(hook);
}

function install(): void {
  if (!installed) {
    installed = true;
    const realEmit = nodeProcess.emit;
    Object.defineProperty(nodeProcess, 'emit', {
      value: function emit(this: unknown, event: string | symbol, ...args: unknown[]): boolean {
        if (this !== nodeProcess) return Reflect.apply(realEmit, this, [event, ...args]) as boolean;
        const own = hooks.get(event);
        // Node emits an uncaught error still in the async context of the callback that threw it:
        // a listener sees that callback's AsyncLocalStorage stores.
        const scope = scopeOfThrow !== undefined && THROWN.has(event) ? scopeOfThrow() : undefined;
        if (own === undefined && scope === undefined) return Reflect.apply(realEmit, this, [event, ...args]) as boolean;
        if (own !== undefined) for (const hook of own) if (hook.before?.(...args) === true) return true;
        try {
          if (scope !== undefined) return scope.runInAsyncScope(realEmit as (...a: unknown[]) => boolean, this, event, ...args);
          return Reflect.apply(realEmit, this, [event, ...args]) as boolean;
        } finally {
          if (own !== undefined) for (const hook of own) hook.after?.(...args);
        }
      },
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }
}
