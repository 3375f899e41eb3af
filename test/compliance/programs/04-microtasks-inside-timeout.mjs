// Inside a timer callback (even in an ES module) nextTicks run before promise jobs.
const log = (s) => console.log(s);
setTimeout(() => {
  log('timer start');
  Promise.resolve().then(() => log('promise 1'));
  queueMicrotask(() => log('queueMicrotask 1'));
  process.nextTick(() => {
    log('nextTick 1');
    process.nextTick(() => log('nextTick 1.1'));
    Promise.resolve().then(() => log('promise from nextTick 1'));
  });
  process.nextTick(() => log('nextTick 2'));
  Promise.resolve().then(() => {
    log('promise 2');
    process.nextTick(() => log('nextTick from promise 2'));
  });
  log('timer end');
}, 5);
