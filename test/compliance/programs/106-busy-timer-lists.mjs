// Node keeps its timers in one list per duration, and its timers phase runs every due timer of
// a list before it looks at the next list (listOnTimeout), taking the lists in the order their
// first timers came due. After a busy timer, A1 (50 ms, due at 50) and A2 (50 ms, armed at 5: due
// at 55) run together, before B (30 ms, armed at 22: due at 52). (The simulator ran what came
// due during the busy callback in deadline order: A1, B, A2.)
const t0 = performance.now();
const log = [];
setTimeout(() => log.push('A1'), 50);
setTimeout(() => setTimeout(() => log.push('A2'), 50), 5);
setTimeout(() => {
  setTimeout(() => log.push('B'), 30);
  while (performance.now() - t0 < 80);
}, 22);
setTimeout(() => console.log(log.join(' ')), 200);
