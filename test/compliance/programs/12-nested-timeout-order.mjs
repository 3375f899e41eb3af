// Timers created by a timer go behind every timer already due: A B A2 B2 A3.
const log = (s) => console.log(s);
setTimeout(() => {
  log('A');
  setTimeout(() => {
    log('A2');
    setTimeout(() => log('A3'), 0);
  }, 0);
}, 0);
setTimeout(() => {
  log('B');
  setTimeout(() => log('B2'), 0);
}, 0);
