'use strict';
// Inside a timer callback, setImmediate runs before setTimeout(0): the check phase of the same
// loop turn comes before the next timers phase, whichever of the two calls comes first.
const log = (s) => console.log(s);
setTimeout(() => {
  setTimeout(() => {
    log('timeout 0 from timer');
    // Second round, created in the opposite order.
    setImmediate(() => log('second: immediate'));
    setTimeout(() => log('second: timeout 0'), 0);
  }, 0);
  setImmediate(() => log('immediate from timer'));
}, 5);
