// Extra arguments reach the callback; `this` is the Timeout handle itself, for timeouts and
// intervals alike.
const log = (...a) => console.log(...a);
const t = setTimeout(function (a, b, c) {
  log('timeout args', a, b, c, arguments.length);
  log('this is the handle', this === t, this.constructor.name);
  let n = 0;
  const iv = setInterval(function (...args) {
    n++;
    log('interval args', JSON.stringify(args), args.length, 'call', n, 'this is the handle', this === iv);
    if (n === 2) {
      clearInterval(this);
      setTimeout((...rest) => log('zero extra args length', rest.length), 3);
    }
  }, 7, 'p', null, undefined);
}, 5, 'x', 42, { k: 1 });
