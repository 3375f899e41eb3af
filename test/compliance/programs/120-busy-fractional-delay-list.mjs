// Node truncates a timer's delay to whole ms when it picks the timer's list (insert(): MathTrunc),
// so a 10.5 ms timer is in the 10 ms list, after the 10 ms timer armed before it and before the
// one armed after it. After a busy main script all four are due at once and run x a b c. (The
// simulator keyed its lists by the raw 10.5: b was a list of its own, run after a and c.)
const log = [];
setTimeout(() => log.push('a'), 10);
setTimeout(() => log.push('b'), 10.5);
setTimeout(() => log.push('c'), 10);
setTimeout(() => log.push('x'), 5);
setTimeout(() => console.log(log.join('')), 40);
const until = performance.now() + 30;
while (performance.now() < until);
