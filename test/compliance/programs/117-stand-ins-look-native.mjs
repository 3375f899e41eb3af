// What code that inspects built-ins sees of the functions the simulator stands in for: the source
// Function.prototype.toString shows (natives' "[native code]", Node's own JavaScript), whether
// they can be constructed, their name and length, and the error a detached performance.now()
// throws. (lodash's isNative and core-js tell natives from polyfills by their source.)
import { createHash } from 'node:crypto';

const fts = Function.prototype.toString;
const digest = (text) => createHash('sha256').update(text).digest('hex').slice(0, 12);
const functions = {
  'Math.random': Math.random,
  Date,
  'Date.now': Date.now,
  'process.uptime': process.uptime,
  'process.hrtime': process.hrtime,
  'process.hrtime.bigint': process.hrtime.bigint,
  'performance.now': performance.now,
  setTimeout,
  setInterval,
  setImmediate,
  clearTimeout,
  queueMicrotask,
  'Function.prototype.toString': Function.prototype.toString,
};
for (const [name, fn] of Object.entries(functions)) {
  const source = fts.call(fn);
  const native = /\{\s*\[native code\]\s*\}$/.test(source);
  let constructible;
  try {
    Reflect.construct(String, [], fn);
    constructible = true;
  } catch {
    constructible = false;
  }
  console.log(name, fn.name, fn.length, native ? source : `source ${digest(source)}`, constructible ? 'constructible' : 'not constructible', String(fn) === source);
}
const { now } = performance;
try {
  now();
  console.log('detached performance.now() returned');
} catch (error) {
  console.log('detached performance.now():', error.code, error.message);
}
