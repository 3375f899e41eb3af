/**
 * Internal entry (dist/realm.cjs, not in package.json "exports"): dist/index.cjs, evaluated in a
 * test runner's vm context, registers that context here (see entry.cjs and runtime/realms.ts).
 * It shares its chunk with dist/runtime.cjs, so both see one registry.
 */
export { addRealm } from './runtime/realms.js';
