'use strict';
// Microtasks and nextTicks drain between individual immediates, so a promise job of the first
// immediate can clear the third before the check phase reaches it.
const log = (s) => console.log(s);
let third;
setImmediate(() => {
  log('immediate 1');
  Promise.resolve().then(() => {
    log('immediate 1 promise: clearing immediate 3');
    clearImmediate(third);
  });
  process.nextTick(() => log('immediate 1 nextTick'));
});
setImmediate(() => {
  log('immediate 2');
  queueMicrotask(() => log('immediate 2 queueMicrotask'));
});
third = setImmediate(() => log('immediate 3 (must not run)'));
setImmediate(() => log('immediate 4'));
