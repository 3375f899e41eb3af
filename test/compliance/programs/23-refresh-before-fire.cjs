'use strict';
// refresh() re-arms a pending timer at the back of its list and returns the handle; it fires
// once.
const log = (...a) => console.log(...a);
const a = setTimeout(() => log('a'), 10);
setTimeout(() => log('b'), 10);
const same = a.refresh();
log('refresh returns the handle', same === a);
setTimeout(() => log('c'), 10);
const i = setInterval(function () {
  log('interval fired');
  clearInterval(this);
}, 10);
i.refresh();
