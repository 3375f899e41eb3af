// How setTimeout/setInterval coerce their delay, as seen on the handle (_idleTimeout/_repeat).
const log = (...a) => console.log(...a);
const cases = [
  ['string 10', '10'],
  ['string 0x10', '0x10'],
  ['string padded', ' 12 '],
  ['string abc', 'abc'],
  ['empty string', ''],
  ['fraction 1.5', 1.5],
  ['fraction 0.5', 0.5],
  ['zero', 0],
  ['negative', -5],
  ['NaN', NaN],
  ['null', null],
  ['true', true],
  ['array [7]', [7]],
  ['array []', []],
  ['object valueOf 3', { valueOf: () => 3 }],
  ['max int32', 2 ** 31 - 1],
];
const handles = [];
for (const [name, delay] of cases) {
  const t = setTimeout(() => {}, delay);
  handles.push(t);
  log(name, '->', t._idleTimeout, 'repeat', t._repeat);
}
const iv = setInterval(() => {}, '25');
log('interval string 25 ->', iv._idleTimeout, 'repeat', iv._repeat);
const iv2 = setInterval(() => {}, -3);
log('interval negative ->', iv2._idleTimeout, 'repeat', iv2._repeat);
for (const h of handles) clearTimeout(h);
clearInterval(iv);
clearInterval(iv2);
for (const [name, bad] of [['symbol', Symbol('s')], ['bigint', 10n]]) {
  try {
    setTimeout(() => {}, bad);
    log(name, 'accepted');
  } catch (err) {
    log(name, 'throws', err.constructor.name, err.message);
  }
}
