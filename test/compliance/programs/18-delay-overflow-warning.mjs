// A delay above 2^31-1 becomes 1 ms and emits a TimeoutOverflowWarning (on stderr, and as a
// 'warning' event, every time).
const log = (...a) => console.log(...a);
process.on('warning', (w) => log('warning event:', w.name, JSON.stringify(w.message)));
setTimeout(() => log('2^31 fired (as 1 ms)'), 2 ** 31);
setTimeout(() => log('Infinity fired (as 1 ms)'), Infinity);
const iv = setInterval(function () {
  log('huge interval fired, repeat', this._repeat);
  clearInterval(this);
}, 1e12);
setTimeout(() => log('20 ms'), 20);
log('sync done');
