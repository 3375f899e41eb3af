// process.exitCode set by a timer is the exit code when the loop empties naturally.
const log = (...a) => console.log(...a);
process.on('exit', (code) => log('exit listener, code', code));
setTimeout(() => {
  process.exitCode = 7;
  log('exitCode set to 7');
  setTimeout(() => log('later timer still runs'), 20);
}, 10);
