'use strict';
// CJS top level: after the main module returns, Node drains nextTicks first, then promise jobs
// (queueMicrotask shares the promise FIFO).
console.log('sync start');
Promise.resolve().then(() => console.log('promise 1'));
queueMicrotask(() => console.log('queueMicrotask 1'));
process.nextTick(() => console.log('nextTick 1'));
Promise.resolve().then(() => console.log('promise 2'));
process.nextTick(() => console.log('nextTick 2'));
queueMicrotask(() => console.log('queueMicrotask 2'));
console.log('sync end');
