/**
 * Node's own functions that shims/crypto/signatures.ts replaces, taken at its install before the
 * patches go in: the patches (shims/crypto/signatures.ts) and the code they load at the first call
 * (shims/crypto/signatures-impl.ts) both call them.
 */
import { nodeCrypto } from './node-crypto.js';
import { withJobsHeld } from './jobs.js';
import type { Fn } from './material.js';

// ---- the real functions ------------------------------------------------------------------------

interface Real {
  sign: Fn;
  createSign: Fn;
  Sign: Fn;
  signUpdate: Fn;
  signSign: Fn;
  publicEncrypt: Fn;
  subtleSign: Fn;
  subtleEncrypt: Fn;
}

/** Node's own functions, taken at install, before the patches (signatures-impl.ts calls them). */
export let real: Real;

export type Proto = Record<string, Fn>;
export const signProto = () => (nodeCrypto().Sign as unknown as { prototype: Proto }).prototype;
export const subtleProto = () => Object.getPrototypeOf(nodeCrypto().webcrypto.subtle) as Proto;

function realFunctions(): Real {
  const mod = nodeCrypto() as unknown as Record<string, Fn>;
  return {
    sign: withJobsHeld(mod.sign!),
    createSign: mod.createSign!,
    Sign: mod.Sign!,
    signUpdate: signProto().update!,
    signSign: signProto().sign!,
    publicEncrypt: mod.publicEncrypt!,
    subtleSign: withJobsHeld(subtleProto().sign!),
    subtleEncrypt: withJobsHeld(subtleProto().encrypt!),
  };
}

/** Takes Node's functions now (at each install: before its patches). */
export function captureReal(): void {
  real = realFunctions();
}
