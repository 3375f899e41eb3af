'use strict';
// process.exit(code) in a timer stops everything at once: the exit code is the argument,
// 'exit' listeners run, pending timers and immediates and nextTicks do not.
const log = (...a) => console.log(...a);
process.on('exit', (code) => log('exit listener, code', code, 'process.exitCode', process.exitCode));
setTimeout(() => {
  log('timer 1 exits');
  process.nextTick(() => log('nextTick (must not run)'));
  setImmediate(() => log('immediate (must not run)'));
  process.exit(3);
}, 10);
setTimeout(() => log('timer 2 (must not run)'), 10);
