'use strict';
// An interval that clears itself from its own callback stops; one cleared with clearTimeout on
// `this` stops too; microtasks of each firing run before the next firing.
const log = (...a) => console.log(...a);
let a = 0;
const ia = setInterval(() => {
  a++;
  log('A', a);
  Promise.resolve().then(() => log('A microtask', a));
  if (a === 4) {
    clearInterval(ia);
    log('A cleared');
    startB();
  }
}, 10);
function startB() {
  let b = 0;
  setInterval(function () {
    b++;
    log('B', b);
    if (b === 2) clearTimeout(this);
  }, 25);
}
