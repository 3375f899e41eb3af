// An exception thrown by an immediate goes to 'uncaughtException'; the remaining immediates of
// that turn still run, in order.
const log = (...a) => console.log(...a);
process.on('uncaughtException', (err, origin) => log('uncaughtException:', err.message, origin));
setTimeout(() => {
  setImmediate(() => {
    log('immediate A throws');
    throw new Error('A failed');
  });
  setImmediate(() => log('immediate B'));
  setImmediate(() => log('immediate C'));
  setTimeout(() => log('timer after all immediates'), 20);
}, 5);
