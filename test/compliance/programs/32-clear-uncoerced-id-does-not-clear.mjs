// Passing a timer's numeric id to clearTimeout clears nothing unless the timer itself was
// coerced to a primitive first.
const log = (...a) => console.log(...a);
function idOf(timer) {
  const sym = Object.getOwnPropertySymbols(timer).find((s) => s.description === 'asyncId');
  return timer[sym];
}
const t = setTimeout(() => log('t fired although clearTimeout(id) was called'), 10);
const id = idOf(t);
log('id read without coercion is a number', typeof id);
clearTimeout(id);
clearInterval(id);
const u = setTimeout(() => log('u (must not fire)'), 10);
const uid = idOf(u);
log('coercion gives the same id', +u === uid);
clearTimeout(uid);
