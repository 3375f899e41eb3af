// A timer never fires more than 1 ms early by Date.now(), nor more than 1 ms early by performance.now() or hrtime (libuv counts whole ms).
import { setTimeout as sleep } from 'node:timers/promises';
const log = (...a) => console.log(...a);
const d0 = Date.now();
const p0 = performance.now();
setTimeout(() => {
  log('Date delta >= 19', Date.now() - d0 >= 19);
  log('performance delta >= 19', performance.now() - p0 >= 19);
}, 20);
await sleep(60);
log('after sleep 60: Date delta >= 59', Date.now() - d0 >= 59, 'performance delta >= 59', performance.now() - p0 >= 59);
const h0 = process.hrtime.bigint();
await sleep(5);
log('hrtime delta >= 4 ms', process.hrtime.bigint() - h0 >= 4_000_000n);
