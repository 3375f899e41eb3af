// A busy loop that waits for the clock (as Node's test-timers-immediate-queue does) ends, and
// the timer that came due meanwhile runs before the immediates queued after the loop: the
// immediates already queued run first (same check phase), then the timer, then the next turn's.
let ticked = false;
let hit = 0;
const QUEUE = 10;
function run() {
  if (hit === 0) {
    setTimeout(() => {
      ticked = true;
      console.log('timer after', hit, 'hits');
    }, 1);
    const now = Date.now();
    while (Date.now() - now < 2);
    console.log('spun');
  }
  if (ticked) return;
  hit += 1;
  setImmediate(run);
}
for (let i = 0; i < QUEUE; i++) setImmediate(run);
process.on('exit', () => console.log('hit', hit));
