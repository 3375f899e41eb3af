/**
 * node:https fix-ups: an https.Server's headers and request timeouts and its connections list,
 * as an http.Server's (shims/net/http.ts); https.globalAgent, per host incarnation, as http.globalAgent is
 * (shims/net/http.ts). It pools keep-alive TLS sockets (and TLS sessions) by "host:port:...", so
 * one shared agent would hand a host another machine's connection, or a connection of an
 * earlier simulation in the same process, whose handle is gone (EBADF).
 *
 * Installed when node:https first loads (Shim.builtins): loading https (and the tls it loads)
 * at start-up cost every program 20-60 ms of CPU (figure 12 in docs/benchmarks.md).
 */
import { createRequire } from 'node:module';
import type https from 'node:https';
import { currentHost, type Host } from '../context.js';
import type { PatchSet } from '../registry.js';
import type { Shim } from '../shim.js';
import { trackingEmit } from './http.js';

const hostHttpsAgents = new WeakMap<Host, https.Agent>();

function httpsGlobalAgentFor(module: typeof https, host: Host, original: https.Agent): https.Agent {
  let agent = hostHttpsAgents.get(host);
  if (agent === undefined) {
    agent = new module.Agent({ ...(original as unknown as { options?: object }).options });
    hostHttpsAgents.set(host, agent);
  }
  return agent;
}

export const httpsShim: Shim = {
  name: 'https',
  builtins: ['https'],
  install(patches: PatchSet) {
    const module = createRequire(__filename)('node:https') as typeof https;
    // An https.Server is a tls.Server: its request parsing starts at 'secureConnection', and its
    // headers and request timeouts are checked as an http.Server's are, on the host's clock
    // (Node's checker, on the machine's real clock, never saw a simulated connection expire, and
    // fired at instants that followed the machine's speed).
    const serverPrototype = module.Server.prototype as unknown as { emit(event: string | symbol, ...args: unknown[]): boolean };
    patches.replace(serverPrototype, 'emit', trackingEmit(serverPrototype.emit, 'secureConnection'));
    // https.request reads module.exports.globalAgent per request: the export is the slot.
    let original = module.globalAgent;
    patches.defineGetter(module, 'globalAgent', () => {
      const host = currentHost();
      return host === undefined ? original : httpsGlobalAgentFor(module, host, original);
    });
    // `https.globalAgent = agent` inside a host sets that host's agent only.
    Object.defineProperty(module, 'globalAgent', {
      set(value: https.Agent) {
        const host = currentHost();
        if (host === undefined) original = value;
        else hostHttpsAgents.set(host, value);
      },
    });
  },
};
