// Microtasks and nextTicks drain between individual timer callbacks of the same list, so a
// microtask of the first timer can clear the third before it runs.
const log = (s) => console.log(s);
let third;
setTimeout(() => {
  log('timer 1');
  process.nextTick(() => log('timer 1 nextTick'));
  Promise.resolve().then(() => {
    log('timer 1 promise: clearing timer 3');
    clearTimeout(third);
  });
  queueMicrotask(() => log('timer 1 queueMicrotask'));
}, 10);
setTimeout(() => {
  log('timer 2');
  Promise.resolve().then(() => log('timer 2 promise'));
  process.nextTick(() => log('timer 2 nextTick'));
}, 10);
third = setTimeout(() => log('timer 3 (must not run)'), 10);
setTimeout(() => log('timer 4'), 10);
