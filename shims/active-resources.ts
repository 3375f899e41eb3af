/**
 * process.getActiveResourcesInfo() as the program would see it in plain Node: its simulated
 * timers and immediates are listed ('Timeout' and 'Immediate' once per ref'd one, after the real
 * requests and handles, as Node lists them), the runtime's own original immediates are not. In
 * register mode the real requests and handles (stdio pipes, a real file read) are the program's
 * too; inside a library-mode host, the process is the host's alone, so only its simulated timers
 * and immediates are listed. Simulated sockets are not listed (Node would show TCPSocketWrap /
 * TCPServerWrap for them).
 */
import { ownImmediates } from '../runtime/driver/own-immediates.js';
import { originals } from '../runtime/originals.js';
import { currentHost } from './context.js';
import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';
import { refedTimerCounts } from './timers.js';

const nodeProcess: NodeJS.Process = originals.process;
const realInfo = nodeProcess.getActiveResourcesInfo;

function getActiveResourcesInfo(this: unknown): string[] {
  const host = currentHost();
  if (host === undefined) return Reflect.apply(realInfo, this, []) as string[];
  const out: string[] = [];
  let realTimeouts = 0;
  let realImmediates = 0;
  if (host.world.mode === 'register') {
    for (const kind of Reflect.apply(realInfo, this, []) as string[]) {
      if (kind === 'Timeout') realTimeouts++;
      else if (kind === 'Immediate') realImmediates++;
      else out.push(kind);
    }
    // The runtime's own original immediates are not the program's.
    realImmediates = Math.max(0, realImmediates - host.world.driver.queuedImmediates - ownImmediates.size);
  }
  const { timeouts, immediates } = refedTimerCounts(host);
  for (let i = realTimeouts + timeouts; i > 0; i--) out.push('Timeout');
  for (let i = realImmediates + immediates; i > 0; i--) out.push('Immediate');
  return out;
}

export const activeResourcesShim: Shim = {
  name: 'active-resources',
  install(patches: PatchSet) {
    patches.replace(nodeProcess, 'getActiveResourcesInfo', getActiveResourcesInfo);
  },
};
