'use strict';
// Timers due at the same time run in creation order; 0, 1 and undefined share Node's 1 ms list.
const log = (s) => console.log(s);
setTimeout(() => log('zero a'), 0);
setTimeout(() => log('one b'), 1);
setTimeout(() => log('zero c'), 0);
setTimeout(() => log('undefined d'));
setTimeout(() => log('one e'), 1);
for (let i = 0; i < 5; i++) setTimeout(() => log(`ten ${i}`), 10);
setTimeout(() => log('ten-as-string'), '10');
setTimeout(() => log('ten-point-zero'), 10.0);
