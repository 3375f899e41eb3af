'use strict';
// Negative and NaN delays become 1 ms. Node 24 also warns (TimeoutNegativeWarning,
// TimeoutNaNWarning), once per process each; Node 20 and 22 are silent.
const log = (...a) => console.log(...a);
process.on('warning', (w) => log('warning event:', w.name, JSON.stringify(w.message)));
setTimeout(() => log('negative 1 fired'), -1);
setTimeout(() => log('negative 2 fired'), -50);
setTimeout(() => log('NaN fired'), NaN);
setTimeout(() => log('string NaN fired'), 'soon');
setTimeout(() => log('undefined fired'), undefined);
setTimeout(() => log('20 ms fired'), 20);
log('sync done');
