'use strict';
// A context kept by async_hooks of the program's own (as cls-hooked and APM agents keep theirs):
// init copies the current context to the new resource, before/after enter and leave it. Each
// timer, interval and immediate runs in the context it was made in.
const asyncHooks = require('node:async_hooks');
// Lines are kept per request and printed at the end in request order: which request's timer
// runs first is not what this program checks, and a plain run on a loaded machine that stalls
// 100 ms runs two requests' timeouts before the first one's immediate.
const lines = new Map();
const log = (what, id, ...rest) => {
  if (!lines.has(id)) lines.set(id, []);
  lines.get(id).push([what, id, ...rest].join(' '));
};
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
setTimeout(() => {
  for (const id of [1, 2, 3]) for (const line of lines.get(id) ?? []) console.log(line);
  console.log('outside every context sees', current);
}, 5000);
