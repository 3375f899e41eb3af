'use strict';
// A timer that queues a nextTick and a promise job and then throws: the handler runs at once,
// and the queued callbacks (and a nextTick queued by the handler) still run before a later
// timer. (Not tested: a timer of the SAME list created right after the throwing one. Real Node
// runs it before the thrower's nextTicks when both are due in the same pass, which depends on
// whether a millisecond boundary fell between the two setTimeout calls.)
const log = (...a) => console.log(...a);
process.on('uncaughtException', (err) => {
  log('handler:', err.message);
  process.nextTick(() => log('nextTick from handler'));
  Promise.resolve().then(() => log('promise job from handler'));
});
setTimeout(() => {
  process.nextTick(() => log('A nextTick'));
  Promise.resolve().then(() => log('A promise job'));
  log('A throws');
  throw new Error('A failed');
}, 10);
setTimeout(() => log('C runs'), 30);
