// performance.nodeTiming.loopExit in 'exit' listeners after an explicit process.exit(): -1, as the
// loop never ran out of work (94-startup-clocks.cjs has the natural end, where it is set).
const { performance } = require('node:perf_hooks');
process.on('exit', (code) => {
  const t = performance.nodeTiming;
  console.log(`exit ${code}: loopExit ${t.loopExit}, loopStart set ${t.loopStart > 0}`);
});
setInterval(() => {}, 1000);
setTimeout(() => process.exit(0), 10);
