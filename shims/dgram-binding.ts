import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';

// Owned by a helper session: being implemented.
export const dgramShim: Shim = {
  name: 'dgram-binding',
  install(_patches: PatchSet) {},
};
