'use strict';
// Inside an 'exit' listener, timers, immediates and nextTicks scheduled there never run; promise
// jobs do (a microtask checkpoint follows the listener). process.nextTick passes extra arguments.
const log = (...a) => console.log(...a);
process.nextTick((a, b, c) => log('nextTick args', a, b, c), 'x', 2, null);
process.on('exit', (code) => {
  log('exit listener', code);
  setTimeout(() => log('timeout from exit (must not run)'), 0);
  setImmediate(() => log('immediate from exit (must not run)'));
  process.nextTick(() => log('nextTick from exit (must not run)'));
  Promise.resolve().then(() => log('promise job from exit still runs'));
  log('exit listener done');
});
setTimeout(() => log('last timer'), 5);
