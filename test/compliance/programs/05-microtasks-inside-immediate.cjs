'use strict';
// Inside an immediate callback: nextTicks first, then promise jobs, then nextTicks those queued.
const log = (s) => console.log(s);
setImmediate(() => {
  log('immediate start');
  Promise.resolve().then(() => log('promise 1'));
  queueMicrotask(() => log('queueMicrotask 1'));
  process.nextTick(() => log('nextTick 1'));
  Promise.resolve().then(() => {
    log('promise 2');
    process.nextTick(() => log('nextTick from promise 2'));
    queueMicrotask(() => log('queueMicrotask from promise 2'));
  });
  process.nextTick(() => log('nextTick 2'));
  log('immediate end');
});
