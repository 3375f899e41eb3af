'use strict';
// Without an uncaughtException listener, an exception thrown by a timer ends the process with
// exit code 1; 'exit' listeners still run, later timers do not.
const log = (...a) => console.log(...a);
process.on('uncaughtExceptionMonitor', (err, origin) => log('monitor saw', err.message, origin));
process.on('exit', (code) => log('exit listener, code', code));
setImmediate(() => {
  log('immediate before the throw');
  setTimeout(() => {
    log('timer 1 throws');
    throw new Error('fatal boom');
  }, 10);
  setTimeout(() => log('timer 2 (must not run)'), 30);
});
