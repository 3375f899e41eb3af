// An immediate that queues another immediate and then is busy for 5 ms (spinning on the clock):
// the queued immediate belongs to the next turn, so a 1 ms timer that came due meanwhile runs
// first (the next turn's timers phase). (Found by review, 2026-12-03.)
const log = [];
const busy = (ms) => { const t = performance.now(); while (performance.now() - t < ms); };
setTimeout(() => {
  setTimeout(() => log.push('timer 1 ms'), 1);
  setImmediate(() => {
    setImmediate(() => log.push('immediate queued before the spin'));
    busy(5);
  });
}, 5);
// Far enough out that a process starved of CPU (a loaded CI machine) has run the rest first.
setTimeout(() => console.log(log.join('\n')), 300);
