/**
 * When the crypto shims are installed: at the first load of node:crypto or of Node's Web Crypto
 * module (`globalThis.crypto`), whichever comes first (shims/install.ts, `Shim.builtins`), not at
 * start. An empty program never loads node:crypto (runtime/node-crypto.ts says what it costs).
 */
export { nodeCrypto } from '../../runtime/node-crypto.js';

/**
 * What loads the crypto shims. node:crypto does not load the Web Crypto module at its top level,
 * and `globalThis.crypto` does not load node:crypto (Node 20, 22, 24): each is seen complete,
 * never in the middle of the other's load. Every function the shims replace lives on one of the
 * two (the module's functions, Crypto.prototype, SubtleCrypto.prototype), and every job Node
 * starts comes from a module one of them loads.
 */
export const CRYPTO_BUILTINS: readonly string[] = ['crypto', 'internal/crypto/webcrypto'];
