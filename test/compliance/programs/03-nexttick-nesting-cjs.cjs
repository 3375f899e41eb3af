'use strict';
// Nested queues at CJS top level: a nextTick queued by a nextTick runs before any promise job;
// a nextTick queued by a promise job runs only after the whole microtask queue drained.
const log = (s) => console.log(s);
process.nextTick(() => {
  log('tick A');
  process.nextTick(() => log('tick A.1'));
  Promise.resolve().then(() => {
    log('promise from tick A');
    process.nextTick(() => {
      log('tick from promise');
      Promise.resolve().then(() => log('promise from tick from promise'));
    });
    Promise.resolve().then(() => log('promise from promise'));
  });
});
Promise.resolve().then(() => log('promise top'));
process.nextTick(() => log('tick B'));
log('sync done');
