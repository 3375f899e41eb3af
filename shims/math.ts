import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';

// TODO(helper): implement Math.random on the host's stream.
export const mathShim: Shim = {
  name: 'math',
  install(_patches: PatchSet) {},
};
