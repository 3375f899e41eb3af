// The ES module version of 91-busy-main-script.cjs. Node 22 and 24 run it before the loop as they
// do a CommonJS one (timer first); Node 20 evaluates an ES module entry from inside the loop, after
// reading the file, as an I/O callback: its immediates run first, then the timer.
const log = [];
setTimeout(() => log.push('timer10'), 10);
setImmediate(() => log.push('immediate-before'));
const start = Date.now();
while (Date.now() - start < 100);
setImmediate(() => log.push('immediate-after'));
setTimeout(() => console.log(log.join(' ')), 300);
