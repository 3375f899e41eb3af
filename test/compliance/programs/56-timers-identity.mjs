// The global timer functions are node:timers' exports, with Node's names and lengths.
import * as timersNs from 'node:timers';
import { setTimeout as namedSetTimeout, setImmediate as namedSetImmediate } from 'node:timers';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const log = (...a) => console.log(...a);
const timers = require('node:timers');
for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate']) {
  const g = globalThis[name];
  log(name, 'global===require', g === timers[name], 'global===import*', g === timersNs[name], 'name', g.name, 'length', g.length);
}
log('named import setTimeout is global', namedSetTimeout === setTimeout);
log('named import setImmediate is global', namedSetImmediate === setImmediate);
log('getBuiltinModule agrees', typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('timers').setTimeout === setTimeout : 'n/a');
const t = setTimeout(() => {}, 1);
log('Timeout methods', ['ref', 'unref', 'hasRef', 'refresh', 'close'].map((m) => typeof t[m]).join(','));
log('Timeout toPrimitive', typeof t[Symbol.toPrimitive]);
clearTimeout(t);
const im = setImmediate(() => {});
log('Immediate methods', ['ref', 'unref', 'hasRef'].map((m) => typeof im[m]).join(','));
clearImmediate(im);
