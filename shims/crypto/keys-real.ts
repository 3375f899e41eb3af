/**
 * Node's own functions that shims/crypto/keys.ts replaces, taken at its install before the
 * patches go in: the patches (shims/crypto/keys.ts) and the code they load at the first call
 * (shims/crypto/keys-impl.ts) both call them.
 */
import { nodeCrypto } from './node-crypto.js';
import { withJobsHeld } from './jobs.js';
import type { Fn } from './material.js';

// ---- the real functions ------------------------------------------------------------------------

interface Real {
  generateKeyPair: Fn;
  generateKeyPairSync: Fn;
  generateKey: Fn;
  generateKeySync: Fn;
  ecdhGenerateKeys: Fn;
  dhGenerateKeys: Fn;
  dhGroupGenerateKeys: Fn;
  dhGetPrivateKey: Fn;
  dhGetPrime: Fn;
  getDiffieHellman: Fn;
  subtleGenerateKey: Fn;
  subtleImportKey: Fn;
}

/** Node's own functions, taken at install, before the patches (keys-impl.ts calls them). */
export let real: Real;

export type Proto = Record<string, Fn>;
export const protoOf = (ctor: unknown) => (ctor as { prototype: Proto }).prototype;

/** Node's functions (those that start jobs held as jobs.ts holds them). */
function realFunctions(): Real {
  const crypto = nodeCrypto();
  const mod = crypto as unknown as Record<string, Fn>;
  const ecdhProto = protoOf(crypto.ECDH);
  const dhProto = protoOf(crypto.DiffieHellman);
  const subtleProto = Object.getPrototypeOf(crypto.webcrypto.subtle) as Proto;
  return {
    generateKeyPair: withJobsHeld(mod.generateKeyPair!),
    generateKeyPairSync: mod.generateKeyPairSync!,
    generateKey: withJobsHeld(mod.generateKey!),
    generateKeySync: mod.generateKeySync!,
    ecdhGenerateKeys: ecdhProto.generateKeys!,
    dhGenerateKeys: dhProto.generateKeys!,
    dhGroupGenerateKeys: protoOf(crypto.DiffieHellmanGroup).generateKeys!,
    dhGetPrivateKey: dhProto.getPrivateKey!,
    dhGetPrime: dhProto.getPrime!,
    getDiffieHellman: mod.getDiffieHellman!,
    subtleGenerateKey: withJobsHeld(subtleProto.generateKey!),
    subtleImportKey: subtleProto.importKey!,
  };
}

/** Takes Node's functions now (at each install: before its patches). */
export function captureReal(): void {
  real = realFunctions();
}
