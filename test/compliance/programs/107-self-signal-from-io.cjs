// A signal a process sends itself is read from libuv's signal pipe by a poll phase. Sent from an
// I/O callback, this turn's poll has returned: the next poll reads it, after the immediate the
// callback queued (20, 22 and 24). The simulator delivered it first.
process.on('SIGTERM', () => console.log('signal'));
require('node:fs').stat(__filename, () => {
  process.kill(process.pid, 'SIGTERM');
  setImmediate(() => console.log('immediate'));
});
setTimeout(() => {}, 50);
