// The interval handle while running and after clearing: _repeat, _destroyed, hasRef.
const log = (...a) => console.log(...a);
let n = 0;
const iv = setInterval(function () {
  n++;
  log('fire', n, 'repeat', this._repeat, 'destroyed', this._destroyed, 'hasRef', this.hasRef());
  if (n === 3) {
    clearInterval(this);
    log('after clear: idleTimeout', this._idleTimeout, 'onTimeout', this._onTimeout, 'destroyed', this._destroyed);
    setTimeout(() => log('later: still cleared, n =', n), 50);
  }
}, 12);
log('created: repeat', iv._repeat, 'idleTimeout', iv._idleTimeout);
