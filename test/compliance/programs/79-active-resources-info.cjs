'use strict';
// process.getActiveResourcesInfo() lists one 'Timeout' per ref'd timer (a timer counts during its
// own callback) and one 'Immediate' per ref'd immediate, as in plain Node. Each step starts the
// next, so no order between timers is left to the machine's speed.
const show = (label) => console.log(label, JSON.stringify(process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'Immediate')));
show('start');
const t = setTimeout(() => {}, 100_000);
setImmediate(() => {
  show('in immediate');
  setTimeout(() => {
    show('in a 1 ms timer callback');
    clearTimeout(t);
    show('after clearTimeout');
    const iv = setInterval(() => {
      show('in interval');
      clearInterval(iv);
      show('after clearInterval');
    }, 5);
  }, 1);
  show('after arming a 1 ms timer');
});
show('after setTimeout+setImmediate');
t.unref();
show('after unref');
t.ref();
show('after ref');
