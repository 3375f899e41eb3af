import type { World } from './world.js';

/**
 * How the runtime asks for Node's APIs to be redirected to a world. The shims register the
 * implementation; the runtime itself never patches anything.
 */
export interface Interposer {
  install(world: World): void;
  uninstall(world: World): void;
}

let interposer: Interposer | undefined;

export function setInterposer(value: Interposer): void {
  interposer = value;
}

export function getInterposer(): Interposer {
  if (interposer === undefined) {
    throw new Error('Failed to run simulation: dst-runtime shims are not loaded (import "dst-runtime", not runtime/ files)');
  }
  return interposer;
}
