/**
 * The table of shims and the order they are installed in. Order is an invariant (see
 * docs/architecture.md): timers first; the stdio streams are created before anything touches
 * net. (What Node's modules take from node:timers when they load does not depend on it: see
 * builtin-captures.ts.)
 *
 * Each shim lives in the folder of the Node API it stands in for (shims/timers/, shims/net/,
 * shims/crypto/, ...; docs/architecture.md lists them). A new shim goes into its API's folder
 * and into this table. The imports below keep their order: it is the order the modules'
 * top levels run in the bundle.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { UsageError } from '../runtime/errors.js';
import { originals } from '../runtime/originals.js';
import { callSites } from './builtin-captures.js';
import { setInterposer } from '../runtime/interposer.js';
import { watchHostRealTimers } from './strict/tripwire.js';
import { watchRealLoads } from './process/real-loads.js';
import type { World } from '../runtime/world.js';
import { activeResourcesShim } from './process/active-resources.js';
import { builtinLoaded, builtinLoadsWatchable, watchBuiltinLoads } from './builtin-loads.js';
import { asyncContextShim } from './async-hooks/async-context.js';
import { setActiveWorld } from '../runtime/world.js';
import { clockInternalsShim, libuvNowShim, readlineClockShim } from './clock/internals.js';
import { cryptoShim } from './crypto/random.js';
import { cryptoJobsShim } from './crypto/jobs.js';
import { cryptoKeysShim } from './crypto/keys.js';
import { cryptoSignaturesShim } from './crypto/signatures.js';
import { objectUrlsShim } from './crypto/object-urls.js';
import { dateShim } from './clock/date.js';
import { dgramShim } from './net/dgram-binding.js';
import { dnsShim } from './net/dns-binding.js';
import { dnsResolverShim } from './net/dns-resolver.js';
import { childProcessShim } from './process/child-processes.js';
import { childProcessEscapesShim, escapesShim, workerEscapesShim } from './strict/escapes.js';
import { fetchShim } from './net/fetch.js';
import { fsShim } from './fs/fs.js';
import { statWatcherShim } from './fs/stat-watcher.js';
import { zlibShim } from './thread-pool/zlib.js';
import { wasmShim } from './thread-pool/wasm.js';
import { blobShim } from './thread-pool/blob.js';
import { httpShim } from './net/http.js';
import { httpsShim } from './net/https.js';
import { gcShim, machineShim, navigatorShim, v8HeapShim } from './process/machine.js';
import { mathShim } from './math/random.js';
import { functionSourceShim } from './function-source.js';
import { messagingShim } from './worker-threads/messaging.js';
import { moduleHostsShim } from './module/module-hosts.js';
import { processHostShim } from './process/process-host.js';
import { netShim, setNetworkResolver } from './net/net-binding.js';
import { netTimeoutsShim } from './net/net-timeouts.js';
import { performanceShim } from './clock/performance.js';
import { processClockShim } from './clock/process-clock.js';
import { PendingPromises } from './async-hooks/pending-promises.js';
import { realms } from './realms.js';
import { PatchSet } from './registry.js';
import type { Realm, Shim } from './shim.js';
import { timersShim } from './timers/timers.js';
import { timersPromisesShim } from './timers/promises.js';
import { nodeTimeoutsShim } from './timers/node-timeouts.js';
import { tlsShim } from './tls/tls.js';
import { http2Shim } from './http2/http2.js';

/**
 * Installed first. Node's modules that take timer functions from node:timers when they load
 * (net, via the stdio streams, and the rest) get Node's own whenever they load
 * (shims/builtin-captures.ts), so this order no longer decides what they hold.
 */
const EARLY_SHIMS: readonly Shim[] = [asyncContextShim, timersShim, timersPromisesShim];

