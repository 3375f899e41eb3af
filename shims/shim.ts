import type { PatchSet } from './registry.js';

/**
 * One shim: a slice of Node's API surface mapped onto the runtime. install() patches through
 * the PatchSet only, so uninstall is always the PatchSet's exact reverse.
 */
export interface Shim {
  readonly name: string;
  install(patches: PatchSet): void;
}
