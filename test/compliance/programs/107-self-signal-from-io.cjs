// A signal a process sends itself is read from libuv's signal pipe by a poll phase. Sent from an
// I/O callback, this turn's poll has returned: the next poll reads it, after the immediate the
// callback queued (20, 22 and 24). The simulator delivered it first.
// The timer keeps the loop alive until the signal has come (a signal's wrap is unref'd); 50 ms
// was too short for a plain run on a loaded machine, whose stat came back after it.
const alive = setTimeout(() => {}, 5000);
process.on('SIGTERM', () => {
  console.log('signal');
  clearTimeout(alive);
});
require('node:fs').stat(__filename, () => {
  process.kill(process.pid, 'SIGTERM');
  setImmediate(() => console.log('immediate'));
});