export const SHIMS: readonly Shim[] = [
  dateShim,
  clockInternalsShim,
  readlineClockShim,
  libuvNowShim,
  performanceShim,
  processClockShim,
  machineShim,
  gcShim,
  v8HeapShim,
  // Installed at the first read of globalThis.navigator (Node 21+).
  navigatorShim,
  // Installed at the first load of node:crypto or of globalThis.crypto (Shim.builtins), as are
  // the jobs, keys and signatures shims below: node:crypto cost 7-10 ms at start on Node 24.
  cryptoShim,
  mathShim,
  functionSourceShim,
  netShim,
  netTimeoutsShim,
  dnsShim,
  dnsResolverShim,
  dgramShim,
  httpShim,
  fetchShim,
  // Installed at the first load of their builtin (Shim.builtins): most programs load none of
  // them, and loading tls, https and http2 at start cost 21-57 ms of CPU (figure 12).
  tlsShim,
  httpsShim,
  http2Shim,
  messagingShim,
  moduleHostsShim,
  fsShim,
  statWatcherShim,
  zlibShim,
  cryptoJobsShim,
  cryptoKeysShim,
  cryptoSignaturesShim,
  objectUrlsShim,
  wasmShim,
  blobShim,
  processHostShim,
  escapesShim,
  childProcessEscapesShim,
  childProcessShim,
  workerEscapesShim,
  activeResourcesShim,
  // Last: the net shim's attempt-timer adoption sees its timers first.
  nodeTimeoutsShim,
];

setNetworkResolver((host) => host.world.network);

let installed: { world: World; patches: PatchSet; whole: boolean } | undefined;

/**
 * process.stdout/stderr/stdin are created lazily from net.Socket (a pipe, a terminal): create
 * them first. A stdin that is a file (or /dev/null) is an fs.ReadStream, left for the program
 * to create: made now, it would queue a tick of its own (Node 22 and 24) that plainly never
 * exists unless the program touches process.stdin, and the program's async hooks would hear of it.
 */
function touchStdio(): void {
  void process.stdout;
  void process.stderr;
  if (!stdinIsFile()) void process.stdin;
}

