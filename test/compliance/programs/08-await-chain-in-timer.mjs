// A 50-deep await chain started by one timer finishes before the next timer of the same list.
const log = (s) => console.log(s);
async function depth(n) {
  if (n === 0) return 0;
  await null;
  return 1 + (await depth(n - 1));
}
setTimeout(async () => {
  log('timer 1 start');
  const d = await depth(50);
  log(`timer 1 chain done: ${d}`);
}, 20);
setTimeout(() => log('timer 2'), 20);
