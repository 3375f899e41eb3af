'use strict';
// A PerformanceObserver gets its entries from an immediate Node queues when a mark or measure is
// made: before any later timer, and before a disconnect() that a later timer makes.
const { PerformanceObserver, performance } = require('node:perf_hooks');
const log = (...a) => console.log(...a);
const names = (list) => list.getEntries().map((e) => `${e.entryType}:${e.name}`).join(',');

const marks = new PerformanceObserver((list, observer) => log('marks observer:', names(list), observer === marks));
marks.observe({ entryTypes: ['mark'] });
const measures = new PerformanceObserver((list) => log('measures observer:', names(list)));
measures.observe({ type: 'measure' });

performance.mark('top-level');
log('mark made');
setTimeout(() => {
  log('timer 1');
  performance.mark('in-timer');
  performance.measure('since-top', 'top-level', 'in-timer');
  setTimeout(() => {
    log('timer 2: disconnecting');
    marks.disconnect();
    performance.mark('after-disconnect');
    setImmediate(() => {
      performance.measure('last', 'in-timer', 'after-disconnect');
      log('records left after delivery:', measures.takeRecords().length);
      setTimeout(() => {
        measures.disconnect();
        log('done');
      }, 10);
    });
  }, 50);
}, 50);
