import type { PatchSet } from './registry.js';
import type { Shim } from './shim.js';

// Owned by a helper session: being implemented.
export const dnsResolverShim: Shim = {
  name: 'dns-resolver',
  install(_patches: PatchSet) {},
};
