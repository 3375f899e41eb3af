// An exception thrown by a timer goes to 'uncaughtException' (origin 'uncaughtException') and
// the process goes on: later timers run.
const log = (...a) => console.log(...a);
process.on('uncaughtException', (err, origin) => {
  log('uncaughtException:', err.message, origin);
});
setTimeout(() => {
  log('timer 1 throws');
  throw new Error('boom 1');
}, 10);
setTimeout(() => log('timer 2 runs'), 20);
setTimeout(() => {
  log('timer 3 throws a string');
  throw 'plain string';
}, 30);
setTimeout(() => log('timer 4 runs'), 40);
process.on('exit', (code) => log('exit', code));
