'use strict';
// The handle fields libraries read: _onTimeout, _idleTimeout, _repeat, _destroyed, before and
// after firing and clearing.
const log = (...a) => console.log(...a);
function fn() {
  log('in callback: destroyed', t._destroyed, 'onTimeout is fn', t._onTimeout === fn);
}
const t = setTimeout(fn, 10);
log('pending: idleTimeout', t._idleTimeout, 'repeat', t._repeat, 'destroyed', t._destroyed, 'onTimeout is fn', t._onTimeout === fn);
const c = setTimeout(fn, 10);
clearTimeout(c);
log('cleared: idleTimeout', c._idleTimeout, 'onTimeout', c._onTimeout, 'destroyed', c._destroyed);
setTimeout(() => {
  log('fired: idleTimeout', t._idleTimeout, 'destroyed', t._destroyed, 'onTimeout is fn', t._onTimeout === fn);
  clearTimeout(t);
  log('fired then cleared: idleTimeout', t._idleTimeout, 'onTimeout', t._onTimeout, 'destroyed', t._destroyed);
}, 20);
