'use strict';
// A setTimeout(0) queued from a nextTick inside an immediate runs after the other immediates of
// that check phase; an immediate queued by that timer runs before its setTimeout(0).
const log = (s) => console.log(s);
setImmediate(() => {
  log('immediate 1');
  process.nextTick(() => {
    log('nextTick in immediate 1');
    setTimeout(() => {
      log('timeout from nextTick');
      setTimeout(() => log('timeout from timeout'), 0);
      setImmediate(() => log('immediate from timeout'));
    }, 0);
  });
});
setImmediate(() => log('immediate 2'));
