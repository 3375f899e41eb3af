/**
 * Register mode's runtime, loaded by register.ts once Node's compile cache is on (or inside the
 * runtime's own code cache on Node 20: runtime/compile-cache.ts), and started by it after the load.
 */
export { startRegisterMode } from './shims/register-mode.js';
export { onRealDisk } from './runtime/disk/real.js';
