// Aborting the signal of a timers/promises setInterval iterator rejects the pending next() with
// an AbortError and ends the iteration.
import { setInterval as every, setTimeout as sleep } from 'node:timers/promises';
const log = (...a) => console.log(...a);
const ac = new AbortController();
let n = 0;
try {
  for await (const v of every(50, 'v', { signal: ac.signal })) {
    n++;
    log('got', v, n);
    if (n === 3) setTimeout(() => ac.abort(new Error('enough')), 2);
  }
  log('loop ended without error (unexpected)');
} catch (err) {
  log('caught', err.name, err.code, err.message, 'cause:', err.cause && err.cause.message);
}
const ac2 = new AbortController();
ac2.abort();
try {
  for await (const v of every(10, 'x', { signal: ac2.signal })) log('must not iterate', v);
} catch (err) {
  log('pre-aborted', err.name, err.code);
}
await sleep(5);
log('end');
