/**
 * Math.random on the current host's `math` stream. Outside every host (the test runner in
 * library mode) it is the real Math.random, so the runner's own randomness is untouched.
 */
import { originals } from '../../runtime/originals.js';
import { currentHost } from '../context.js';
import type { PatchSet } from '../registry.js';
import type { Realm, Shim } from '../shim.js';

/** Method shorthand: like the built-in, not a constructor and no `prototype`. */
const { random: simRandom } = {
  random(): number {
    const host = currentHost();
    if (host === undefined) return originals.mathRandom();
    return host.math.next();
  },
};
// Keep the builtin's name and length: `Math.random.name === 'random'`, `length === 0`.
Object.defineProperty(simRandom, 'name', { value: originals.mathRandom.name, configurable: true });
Object.defineProperty(simRandom, 'length', { value: originals.mathRandom.length, configurable: true });

export const mathShim: Shim = {
  name: 'math',
  install() {},
  realm(patches: PatchSet, realm: Realm) {
    // Each realm has its own Math; outside hosts the real Math.random of any realm is as good.
    patches.replace(realm.global.Math as Math, 'random', simRandom);
  },
};
