'use strict';
// Fractional delays are kept on the handle but truncated to whole milliseconds when queued, so
// 1.9 shares the 1 ms list and 10.9 the 10 ms list: creation order decides.
const log = (...a) => console.log(...a);
const a = setTimeout(() => log('a 1.9'), 1.9);
setTimeout(() => log('b 1'), 1);
setTimeout(() => log('c 0.4 (as 1)'), 0.4);
setTimeout(() => log('d 10.9'), 10.9);
setTimeout(() => log('e 10'), 10);
setTimeout(() => log('f 10.1'), 10.1);
log('a keeps its fractional delay', a._idleTimeout);
