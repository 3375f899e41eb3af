/**
 * socket.setTimeout() on virtual time. Node implements it (lib/internal/stream_base_commons.js,
 * setStreamTimeout) with setUnrefTimeout from internal/timers — Node's private timer list,
 * which no patch of node:timers reaches. The replacement keeps Node's validation and warning,
 * and stores a simulated unref'd Timeout in the socket's own kTimeout slot, so net.js's
 * activity hook (_unrefTimer -> timer.refresh()) and clearTimeout keep working on it.
 */
import net from 'node:net';
import { currentHost, NODE_MAJOR } from '../context.js';
import { validateFunction } from '../node-errors.js';
import { type PatchSet, privateSymbolFinder } from '../registry.js';
import type { Shim } from '../shim.js';
import { createTimeout, simulatedTimers, timerDuration } from '../timers/timers.js';

const realSetTimeout = net.Socket.prototype.setTimeout;

/**
 * net.js's private kTimeout symbol (net.Socket's, Http2Session's and Http2Stream's constructors
 * all set it), found on the first socket given a timeout, else on a fresh net.Socket.
 */
const timeoutSymbol = privateSymbolFinder('timeout', () => new net.Socket());

/** An Http2Stream's private kSession symbol, once found on one (a socket has none). */
let kSession: symbol | undefined;
let kUpdateTimer: symbol | undefined;

function ownSymbolNamed(object: object, description: string): symbol | undefined {
  return Object.getOwnPropertySymbols(object).find((s) => s.description === description);
}

/** Calls an Http2Session's private kUpdateTimer method (found on its prototype chain), if `session` is one. */
function updateTimerOf(session: unknown): void {
  if (session === null || typeof session !== 'object') return;
  if (kUpdateTimer === undefined) {
    for (let o: object | null = session; o !== null && kUpdateTimer === undefined; o = Object.getPrototypeOf(o)) kUpdateTimer = ownSymbolNamed(o, 'kUpdateTimer');
  }
  const update = kUpdateTimer === undefined ? undefined : (session as Record<symbol, unknown>)[kUpdateTimer];
  if (typeof update === 'function') Reflect.apply(update, session, []);
}

/** socket.setTimeout on virtual time; also Http2Session's and Http2Stream's (shims/http2/http2.ts), which are the same setStreamTimeout on the same kTimeout slot. */
export function setStreamTimeout(this: net.Socket & Record<symbol, unknown>, msecs: number, callback?: () => void): net.Socket {
  const host = currentHost();
  const kTimeout = host === undefined ? undefined : timeoutSymbol(this);
  if (host === undefined || kTimeout === undefined) return Reflect.apply(realSetTimeout, this, arguments);
  if (this.destroyed) return this;
  (this as { timeout?: number }).timeout = msecs;
  const duration = timerDuration(msecs, 'msecs');
  simulatedTimers.clearTimeout(this[kTimeout]);
  this[kTimeout] = null;
  if (duration === 0) {
    if (callback !== undefined) {
      validateFunction(callback, 'callback');
      this.removeListener('timeout', callback);
    }
  } else {
    // Node 20 binds _onTimeout when the timeout is set; 22 and 24 look it up when it fires
    // (onStreamTimeout), so a socket that replaces _onTimeout later gets the new one.
    const socket = this as unknown as { _onTimeout: () => void };
    const onTimeout = NODE_MAJOR >= 22 ? () => socket._onTimeout() : socket._onTimeout.bind(socket);
    this[kTimeout] = createTimeout(host, onTimeout, duration, undefined, false, false);
    // An Http2Stream's timeout set anew counts as activity of its session: Node refreshes the
    // session's timer too (`this[kSession][kUpdateTimer]()`).
    if (kSession === undefined && 'session' in this) kSession = ownSymbolNamed(this, 'kSession');
    if (kSession !== undefined) updateTimerOf(this[kSession]);
    if (callback !== undefined) {
      validateFunction(callback, 'callback');
      this.once('timeout', callback);
    }
  }
  return this;
}

export const netTimeoutsShim: Shim = {
  name: 'net-timeouts',
  install(patches: PatchSet) {
    patches.replace(net.Socket.prototype, 'setTimeout', setStreamTimeout as typeof net.Socket.prototype.setTimeout);
  },
};
