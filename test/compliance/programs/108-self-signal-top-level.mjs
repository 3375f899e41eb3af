// A signal sent from an ES module entry's top level: Node 22 and 24 run the entry before the loop,
// so the first poll reads it, before the check phase's immediate; Node 20 evaluates the entry
// from inside its loop, as an I/O callback, so the immediate comes first (107 for the reason).
// The timer keeps the loop alive until the signal has come (a signal's wrap is unref'd).
const alive = setTimeout(() => {}, 5000);
process.on('SIGTERM', () => {
  console.log('signal');
  clearTimeout(alive);
});
process.kill(process.pid, 'SIGTERM');
setImmediate(() => console.log('immediate'));
