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

/** What a module host runs (see shims/module/module-hosts.ts). */
export interface ModuleHostSpec {
  /** Path of the main module (relative to the working directory, or absolute). */
  main: string;
  /** process.argv.slice(2) inside the host. */
  argv?: string[];
  /** Variables added to process.env inside the host. */
  env?: Record<string, string>;
}

/** How the runtime starts hosts from modules; provided by the shims. */
export interface ModuleHosts {
  validate(name: string, spec: ModuleHostSpec): void;
  main(spec: ModuleHostSpec): () => unknown;
}

let moduleHosts: ModuleHosts | undefined;

export function setModuleHosts(value: ModuleHosts): void {
  moduleHosts = value;
}

export function getModuleHosts(): ModuleHosts {
  if (moduleHosts === undefined) throw new Error('Failed to add a module host: dst-runtime shims are not loaded');
  return moduleHosts;
}
