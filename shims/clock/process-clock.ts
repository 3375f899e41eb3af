/**
 * process.hrtime(), process.hrtime.bigint() and process.uptime() on the host's monotonic clock,
 * which counts from the host's boot (a restarted host starts again from zero uptime).
 * Argument validation follows Node's lib/internal/process/per_thread.js.
 *
 * os.uptime() is the machine's uptime: on Linux libuv reads /proc/uptime (seconds, two
 * decimals), which moves with the monotonic clock behind hrtime. Inside a host it is the host's
 * hrtime in seconds, cut to hundredths, so the two agree as they do plainly.
 */
import os from 'node:os';
import { originals } from '../../runtime/originals.js';
import { currentHost } from '../context.js';
import { invalidArgType, outOfRange } from '../node-errors.js';
import { mirrorSignature, type PatchSet } from '../registry.js';
import type { Realm, Shim } from '../shim.js';

const realUptime = process.uptime;
const NS_PER_SEC = 1e9;

function hrtime(time?: unknown): [number, number] {
  const host = currentHost();
  if (host === undefined) return originals.hrtime(time as [number, number]);
  const nowNs = host.clock.hrtimeNs(host.readNowNs());
  const sec = Math.floor(nowNs / NS_PER_SEC);
  const nsec = nowNs - sec * NS_PER_SEC;
  if (time !== undefined) {
    if (!Array.isArray(time)) throw invalidArgType('time', 'an instance of Array', time, hrtime);
    if (time.length !== 2) throw outOfRange('time', '2', time.length, hrtime);
    const prevSec = time[0] as number;
    const prevNsec = time[1] as number;
    let s = sec - prevSec;
    let ns = nsec - prevNsec;
    if (ns < 0) {
      s -= 1;
      ns += NS_PER_SEC;
    }
    return [s, ns];
  }
  return [sec, nsec];
}

function hrtimeBigint(): bigint {
  const host = currentHost();
  if (host === undefined) return originals.hrtimeBigint();
  return BigInt(host.clock.hrtimeNs(host.readNowNs()));
}
mirrorSignature(hrtimeBigint, originals.hrtimeBigint); // Node's own is hrtimeBigInt
hrtime.bigint = hrtimeBigint;

/** Method shorthand: like the built-in, not a constructor. */
const { uptime } = {
  uptime(): number {
    const host = currentHost();
    if (host === undefined) return realUptime();
    return host.clock.uptimeS(host.readNowNs());
  },
};

const realOsUptime = os.uptime;

/**
 * Shaped like Node's (hideStackFrames' `wrappedFn`, with `withoutStackTrace` and the legacy
 * `[Symbol.toPrimitive]` that lets `${os.uptime}` print the uptime).
 */
function wrappedFn(): number {
  const host = currentHost();
  if (host === undefined) return realOsUptime();
  return Math.floor(host.clock.hrtimeNs(host.readNowNs()) / 1e7) / 100;
}
const simOsUptime = wrappedFn as typeof os.uptime & { withoutStackTrace?: unknown; [Symbol.toPrimitive]?: unknown };
simOsUptime.withoutStackTrace = wrappedFn;
simOsUptime[Symbol.toPrimitive] = () => wrappedFn();

export const processClockShim: Shim = {
  name: 'process-clock',
  install(patches: PatchSet) {
    patches.replace(os, 'uptime', simOsUptime);
  },
  realm(patches: PatchSet, realm: Realm) {
    if (realm.process === undefined) return;
    patches.replace(realm.process, 'hrtime', hrtime as typeof process.hrtime);
    patches.replace(realm.process, 'uptime', uptime);
  },
};
