// AbortSignal.timeout validates its delay like Node's validateUint32.
const log = (...a) => console.log(...a);
const inputs = [
  ['string', '10'],
  ['undefined', undefined],
  ['negative', -1],
  ['fraction', 1.5],
  ['2^32', 2 ** 32],
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['bigint', 5n],
  ['null', null],
  ['object', {}],
];
for (const [label, value] of inputs) {
  try {
    const s = AbortSignal.timeout(value);
    log(label, 'accepted, aborted:', s.aborted);
  } catch (err) {
    log(label, '->', err.code, err.name, err.constructor.name, JSON.stringify(err.message));
  }
}
const ok = AbortSignal.timeout(0);
log('zero accepted', ok instanceof AbortSignal);
log('name/length', AbortSignal.timeout.name, AbortSignal.timeout.length);
