'use strict';
// A timers/promises timer with ref: false never settles if nothing else keeps the loop alive.
const { setTimeout: sleep, setImmediate: immediate } = require('node:timers/promises');
const log = (...a) => console.log(...a);
sleep(50, 'late', { ref: false }).then((v) => log('settled (must not)', v));
immediate('imm', { ref: false }).then((v) => log('immediate settled?', v));
process.on('exit', (code) => log('exit', code));
log('sync done');