function stdinIsFile(): boolean {
  try {
    const stats = fs.fstatSync(0);
    if (stats.isFile()) return true;
    // /dev/null (stdio 'ignore', a daemon's stdin): a character device that libuv guesses is a file.
    return stats.isCharacterDevice() && stats.rdev === fs.statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/** Node settings under which the shims cannot work, with what to do instead; undefined: none. */
function unsupportedRuntime(): string | undefined {
  if (Object.isFrozen(Date) || Object.isFrozen(Math)) {
    return (
      'Failed to install dst-runtime: the JavaScript intrinsics are frozen (--frozen-intrinsics), and dst-runtime ' +
      'simulates Date, Math.random, timers and crypto by replacing them in place. Run the simulation without --frozen-intrinsics.'
    );
  }
  return undefined;
}

/**
 * Watches builtin loads (shims/builtin-loads.ts) for the shims that wait in `waiting`, and
 * installs each when the first of its builtins loads, then syncs the ES module facades: a
 * builtin loaded by another builtin (tls by https) has none yet, but the shim's own require of it
 * made one. On before the table's first shim installs: an install may load a builtin another shim
 * waits for (in library mode the fetch shim loads undici, which loads http2, tls and node:crypto,
 * and undici takes node:crypto's randomFillSync as it loads), and that shim must be in first.
 * False when the list cannot be watched (a program froze or replaced it): then every shim is
 * installed at once, as before.
 */
function watchFirstLoads(patches: PatchSet, waiting: Map<string, Shim[]>, install: (shim: Shim) => void): boolean {
  if (!builtinLoadsWatchable()) return false;
  const done = new Set<Shim>();
  watchBuiltinLoads(patches, (id) => {
    const shims = waiting.get(id);
    if (shims === undefined) return;
    waiting.delete(id);
    // Not ready: it is still waiting under its other builtins' ids. All of them are marked done
    // before the first installs: an install may load another of their builtins (node:crypto's
    // shim reads `webcrypto`), and they still go in one after the other in the table's order,
    // not one inside another.
    const now = shims.filter((shim) => !done.has(shim) && shim.ready?.() !== false);
    // Seen again inside one of their installs (crypto's reads `webcrypto`): nothing to do, and
    // no facade sync from a deeper stack.
    if (now.length === 0) return;
    for (const shim of now) done.add(shim);
    for (const shim of now) {
      try {
        install(shim);
      } catch (error) {
        throw new Error(`Failed to install dst-runtime's ${shim.name} shim at node:${id}'s first load: ${(error as Error)?.message ?? String(error)}`, { cause: error });
      }
    }
    // Inside Node's own sync of another builtin's facade (an ES import of node:util reads util's
    // lazy exports, and setTraceSigInt's loads worker_threads): syncing every facade from in there
    // re-enters that one and kills V8 (node-facts.md). Node's sync goes on to finish it; the
    // others are synced once it has.
    if (insideFacadeSync()) nodeQueueMicrotask(syncBuiltinESMExports);
    else syncBuiltinESMExports();
  });
  return true;
}

/** Node's queueMicrotask: the process-host shim replaces the global, and a test's fake timers may have. */
const nodeQueueMicrotask = originals.queueMicrotask;

/** Whether Node is syncing a builtin's ES module facade (BuiltinModule#syncExports is on the stack). */
function insideFacadeSync(): boolean {
  const sites = callSites(insideFacadeSync, 64);
  return sites?.some((site) => site.getFunctionName() === 'syncExports' && site.getFileName() === 'node:internal/bootstrap/realm') ?? false;
}

/**
 * Installs the shims for `world`. `whole`: the world simulates the whole program (register mode,
 * and a worker's program seeds), not a Sim the program built (library mode).
 */
export function installShims(world: World, { whole = false }: { whole?: boolean } = {}): void {
  const refusal = unsupportedRuntime();
  if (refusal !== undefined) throw new UsageError(refusal);
  if (installed !== undefined) {
    // One simulation at a time per process: say which one is in the way, and what to do.
    throw new UsageError(
      installed.whole
        ? `Failed to start a simulation: this program already runs simulated as a whole (node --import dst-runtime/register, or dst run/explore/check, seed ${installed.world.seedText}), and a program that builds its own Sim (library mode) cannot run inside it; run that program with plain node`
        : `Failed to start a simulation: another simulation (seed ${installed.world.seedText}) is running in this process; one runs at a time per process, so await its sim.run() before starting the next`,
    );
  }
  setActiveWorld(world);
  const patches = new PatchSet();
  // Node's realm, and the test runner's vm context host code may have been written in.
  const targets = realms();
  const install = (shim: Shim, where: readonly Realm[]) => {
    shim.install(patches);
    for (const realm of where) shim.realm?.(patches, realm);
  };
  try {
    for (const shim of EARLY_SHIMS) install(shim, targets);
    syncBuiltinESMExports();
    // The stdio streams are created lazily from net.Socket when stdout/stderr are pipes:
    // create them now, after timers (net captures setTimeout when it loads) and before the
    // network shims.
    touchStdio();
    const waiting = new Map<string, Shim[]>();
    const lazy = watchFirstLoads(patches, waiting, (shim) => install(shim, targets));
    for (const shim of SHIMS) {
      const now = shim.builtins === undefined || !lazy || (shim.builtins.some(builtinLoaded) && shim.ready?.() !== false);
      if (now) install(shim, targets);
      else for (const id of shim.builtins) waiting.set(id, [...(waiting.get(id) ?? []), shim]);
    }
    if (world.mode === 'library' && world.options.strict === true) watchHostRealTimers(world, patches);
    if (world.mode === 'library') watchRealLoads(world);
    if (world.options.pending === true) {
      const tracker = new PendingPromises(world);
      tracker.start();
      patches.onRestore(() => tracker.stop());
      world.pendingPromises = () => tracker.report();
    }
  } catch (error) {
    patches.restore();
    setActiveWorld(undefined);
    throw error;
  }
  // ESM named imports of builtins are live bindings of these synced exports.
  syncBuiltinESMExports();
  installed = { world, patches, whole };
}

export function uninstallShims(world: World): void {
  if (installed === undefined || installed.world !== world) return;
  installed.patches.restore();
  syncBuiltinESMExports();
  installed = undefined;
  setActiveWorld(undefined);
}

export function shimsInstalled(): boolean {
  return installed !== undefined;
}

setInterposer({ install: installShims, uninstall: uninstallShims });
