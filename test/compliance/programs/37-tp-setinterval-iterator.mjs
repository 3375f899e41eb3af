// timers/promises setInterval as an async iterator: values in order, break stops the timer,
// and interval ticks interleave with other timers of the same delay in creation order.
import { setInterval as every } from 'node:timers/promises';
const log = (...a) => console.log(...a);
let n = 0;
for await (const v of every(10, 'tick')) {
  n++;
  log('iteration', n, v);
  if (n === 4) break;
}
log('after break');
const it = every(5, 'manual');
log('first next', JSON.stringify(await it.next()));
log('second next', JSON.stringify(await it.next()));
log('return', JSON.stringify(await it.return()));
log('next after return', JSON.stringify(await it.next()));
process.on('exit', () => log('exit'));
