/**
 * The realms the shims patch: Node's own, and the test runner's vm context that loaded
 * dst-runtime last (runtime/realms.ts). A host function written in a test file reads that
 * context's own Date, Math, timer slots, queueMicrotask, WebAssembly and (Jest) its copy of
 * process, which must be simulated as well as Node's. Pinned by test/runners/sandbox.test.mjs.
 */
import { originals } from '../runtime/originals.js';
import { testRealmGlobal } from '../runtime/realms.js';
import type { Realm } from './shim.js';

const nodeProcess: NodeJS.Process = originals.process;

/** Node's own realm. */
const MAIN: Realm = { global: globalThis as unknown as Record<PropertyKey, unknown>, process: nodeProcess };

/** The realms to patch: Node's, then the test runner's context, if one registered. */
export function realms(): Realm[] {
  const global = testRealmGlobal();
  if (global === undefined) return [MAIN];
  // Read at each install: Jest makes a new copy of process for each test file's context.
  const own = readGlobal(global, 'process');
  const process = own !== null && typeof own === 'object' && own !== nodeProcess ? (own as NodeJS.Process) : undefined;
  return [MAIN, { global, process }];
}

/** A realm's global `key`, or undefined where reading it throws (a torn-down context's getter). */
export function readGlobal(global: Record<PropertyKey, unknown>, key: string): unknown {
  try {
    return global[key];
  } catch {
    return undefined;
  }
}
