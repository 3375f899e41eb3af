'use strict';
// Once a timer was coerced to a primitive, clearTimeout/clearInterval accept that number (or
// its string form) as the timer.
const log = (...a) => console.log(...a);
const t1 = setTimeout(() => log('t1 (must not fire)'), 10);
const id1 = +t1;
const t2 = setTimeout(() => log('t2 (must not fire)'), 10);
const iv = setInterval(() => log('interval (must not fire)'), 5);
const t3 = setTimeout(() => {
  log('t3 fired');
  clearTimeout(+t4);
  setTimeout(() => {
    clearTimeout(id3); // already fired: nothing happens
    log('cleared a fired id without error');
  }, 10);
}, 10);
const id3 = +t3;
const t4 = setTimeout(() => log('t4 (must not fire)'), 30);
log('id is a number', typeof id1, 'stable', +t1 === id1, 'String agrees', String(t1) === String(id1));
clearTimeout(id1);
clearTimeout(`${t2}`);
clearInterval(Number(iv));
