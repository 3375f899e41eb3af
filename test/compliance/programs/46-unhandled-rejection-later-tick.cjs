'use strict';
// A rejection handled by a nextTick or a promise job of the same turn is not reported; one handled
// only in a later macrotask is reported first, then 'rejectionHandled' follows.
const log = (...a) => console.log(...a);
process.on('unhandledRejection', (reason, promise) => {
  log('unhandledRejection:', reason.message, promise instanceof Promise);
});
process.on('rejectionHandled', (promise) => {
  log('rejectionHandled:', promise === late);
});
const inTick = Promise.reject(new Error('handled in nextTick'));
process.nextTick(() => inTick.catch((e) => log('caught', e.message)));
const inMicrotask = Promise.reject(new Error('handled in microtask'));
queueMicrotask(() => inMicrotask.catch((e) => log('caught', e.message)));
const late = Promise.reject(new Error('handled in a later immediate'));
setImmediate(() => {
  log('immediate attaches catch');
  late.catch((e) => log('caught', e.message));
  setTimeout(() => log('timer after everything'), 10);
});
