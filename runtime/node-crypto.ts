/**
 * node:crypto, required at its first use rather than when the runtime loads: loading it costs
 * 7-10 ms of CPU on Node 24 and 2-3 ms on 20 and 22 (docs/benchmarks.md, figure 12), and an
 * empty program under register mode never needs it. The runtime's own uses (a fresh seed, a test
 * certificate, Node 20's code cache key) and the crypto shims (installed at node:crypto's first
 * load: shims/crypto/node-crypto.ts) all take it from here.
 */
import { createRequire } from 'node:module';

let loaded: typeof import('node:crypto') | undefined;

/** node:crypto, required at the first call. */
export function nodeCrypto(): typeof import('node:crypto') {
  return (loaded ??= createRequire(__filename)('node:crypto') as typeof import('node:crypto'));
}
