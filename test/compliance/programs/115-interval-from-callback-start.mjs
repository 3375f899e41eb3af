// An interval is due its delay from when its callback started (Node's listOnTimeout takes its
// `start` from the loop's clock before the call): a callback that runs longer than the delay
// does not stretch the period, and the next run is due at once, ahead of a timer due later.
// (The simulator counted the delay from the callback's end: 50 + 100 ms per run.)
const order = [];
const busy = (ms) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
let runs = 0;
const interval = setInterval(() => {
  order.push(`interval run ${++runs}`);
  if (runs === 3) clearInterval(interval);
  else busy(100);
}, 50);
setTimeout(() => order.push('timer of 240 ms'), 240);
setTimeout(() => console.log(order.join('\n')), 600);
