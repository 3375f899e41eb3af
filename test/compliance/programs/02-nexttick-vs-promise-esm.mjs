// ESM top level: module evaluation is itself a promise job, so promise jobs queued at top level
// run before the nextTick queue is processed.
console.log('sync start');
Promise.resolve().then(() => console.log('promise 1'));
queueMicrotask(() => console.log('queueMicrotask 1'));
process.nextTick(() => console.log('nextTick 1'));
Promise.resolve().then(() => console.log('promise 2'));
process.nextTick(() => console.log('nextTick 2'));
queueMicrotask(() => console.log('queueMicrotask 2'));
console.log('sync end');
