'use strict';
// node:domain: a timer, an interval or an immediate runs in the domain it was made in, so the
// domain's 'error' handler gets what it throws; code outside every domain stays outside.
const domain = require('node:domain');
const d1 = domain.create(), d2 = domain.create();
d1.on('error', (e) => console.log('d1 caught:', e.message));
d2.on('error', (e) => console.log('d2 caught:', e.message));
d1.run(() => setTimeout(() => { throw new Error('thrown in d1 timer'); }, 1));
d2.run(() => setTimeout(() => { setImmediate(() => { console.log('imm domain is d2', process.domain === d2); throw new Error('thrown in d2 immediate'); }); }, 20));
// Far apart: on a loaded machine two timers due in one timers phase would both run before the
// immediate the first one queues.
setTimeout(() => console.log('top-level timer: process.domain is', process.domain === d1 ? 'd1' : process.domain === d2 ? 'd2' : String(process.domain)), 500);
d1.run(() => { const iv = setInterval(() => { console.log('interval in d1', process.domain === d1); clearInterval(iv); }, 250); });
