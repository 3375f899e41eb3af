'use strict';
// process.setUncaughtExceptionCaptureCallback takes exceptions thrown by timers and immediates
// instead of 'uncaughtException' and the process goes on with exit code 0.
const log = (...a) => console.log(...a);
process.setUncaughtExceptionCaptureCallback((err) => log('capture callback:', err.message));
log('has capture callback', process.hasUncaughtExceptionCaptureCallback());
setTimeout(() => {
  log('timer throws');
  throw new Error('from timer');
}, 10);
setTimeout(() => {
  log('second timer runs');
  setImmediate(() => {
    log('immediate throws');
    throw new Error('from immediate');
  });
  setImmediate(() => log('next immediate runs'));
}, 20);
process.on('exit', (code) => log('exit', code));
