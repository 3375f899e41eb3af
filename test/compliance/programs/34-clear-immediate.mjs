// clearImmediate before it runs cancels it; after it ran (or twice) it does nothing.
const log = (...a) => console.log(...a);
const a = setImmediate(() => {
  log('a ran');
  clearImmediate(b);
  clearImmediate(a);
});
const b = setImmediate(() => log('b (must not run)'));
const c = setImmediate(() => {
  log('c ran');
  setImmediate(() => {
    log('d ran');
    setTimeout(() => {
      clearImmediate(c);
      log('c after run: destroyed', c._destroyed);
    }, 10);
  });
});
const e = setImmediate(() => log('e (must not run)'));
clearImmediate(e);
clearImmediate(e);
log('cleared e: destroyed', e._destroyed, 'onImmediate', e._onImmediate);
