'use strict';
// An interval whose callback throws is still rescheduled; the uncaughtException listener can
// clear it.
const log = (...a) => console.log(...a);
let n = 0;
const iv = setInterval(() => {
  n++;
  log('interval firing', n);
  throw new Error(`interval error ${n}`);
}, 10);
process.on('uncaughtException', (err) => {
  log('handler:', err.message);
  if (n === 3) {
    clearInterval(iv);
    log('handler cleared the interval');
  }
});
process.on('exit', (code) => log('exit', code, 'firings', n));
