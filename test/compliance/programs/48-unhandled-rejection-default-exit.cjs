'use strict';
// Without an unhandledRejection listener an unhandled rejection in a timer kills the process
// with exit code 1; later timers never run; 'exit' listeners still run.
const log = (...a) => console.log(...a);
process.on('exit', (code) => log('exit listener, code', code));
setTimeout(() => {
  log('timer 1 rejects');
  Promise.reject(new Error('nobody handles this'));
  process.nextTick(() => log('timer 1 nextTick still runs'));
}, 10);
setTimeout(() => log('timer 2 (must not run)'), 10);
setTimeout(() => log('timer 3 (must not run)'), 50);
