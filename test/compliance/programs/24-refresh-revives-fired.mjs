// refresh() on a timer that already fired brings it back to life (it fires again and keeps the
// process alive).
const log = (...a) => console.log(...a);
let fired = 0;
const t = setTimeout(() => {
  fired++;
  log('t fired', fired);
}, 5);
setTimeout(() => {
  log('before refresh: destroyed', t._destroyed);
  t.refresh();
  log('after refresh: destroyed', t._destroyed, 'hasRef', t.hasRef());
}, 20);
process.on('exit', () => log('exit, t fired', fired, 'times'));
