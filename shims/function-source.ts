/**
 * Function.prototype.toString of a stand-in shows the source of the function it replaced: a
 * built-in's `function random() { [native code] }`, Node's own JavaScript for the rest. Code that
 * tells natives from polyfills by their source (lodash's isNative, core-js) saw the simulator's
 * JavaScript for Math.random, Date.now and process.uptime, and `function () { [native code] }`
 * (a Proxy's) for Date. Every other function prints as it does.
 */
import { originalOf, type PatchSet } from './registry.js';
import type { Realm, Shim } from './shim.js';

export const functionSourceShim: Shim = {
  name: 'function-source',
  install() {},
  realm(patches: PatchSet, realm: Realm) {
    const prototype = (realm.global.Function as FunctionConstructor | undefined)?.prototype;
    if (prototype === undefined) return;
    const realToString = prototype.toString;
    // Method shorthand: like the built-in, not a constructor.
    const { toString } = {
      toString(this: unknown): string {
        return Reflect.apply(realToString, typeof this === 'function' ? originalOf(this) : this, []);
      },
    };
    patches.replace(prototype, 'toString', toString);
  },
};
