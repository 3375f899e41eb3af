'use strict';
// setTimeout/setInterval/setImmediate throw ERR_INVALID_ARG_TYPE for a non-function callback.
const timers = require('node:timers');
const log = (...a) => console.log(...a);
const values = [['string', 'code()'], ['undefined', undefined], ['null', null], ['number', 42], ['object', {}], ['array', []], ['long string', 'x'.repeat(40)], ['symbol', Symbol('cb')]];
for (const [fname, fn] of [['setTimeout', setTimeout], ['setInterval', setInterval], ['setImmediate', setImmediate], ['timers.setTimeout', timers.setTimeout]]) {
  for (const [label, value] of values) {
    try {
      fn(value, 1);
      log(fname, label, 'accepted');
    } catch (err) {
      log(fname, label, '->', err.code, err.name, err instanceof TypeError, JSON.stringify(err.message));
      log('   toString', String(err));
      log('   stack head', err.stack.split('\n')[0]);
    }
  }
}
