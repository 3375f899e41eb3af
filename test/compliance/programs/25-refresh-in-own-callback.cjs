'use strict';
// A timer that refreshes itself from its own callback fires again; it stops when it no longer
// does.
const log = (...a) => console.log(...a);
let n = 0;
setTimeout(function () {
  n++;
  log('fired', n);
  if (n < 3) this.refresh();
  else setTimeout(() => log('done, destroyed:', this._destroyed), 1);
}, 8);
