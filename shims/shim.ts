import type { PatchSet } from './registry.js';

/**
 * The globals of one JavaScript realm that host code can run in: Node's own, and the vm
 * context of a test file where a test runner evaluates test code in one (shims/realms.ts).
 */
export interface Realm {
  /** The realm's global object. */
  readonly global: Record<PropertyKey, unknown>;
  /**
   * The realm's `process` when it is an object of its own that still needs the process patches:
   * Node's process in the main realm, Jest's copy of it in a Jest context; undefined when the
   * realm shares Node's (Vitest's vm pools), which the main realm's patches already cover.
   */
  readonly process: NodeJS.Process | undefined;
}

/**
 * One shim: a slice of Node's API surface mapped onto the runtime. install() patches through
 * the PatchSet only, so uninstall is always the PatchSet's exact reverse.
 */
export interface Shim {
  readonly name: string;
  /**
   * Builtin modules (ids without `node:`) whose first load installs this shim, for a shim of a
   * builtin many programs never load: installed then (before whoever loaded it gets it), or at
   * install if one of them is already loaded (shims/builtin-loads.ts). Unset: installed at start.
   * install() may require only these builtins, and what they load themselves.
   */
  readonly builtins?: readonly string[];
  /**
   * For a shim with `builtins`: whether what install() patches is complete yet. A builtin that
   * loads in the middle of another's load (a require cycle inside Node) can be incomplete when
   * it is first seen; the shim then waits for the next of its builtins to load. Unset: ready.
   */
  ready?(): boolean;
  /** Patches what the process shares: builtin modules, Node's internal classes, bindings. */
  install(patches: PatchSet): void;
  /**
   * Patches what each realm has of its own (global slots, intrinsics such as Date and Math,
   * a process object): called after install() for Node's realm, then for each other realm.
   */
  realm?(patches: PatchSet, realm: Realm): void;
}
