/**
 * process.getActiveResourcesInfo() as the program would see it in plain Node: its simulated
 * timers and immediates are listed ('Timeout' and 'Immediate' once per ref'd one, after the real
 * requests and handles, as Node lists them), the runtime's own original immediates are not. In
 * register mode the real requests and handles (stdio pipes, a real file read) are the program's
 * too; inside a library-mode host, the process is the host's alone, so only its simulated timers
 * and immediates are listed. Simulated sockets are listed as Node lists their handles
 * ('TCPSocketWrap', 'TCPServerWrap', 'UDPWrap', 'PipeWrap' while open, or closing, and ref'd), after the real
 * handles: the native handles behind them stay open for the simulation's sake, so Node's own count
 * of them is not the program's.
 */
import { ownImmediates } from '../../runtime/driver/own-immediates.js';
import { currentHost } from '../context.js';
import { listedHandles, listedRequests, realResourcesUnhidden } from '../net/native-handles.js';
import { simulatedPipesListed } from '../net/net-binding.js';
import { realActiveResourcesInfo } from './real-resources.js';
import type { PatchSet } from '../registry.js';
import type { Realm, Shim } from '../shim.js';
import { refedTimerCounts } from '../timers/timers.js';

/** Handle kinds that only simulated sockets make inside the simulation (Node's count of them is replaced). */
const SIMULATED_HANDLES = new Set(['TCPSocketWrap', 'TCPServerWrap', 'UDPWrap']);

function getActiveResourcesInfo(this: unknown): string[] {
  const host = currentHost();
  // Node's own list, with the requests our shims answered kept alive while Node walks them.
  if (host === undefined) return realActiveResourcesInfo();
  const out: string[] = [];
  let realTimeouts = 0;
  let realImmediates = 0;
  const world = host.world;
  const register = world.mode === 'register';
  const realHandles: string[] = [];
  if (register) {
    // Requests the simulation answers or delivers itself are listed below, as Node would.
    const real = realResourcesUnhidden();
    for (const kind of real.requests) out.push(kind);
    for (const kind of real.rest) {
      if (kind === 'Timeout') realTimeouts++;
      else if (kind === 'Immediate') realImmediates++;
      else if (!SIMULATED_HANDLES.has(kind)) realHandles.push(kind);
    }
    // Node's 'PipeWrap's are real pipes (stdio) and the simulated unix sockets' native handles.
    for (let simulated = simulatedPipesListed(), i = realHandles.length - 1; simulated > 0 && i >= 0; i--) {
      if (realHandles[i] !== 'PipeWrap') continue;
      realHandles.splice(i, 1);
      simulated--;
    }
    // The runtime's own original immediates are not the program's.
    realImmediates = Math.max(0, realImmediates - world.driver.queuedImmediates - ownImmediates.size);
  }
  // Within each section the real ones go first: the only order here that is not Node's.
  const only = register ? undefined : host;
  for (const name of listedRequests(world, only)) out.push(name);
  for (const name of realHandles) out.push(name);
  for (const name of listedHandles(world, only)) out.push(name);
  const { timeouts, immediates } = refedTimerCounts(host);
  for (let i = realTimeouts + timeouts; i > 0; i--) out.push('Timeout');
  for (let i = realImmediates + immediates; i > 0; i--) out.push('Immediate');
  return out;
}

export const activeResourcesShim: Shim = {
  name: 'active-resources',
  install() {},
  realm(patches: PatchSet, realm: Realm) {
    if (realm.process !== undefined) patches.replace(realm.process, 'getActiveResourcesInfo', getActiveResourcesInfo);
  },
};
