'use strict';
// timers/promises setImmediate: resolves with its value in immediate order, and rejects with an
// AbortError when aborted before it runs.
const { setImmediate: immediate } = require('node:timers/promises');
const log = (...a) => console.log(...a);
immediate('first').then((v) => log('resolved', v));
setImmediate(() => log('callback immediate'));
immediate('second').then((v) => log('resolved', v));
const ac = new AbortController();
immediate('aborted', { signal: ac.signal }).then(
  (v) => log('resolved (must not)', v),
  (err) => log('rejected', err.name, err.code, err.cause && err.cause.name),
);
ac.abort();
immediate().then((v) => log('no value ->', v));
const ac2 = new AbortController();
ac2.abort();
immediate('pre-aborted', { signal: ac2.signal }).catch((err) => log('pre-aborted rejected', err.name));
