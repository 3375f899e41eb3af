// Top-level await on a timer that does not keep the process alive: the loop empties, Node
// reports the unsettled top-level await and exits with code 13.
import { setTimeout as sleep } from 'node:timers/promises';
process.on('exit', (code) => console.log('exit', code));
console.log('before await');
await sleep(100, null, { ref: false });
console.log('after await (must not happen)');
