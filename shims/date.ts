import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';

// TODO(helper): implement.
export const dateShim: Shim = {
  name: 'date',
  install(_patches: PatchSet) {},
};
