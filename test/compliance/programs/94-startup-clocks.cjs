// The process's start-up on its monotonic clocks: during the program's first tick
// performance.now() and process.uptime() already count the time Node's own start-up took (never
// 0, which code such as lru-cache's ttl takes for "no start time"), nodeTiming's start-up
// milestones come in Node's order before it,
// the event loop has not started (loopStart -1, no idle time, no utilization), and once it has,
// loopStart lies between the start-up and now. In 'exit' listeners loopExit is set.
// (performance.timeOrigin + now() is not checked against Date.now(): plainly, under load, the
// monotonic and the wall clock drift apart by more than a few ms.)
'use strict';
const { performance } = require('node:perf_hooks');

const t = performance.nodeTiming;
const first = performance.now();
console.log('first tick: performance.now() > 0', first > 0);
console.log('first tick: uptime > 0', process.uptime() > 0);
console.log('first tick: a start time taken now is set', first ? 'yes' : 'no');
const milestones = [t.nodeStart, t.v8Start, t.environment, t.bootstrapComplete];
console.log('first tick: milestones in order', milestones[0] >= 0 && milestones.every((ms, i) => i === 0 || ms > milestones[i - 1]));
console.log('first tick: start-up before the program', t.bootstrapComplete <= first);
console.log('first tick: loopStart', t.loopStart, 'loopExit', t.loopExit, 'idleTime', t.idleTime);
console.log('first tick: utilization', JSON.stringify(performance.eventLoopUtilization()));

setTimeout(() => {
  const now = performance.now();
  console.log('timer: loopStart after start-up', t.loopStart >= t.bootstrapComplete && t.loopStart <= now);
  const elu = performance.eventLoopUtilization();
  console.log('timer: utilization counts the loop', elu.idle + elu.active > 0 && elu.idle + elu.active <= now - t.loopStart + 50);
  console.log('timer: loopExit', t.loopExit);
}, 2);

process.on('exit', () => {
  console.log('exit: loopExit after loopStart', t.loopExit > 0 && t.loopExit >= t.loopStart);
});
