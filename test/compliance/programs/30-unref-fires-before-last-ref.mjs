// An unref'd timer fires while a ref'd timer behind it in the same list keeps the loop alive;
// an unref'd timer created by the last ref'd callback never fires: the process exits first.
// (Not tested: an unref'd timer created AFTER the last ref'd one in the same list. Real Node
// fires it only if no millisecond boundary fell between the two setTimeout calls.)
const log = (...a) => console.log(...a);
setTimeout(() => log("unref A fired: ref'd B behind it keeps the loop alive"), 10).unref();
setTimeout(() => {
  log('ref B fired');
  setTimeout(() => log('unref C (must not fire)'), 1).unref();
  const d = setInterval(() => log('unref interval D (must not fire)'), 1);
  d.unref();
}, 10);
process.on('exit', () => log('exit'));
