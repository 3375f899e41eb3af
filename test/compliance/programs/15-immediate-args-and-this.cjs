'use strict';
// setImmediate passes extra arguments and runs with `this` set to the Immediate.
const log = (...a) => console.log(...a);
const im = setImmediate(function (a, b) {
  log('immediate args', a, b, arguments.length);
  log('this is the handle', this === im, this.constructor.name);
}, 'one', 2);
setImmediate(function (...args) {
  log('no extra args', args.length);
});
setImmediate((a, b, c, d, e) => log('five args', a, b, c, d, e), 1, 2, 3, 4, 5);
