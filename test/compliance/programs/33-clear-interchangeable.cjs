'use strict';
// clearInterval clears a timeout and clearTimeout clears an interval; bogus arguments are
// ignored; clearTimeout on an Immediate does not cancel it.
const log = (...a) => console.log(...a);
const t = setTimeout(() => log('timeout (must not fire)'), 5);
clearInterval(t);
const iv = setInterval(() => log('interval (must not fire)'), 5);
clearTimeout(iv);
for (const bogus of [undefined, null, 0, -1, 'x', {}, [], 12345678, NaN]) clearTimeout(bogus);
for (const bogus of [undefined, null, {}, 'y', 7]) clearInterval(bogus);
// (clearImmediate on a non-Immediate object or string corrupts or throws in real Node.)
for (const bogus of [undefined, null, 0, false]) clearImmediate(bogus);
log('bogus clears ignored');
const im = setImmediate(() => {
  log('immediate survives clearTimeout');
  setTimeout(() => log('end'), 20);
});
clearTimeout(im);
clearInterval(im);
const done = setTimeout(() => log('cleared twice (must not fire)'), 5);
clearTimeout(done);
clearTimeout(done);
