import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';

// Owned by a helper session: being implemented.
export const fetchShim: Shim = {
  name: 'fetch',
  install(_patches: PatchSet) {},
};
