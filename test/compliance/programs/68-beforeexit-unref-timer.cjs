'use strict';
// Work that does not keep the loop alive (an unref'd timer, a promise) scheduled from
// 'beforeExit' does not bring 'beforeExit' back: the process exits after one round.
const log = (...a) => console.log(...a);
let rounds = 0;
process.on('beforeExit', () => {
  rounds++;
  log('beforeExit', rounds);
  if (rounds > 3) return; // a safety stop, never reached on real Node
  setTimeout(() => log('unref timer from beforeExit (must not fire)'), 10).unref();
  Promise.resolve().then(() => log('promise job from beforeExit', rounds));
});
process.on('exit', (code) => log('exit', code, 'rounds', rounds));
log('sync done');
