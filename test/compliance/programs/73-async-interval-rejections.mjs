// An async interval callback that rejects produces one unhandledRejection per firing; the
// interval keeps going until cleared.
const log = (...a) => console.log(...a);
let n = 0;
process.on('unhandledRejection', (reason) => {
  log('unhandledRejection:', reason.message);
  if (n === 3) {
    clearInterval(iv);
    log('cleared');
  }
});
const iv = setInterval(async () => {
  n++;
  log('firing', n);
  await null;
  throw new Error(`rejection ${n}`);
}, 10);
process.on('exit', (code) => log('exit', code, 'firings', n));
