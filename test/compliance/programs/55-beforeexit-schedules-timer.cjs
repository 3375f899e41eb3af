'use strict';
// 'beforeExit' fires when the loop is empty; work it schedules runs, then 'beforeExit' fires
// again.
const log = (...a) => console.log(...a);
let rounds = 0;
process.on('beforeExit', (code) => {
  rounds++;
  log('beforeExit', rounds, 'code', code);
  if (rounds === 1) setTimeout(() => log('timer from beforeExit 1'), 10);
  if (rounds === 2) setImmediate(() => log('immediate from beforeExit 2'));
  if (rounds === 3) Promise.resolve().then(() => log('promise from beforeExit 3 (does not keep alive)'));
});
process.on('exit', (code) => log('exit', code, 'rounds', rounds));
setTimeout(() => log('first timer'), 5);
