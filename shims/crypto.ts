import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';

// TODO(helper): implement.
export const cryptoShim: Shim = {
  name: 'crypto',
  install(_patches: PatchSet) {},
};
