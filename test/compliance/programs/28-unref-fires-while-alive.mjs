// An unref'd timer fires when something else keeps the process alive long enough.
const log = (...a) => console.log(...a);
const u = setTimeout(() => log('unref 10 fired'), 10);
u.unref();
setTimeout(() => {
  log('ref 100 fired');
  // Phase 2: an unref'd interval keeps firing while a ref'd interval keeps the process alive.
  let n = 0;
  const ui = setInterval(() => {
    n++;
  }, 4).unref();
  const keeper = setInterval(() => {
    if (n < 2) return;
    log('unref interval fired at least twice');
    clearInterval(keeper);
    clearInterval(ui);
  }, 20);
}, 100);
process.on('exit', () => log('exit'));
