'use strict';
// Inside a timer callback, setImmediate runs before setTimeout(0): the check phase of the same
// loop turn comes before the next timers phase.
const log = (s) => console.log(s);
setTimeout(() => {
  setTimeout(() => log('timeout 0 from timer'), 0);
  setImmediate(() => log('immediate from timer'));
}, 5);
setTimeout(() => {
  setImmediate(() => log('second: immediate'));
  setTimeout(() => log('second: timeout 0'), 0);
}, 50);
