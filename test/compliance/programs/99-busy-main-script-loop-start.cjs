// A main script busy for 30 ms (spinning on performance.now()): the event loop starts after it,
// so nodeTiming.loopStart lies after the spin, and eventLoopUtilization() does not count the
// spin as active loop time (plainly it is under 1 ms here; the bounds leave room for a loaded
// machine: a loaded CI machine started the loop more than 20 ms after the spin, plainly).
const { performance } = require('node:perf_hooks');
const t0 = performance.now();
while (performance.now() < t0 + 30);
setTimeout(() => {
  const { loopStart } = performance.nodeTiming;
  const { active } = performance.eventLoopUtilization();
  console.log(`loopStart after the spin: ${loopStart >= t0 + 30}, within 200 ms of its end: ${loopStart < t0 + 230}`);
  console.log(`active loop time under 25 ms: ${active < 25}`);
}, 50);
