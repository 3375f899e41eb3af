// Rejections born inside timers: the unhandledRejection event comes after that timer's
// microtasks, before the next timer; handling it in the next timer emits rejectionHandled.
const log = (...a) => console.log(...a);
const seen = [];
process.on('unhandledRejection', (reason) => {
  log('unhandledRejection:', reason);
  seen.push(reason);
});
process.on('rejectionHandled', () => log('rejectionHandled'));
let pending;
setTimeout(() => {
  log('timer 1 rejects');
  pending = Promise.reject('from timer 1');
  process.nextTick(() => log('timer 1 nextTick'));
  Promise.resolve().then(() => log('timer 1 promise job'));
}, 10);
setTimeout(() => {
  log('timer 2 handles it');
  pending.catch((r) => log('caught', r));
}, 10);
setTimeout(() => {
  log('timer 3: rejection handled within its own microtasks');
  const p = Promise.reject('from timer 3');
  Promise.resolve().then(() => p.catch((r) => log('caught', r)));
}, 10);
setTimeout(() => log('seen', JSON.stringify(seen)), 30);
