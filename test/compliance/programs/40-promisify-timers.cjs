'use strict';
// util.promisify(setTimeout) and util.promisify(setImmediate) are the timers/promises functions.
const util = require('node:util');
const tp = require('node:timers/promises');
const log = (...a) => console.log(...a);
const sleep = util.promisify(setTimeout);
const tick = util.promisify(setImmediate);
log('promisify(setTimeout) is timers/promises.setTimeout', sleep === tp.setTimeout);
log('promisify(setImmediate) is timers/promises.setImmediate', tick === tp.setImmediate);
log('custom symbol present', typeof setTimeout[util.promisify.custom]);
(async () => {
  const v = await sleep(10, 'slept');
  log('sleep resolved', v);
  const w = await tick('ticked');
  log('tick resolved', w);
  const order = [];
  await Promise.all([
    sleep(5).then(() => order.push('sleep 5')),
    new Promise((r) => setTimeout(r, 5)).then(() => order.push('callback 5')),
    sleep(5, 'x').then(() => order.push('sleep 5 again')),
  ]);
  log('same-delay order', order.join(', '));
})();
