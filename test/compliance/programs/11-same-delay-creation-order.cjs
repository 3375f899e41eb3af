'use strict';
// Timers due at the same time run in creation order; 0 and 1 share Node's 1 ms list.
const log = (s) => console.log(s);
for (let i = 0; i < 5; i++) setTimeout(() => log(`ten ${i}`), 10);
setTimeout(() => log('zero a'), 0);
setTimeout(() => log('one b'), 1);
setTimeout(() => log('zero c'), 0);
setTimeout(() => log('undefined d'));
setTimeout(() => log('one e'), 1);
