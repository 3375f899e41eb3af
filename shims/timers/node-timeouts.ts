/**
 * Real Timeouts that Node's own modules make inside a host, taken into the simulation. Node's
 * modules keep the setTimeout/setInterval they took from node:timers when they loaded, which is
 * Node's own whatever the load order (shims/builtin-captures.ts): readline's keypress decoder
 * (a lone ESC becomes 'escape' after escapeCodeTimeout), fs.rm's retries (retryDelay), Node 24's
 * util.debounce / util.throttle and fs.Utf8Stream's periodicFlush. Left alone they ran on real
 * time: strict mode stopped the run ("a real Timeout escaped"), and without it they fired after
 * real milliseconds, whenever that fell between simulated events.
 *
 * Such a Timeout is recognised in its constructor (shims/strict/real-timeouts.ts) by its stack:
 * made by node:timers' setTimeout or setInterval, called from a `node:` module, inside a host.
 * It is claimed at birth (the tripwires leave it alone) and adopted in a nextTick, once the
 * caller has set its callback and called unref() if it does: taken out of Node's lists with
 * Node's own clearTimeout and run by a simulated timer with the same delay, repeat, ref state,
 * callback, `this` and arguments. The object the module holds keeps working: clearTimeout /
 * clearInterval / close() (they null `_onTimeout`), ref(), unref(), hasRef() and refresh()
 * reach the simulated timer. Real Timeouts made by program code stay what they were (strict
 * mode names them). net's happy-eyeballs attempt timer is adopted before this sees it
 * (shims/net/net-attempt-timer.ts).
 */
import { originals } from '../../runtime/originals.js';
import { callSites } from '../builtin-captures.js';
import { currentHost, type Host } from '../context.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';
import { adopted, claimRealTimeout, onRealTimeoutCreated, type RealTimer } from '../strict/real-timeouts.js';
import { createTimeout, simulatedTimers } from './timers.js';

const nodeProcess = originals.process;

/** Frames between the listener and the caller of setTimeout: the accessor's setter, the Timeout constructor, setTimeout. */
const FRAMES_MAX = 6;

/** Whether the Timeout being constructed under `listener` was made by node:timers' setTimeout/setInterval called from Node's own code. */
function madeByNodeModule(listener: Function): boolean {
  const sites = callSites(listener, FRAMES_MAX);
  if (sites === undefined) return false;
  for (let i = 0; i + 1 < sites.length; i++) {
    const name = sites[i]!.getFunctionName();
    if ((name === 'setTimeout' || name === 'setInterval') && sites[i]!.getFileName() === 'node:timers') {
      const caller = sites[i + 1]!.getFileName();
      return typeof caller === 'string' && caller.startsWith('node:');
    }
  }
  return false;
}

interface SimulatedTimer {
  ref(): unknown;
  unref(): unknown;
  hasRef(): boolean;
  refresh(): unknown;
}

/**
 * Takes the real Timeout `timer`, made inside `host`, into the simulation: out of Node's lists,
 * run by a simulated timer with its delay, repeat, ref state, callback, `this` and arguments;
 * what Node's code later does to the object (clear, close, ref, unref, refresh) reaches the
 * simulated timer. Also used for net's happy-eyeballs attempt timer (net/net-attempt-timer.ts).
 */
export function adoptRealTimeout(timer: RealTimer, host: Host): void {
  adopted(timer);
  if (timer._destroyed || typeof timer._onTimeout !== 'function' || host.state !== 'running') return;
  let callback = timer._onTimeout as Function;
  const args = timer._timerArgs ?? [];
  const after = timer._idleTimeout;
  const repeat = timer._repeat !== null;
  const refed = timer.hasRef();
  // Node's clearTimeout: out of its lists, its ref given back.
  originals.clearTimeout(timer as unknown as NodeJS.Timeout);
  let live = true;
  const simulated = createTimeout(host, () => Reflect.apply(callback, timer, args), after, undefined, repeat, refed) as unknown as SimulatedTimer;
  const clear = (): void => {
    live = false;
    simulatedTimers.clearTimeout(simulated);
  };
  // Node's clearTimeout / clearInterval / close() null _onTimeout (then find the timer destroyed).
  Object.defineProperty(timer, '_onTimeout', {
    configurable: true,
    enumerable: true,
    get: () => (live ? callback : null),
    set: (value: unknown) => {
      if (typeof value === 'function') callback = value;
      else clear();
    },
  });
  const methods: Record<string, (this: unknown) => unknown> = {
    ref() {
      simulated.ref();
      return this;
    },
    unref() {
      simulated.unref();
      return this;
    },
    hasRef: () => live && simulated.hasRef(),
    refresh() {
      if (live) simulated.refresh();
      return this;
    },
    close() {
      clear();
      return this;
    },
  };
  for (const [name, fn] of Object.entries(methods)) Object.defineProperty(timer, name, { value: fn, configurable: true, writable: true, enumerable: false });
}

export const nodeTimeoutsShim: Shim = {
  name: 'node-timeouts',
  install(patches: PatchSet) {
    const listener = (timer: RealTimer): void => {
      const host = currentHost();
      if (host === undefined || !madeByNodeModule(listener)) return;
      claimRealTimeout(timer);
      nodeProcess.nextTick(() => adoptRealTimeout(timer, host));
    };
    const stop = onRealTimeoutCreated(listener);
    if (stop !== undefined) patches.onRestore(stop);
  },
};
