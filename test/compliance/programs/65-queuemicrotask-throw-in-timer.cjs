'use strict';
// An exception thrown by a queueMicrotask callback inside a timer reaches 'uncaughtException';
// the next timer still runs.
const log = (...a) => console.log(...a);
process.on('uncaughtException', (err, origin) => log('uncaughtException:', err.message, origin));
setTimeout(() => {
  queueMicrotask(() => {
    throw new Error('microtask failure');
  });
  log('timer 1 done');
}, 10);
setTimeout(() => log('timer 2'), 10);
setTimeout(() => log('timer 3'), 30);
