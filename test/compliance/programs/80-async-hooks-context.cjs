'use strict';
// A context kept by async_hooks of the program's own (as cls-hooked and APM agents keep theirs):
// init copies the current context to the new resource, before/after enter and leave it. Each
// timer, interval and immediate runs in the context it was made in.
const asyncHooks = require('node:async_hooks');
const log = (...a) => console.log(...a);
const contexts = new Map();
let current;
const stack = [];
asyncHooks
  .createHook({
    init(asyncId) {
      if (current !== undefined) contexts.set(asyncId, current);
    },
    before(asyncId) {
      stack.push(current);
      current = contexts.get(asyncId);
    },
    after() {
      current = stack.pop();
    },
    destroy(asyncId) {
      contexts.delete(asyncId);
    },
  })
  .enable();

function within(context, fn) {
  const saved = current;
  current = context;
  try {
    fn();
  } finally {
    current = saved;
  }
}

for (const id of [1, 2, 3]) {
  within(`request ${id}`, () => {
    setTimeout(() => {
      log('timeout', id, 'sees', current);
      setImmediate(() => log('immediate', id, 'sees', current));
      let ticks = 0;
      const iv = setInterval(() => {
        log('interval', id, 'tick', ++ticks, 'sees', current);
        if (ticks === 2) clearInterval(iv);
      }, 1000);
    }, 100 * id);
  });
}
setTimeout(() => log('outside every context sees', current), 5000);
