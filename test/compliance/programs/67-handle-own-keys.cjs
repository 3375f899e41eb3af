'use strict';
// The own enumerable fields of Timeout and Immediate handles (what Object.keys, spreading or a
// shallow copy of a handle sees), before and after clearing.
const log = (...a) => console.log(...a);
const t = setTimeout(() => {}, 10);
log('Timeout keys', Object.keys(t).join(','));
clearTimeout(t);
log('cleared Timeout keys', Object.keys(t).join(','));
const iv = setInterval(() => {}, 10);
log('interval keys', Object.keys(iv).join(','));
clearInterval(iv);
const im = setImmediate(() => {});
log('Immediate keys', Object.keys(im).join(','));
clearImmediate(im);
log('cleared Immediate keys', Object.keys(im).join(','));
