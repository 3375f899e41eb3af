// After a top-level await resumes, module code runs as a promise job: a promise job it queues
// runs before a nextTick it queues.
import { setTimeout as sleep } from 'node:timers/promises';
const log = (...a) => console.log(...a);
log('before await');
const v = await sleep(20, 'value');
log('resumed with', v);
process.nextTick(() => log('nextTick after resume'));
Promise.resolve().then(() => log('promise after resume'));
setImmediate(() => log('immediate after resume'));
await null;
log('after second await');
