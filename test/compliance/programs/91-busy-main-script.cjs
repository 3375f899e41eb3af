// A main script busy for 100 ms, with a 10 ms timer and immediates queued before and after the
// busy loop. Node runs a CommonJS main script before its loop starts, so the timer that expired
// meanwhile runs first (the loop's first phase), then the immediates (docs/notes/node-facts.md,
// "What runs first after a busy callback or a stop").
const log = [];
setTimeout(() => log.push('timer10'), 10);
setImmediate(() => log.push('immediate-before'));
const start = Date.now();
while (Date.now() - start < 100);
setImmediate(() => log.push('immediate-after'));
setTimeout(() => console.log(log.join(' ')), 300);
