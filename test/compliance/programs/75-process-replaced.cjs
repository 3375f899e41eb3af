'use strict';
// A program may replace the global process object; Node's timers (and its uncaught-exception
// machinery) keep working, because they hold the real one. An overflowing delay still warns.
// (With the global replaced, plain Node runs a top-level immediate after or before a 5 ms timer,
// run to run, so each step here starts the next.)
const log = (...a) => console.log(...a);
const realProcess = process;
realProcess.on('exit', (code) => log('exit', code));
global.process = {};
setImmediate(() => {
  log('immediate ran');
  setTimeout(() => {
    log('timeout ran');
    setTimeout(() => {
      log('overflowing delay ran as 1 ms');
      setTimeout(() => {
        log('throwing from a timer');
        throw new Error('thrown after process was replaced');
      }, 5);
    }, 2 ** 31);
  }, 5);
});
