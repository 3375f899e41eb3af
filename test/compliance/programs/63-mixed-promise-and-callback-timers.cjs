'use strict';
// Callback timers, timers/promises timers and intervals of the same delay share one list and
// fire in creation order.
const tp = require('node:timers/promises');
const log = (...a) => console.log(...a);
setTimeout(() => log('callback 1'), 15);
tp.setTimeout(15, 'promise 2').then(log);
const iv = setInterval(() => {
  log('interval 3');
  clearInterval(iv);
}, 15);
tp.setTimeout(15, 'promise 4').then(log);
setTimeout(() => log('callback 5'), 15);
