// Node's timers phase runs the timers due when it began (processTimers(now): libuv's loop time
// does not move inside the phase), however long their callbacks are busy. A timer armed by a
// busy timer callback, even a 0 ms one, waits for the next turn, after the immediate that
// callback queued, also when a second busy timer of the same phase runs in between. (The
// simulator ran the first timer's new timers before its immediate: the second busy timer's
// stall counted the phase from its own start.)
const log = [];
const spin = (ms) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
setTimeout(() => {
  setTimeout(() => log.push('A.timeout0'), 0);
  setTimeout(() => log.push('A.timeout20'), 20);
  setImmediate(() => log.push('A.immediate'));
  spin(30);
}, 10);
setTimeout(() => {
  log.push('B');
  spin(30);
}, 11);
setTimeout(() => console.log(log.join(' ')), 200);
spin(30);
