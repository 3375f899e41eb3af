/**
 * What Node's own modules take from a patched builtin when they load. Many of Node's modules
 * destructure functions from node:timers at their top level (`const { setImmediate } =
 * require('timers')`: http2, tls, js_stream_socket, _http_common, _http_server, readline's
 * keypress decoder, PerformanceObserver delivery, fs.rm's retries, Node 24's util.debounce and
 * fs.Utf8Stream, ...; node:domain takes async_hooks.createHook). What they hold then depended on
 * when the process first loaded them: loaded before a simulation (by the program's preload, a
 * test file's imports, dst-runtime's own imports), Node's functions; loaded first during one,
 * after the shims were installed, the simulated ones. One seed gave different events by what the
 * process had loaded before (docs/notes/node-facts.md, test/net/builtins-load-order.test.mjs).
 *
 * So while installed, such an export is an accessor that hands Node's own function to a builtin
 * module's top level (the reader's frame is in a `node:` file and was called by Node's
 * BuiltinModule.compileForInternalLoader) and the simulated one to everyone else: program code,
 * `import { setTimeout } from 'node:timers'` (synced by Node's realm code, not a module's top
 * level) and Node's code that reads the export per call. Node's modules then hold Node's
 * functions whatever the load order, as if dst-runtime had loaded them all first, without
 * loading any. What they do with them inside a host is taken care of where it lands: real
 * Timeouts they make are adopted by the simulation (shims/timers/node-timeouts.ts), real
 * immediates waited for (shims/timers/native-immediates.ts, clock/performance.ts).
 *
 * Only reads of the module's property pay: a two-frame stack capture, 3-5 us of CPU per read
 * (Node 20, 22, 24; a data property: under 0.05 us), for code that calls
 * `require('timers').setTimeout(...)` each time. The globals (`setTimeout`, ...) stay plain data
 * properties.
 */
import { mirrorIfStandIn, type PatchSet } from './registry.js';

export type CallSite = { getFileName(): string | null | undefined; getFunctionName(): string | null };

/**
 * The structured stack of the code that called `below` (its frames above `below` left out), at
 * most `limit` frames, whatever the program set as Error.prepareStackTrace or stackTraceLimit.
 */
export function callSites(below: Function, limit: number): CallSite[] | undefined {
  const previousLimit = Error.stackTraceLimit;
  const prepare = Error.prepareStackTrace;
  const holder: { stack?: unknown } = {};
  try {
    Error.stackTraceLimit = limit;
    Error.prepareStackTrace = (_error, sites) => sites;
    Error.captureStackTrace(holder, below);
    return Array.isArray(holder.stack) ? (holder.stack as CallSite[]) : undefined;
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = previousLimit;
  }
}

/** Whether the caller of the accessor (skipping `accessor` itself) is a Node builtin module's top level, loading. */
function readByLoadingBuiltin(accessor: Function): boolean {
  const sites = callSites(accessor, 2);
  if (sites === undefined || sites.length < 2) return false;
  const file = sites[0]!.getFileName();
  return typeof file === 'string' && file.startsWith('node:') && sites[1]!.getFunctionName() === 'compileForInternalLoader';
}

/**
 * Replaces `target[key]` with `simulated` for everyone but a Node builtin module loading, which
 * gets `original`: Node's own, by default the value that was there. A value the program assigns
 * later is what every reader gets, until the patches are restored.
 */
export function patchExportKeepingNodeCaptures(
  patches: PatchSet,
  target: object,
  key: string,
  simulated: unknown,
  original: unknown = (target as Record<string, unknown>)[key],
): void {
  const enumerable = Object.getOwnPropertyDescriptor(target, key)?.enumerable ?? true;
  mirrorIfStandIn(simulated, original);
  let assigned = false;
  let value: unknown;
  const get = function (): unknown {
    if (assigned) return value;
    return readByLoadingBuiltin(get) ? original : simulated;
  };
  patches.defineGetter(target, key, get, enumerable, (next: unknown) => {
    assigned = true;
    value = next;
  });
}
