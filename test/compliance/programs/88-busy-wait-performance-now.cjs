// A timer callback that spins on performance.now() for 30 ms. The wait ends; the immediate it
// queued runs first (the check phase of the same loop turn), then the 10 ms timer armed before
// the spin (late), then the timers armed after it, each its delay after the spin (less the millisecond a real timer may fire early) (Node
// arms them from the loop time it refreshes, not from the start of the callback).
const { performance } = require('node:perf_hooks');
setTimeout(() => {
  const t0 = performance.now();
  const d0 = Date.now();
  setTimeout(() => console.log('A (10 ms, armed before the spin): late', performance.now() - t0 >= 30), 10);
  while (performance.now() < t0 + 30);
  console.log('spun >= 30 ms', performance.now() - t0 >= 30, 'Date moved >= 29 ms', Date.now() - d0 >= 29);
  const t1 = performance.now();
  setTimeout(() => console.log('B (5 ms, armed after): after its delay', performance.now() - t1 >= 4), 5);
  setTimeout(() => console.log('C (20 ms, armed after): after its delay', performance.now() - t1 >= 19), 20);
  setImmediate(() => console.log('immediate queued after the spin'));
}, 1);
