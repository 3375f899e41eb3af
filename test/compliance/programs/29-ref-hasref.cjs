'use strict';
// ref/unref/hasRef on timeouts, intervals and immediates; unref then ref keeps the process alive.
const log = (...a) => console.log(...a);
let immediateRan = false;
const t = setTimeout(() => {
  log('re-ref timeout fired');
  const iv = setInterval(function () {
    log('interval hasRef in callback', this.hasRef());
    clearInterval(this);
    log('interval hasRef after clear', this.hasRef());
    setTimeout(() => log('after fire: timeout hasRef', t.hasRef()), 5);
  }, 5);
  void iv;
}, 15);
log('timeout hasRef', t.hasRef());
log('unref returns handle', t.unref() === t, 'hasRef', t.hasRef());
log('ref returns handle', t.ref() === t, 'hasRef', t.hasRef());
t.unref();
t.unref();
t.ref();
const im = setImmediate(() => {
  immediateRan = true;
});
log('immediate hasRef', im.hasRef());
log('immediate unref returns handle', im.unref() === im, 'hasRef', im.hasRef());
log('immediate ref returns handle', im.ref() === im, 'hasRef', im.hasRef());
process.on('exit', () => log('exit: immediate ran', immediateRan, 'hasRef after run', im.hasRef()));
