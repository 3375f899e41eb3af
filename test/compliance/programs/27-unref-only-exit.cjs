'use strict';
// Only unref'd timers remain: they never fire and the process exits.
const log = (...a) => console.log(...a);
const t = setTimeout(() => log('unref timeout (must not happen)'), 100);
t.unref();
const i = setInterval(() => log('unref interval (must not happen)'), 50).unref();
log('unref returns the handle', i.hasRef() === false && typeof i.ref === 'function');
process.on('exit', (code) => log('exit', code, 'hasRef', t.hasRef(), i.hasRef()));
log('sync done');
