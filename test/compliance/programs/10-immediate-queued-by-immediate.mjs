// Immediates queued while the check phase runs wait for the next turn: A B then C D.
const log = (s) => console.log(s);
setImmediate(() => {
  log('A');
  setImmediate(() => {
    log('C (queued by A)');
    process.nextTick(() => log('C nextTick'));
    setImmediate(() => log('E (queued by C)'));
  });
});
setImmediate(() => {
  log('B');
  setImmediate(() => log('D (queued by B)'));
});
