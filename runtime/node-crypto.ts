/**
 * node:crypto, required at its first use rather than when the runtime loads: loading it costs
 * 7-10 ms of CPU on Node 24 and 2-3 ms on 20 and 22 (docs/benchmarks.md, figure 12), and an
 * empty program under register mode never needs it. The runtime's own uses (a fresh seed, a test
 * certificate, Node 20's code cache key) and the crypto shims (installed at node:crypto's first
 * load: shims/crypto/node-crypto.ts) all take it from here.
 */
import { createRequire } from 'node:module';

/** Node's process.getBuiltinModule, taken at load (a program may replace it); undefined before 20.16. */
const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.bind(process);

let loaded: typeof import('node:crypto') | undefined;

/**
 * node:crypto, loaded at the first call: Node's own module whatever the program did to
 * `require` (Module._load wrappers, module.registerHooks) by then, through
 * process.getBuiltinModule where Node has it (20.16+, 22.3+).
 */
export function nodeCrypto(): typeof import('node:crypto') {
  loaded ??= (
    getBuiltinModule !== undefined ? getBuiltinModule('node:crypto') : createRequire(__filename)('node:crypto')
  ) as typeof import('node:crypto');
  return loaded;
}
