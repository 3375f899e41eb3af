// close() and [Symbol.dispose]() cancel timers; an Immediate's [Symbol.dispose]() cancels it.
const log = (...a) => console.log(...a);
const a = setTimeout(() => log('a (must not fire)'), 5);
log('close returns the handle', a.close() === a, 'destroyed', a._destroyed);
const b = setTimeout(() => log('b (must not fire)'), 5);
log('Timeout has Symbol.dispose', typeof b[Symbol.dispose]);
b[Symbol.dispose]();
const iv = setInterval(() => log('interval (must not fire)'), 5);
iv.close();
const im = setImmediate(() => log('immediate (must not run)'));
log('Immediate has Symbol.dispose', typeof im[Symbol.dispose]);
im[Symbol.dispose]();
setTimeout(() => log('survivor fired'), 10);
