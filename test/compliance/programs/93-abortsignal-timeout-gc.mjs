// AbortSignal.timeout() holds its signal weakly: with no listener the signal can be collected
// long before its timer is due; with an 'abort' listener it stays alive, and once the listener
// is removed it can go. gc() from V8's flag, so the program runs without --expose-gc.
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

let ref = new WeakRef(AbortSignal.timeout(1_200_000));
await sleep(10);
gc();
console.log('no listener: collected', ref.deref() === undefined);

function handler() {}
ref = new WeakRef(AbortSignal.timeout(1_200_000));
ref.deref().addEventListener('abort', handler);
await sleep(10);
gc();
console.log('with a listener: alive', ref.deref() instanceof AbortSignal);
ref.deref().removeEventListener('abort', handler);
await sleep(10);
gc();
console.log('listener removed: collected', ref.deref() === undefined);

// A signal kept by the program still aborts on time (its timer is unref'd: a ref'd one keeps
// the process alive meanwhile).
const kept = AbortSignal.timeout(30);
const keepAlive = setTimeout(() => {}, 1000);
const started = Date.now();
await new Promise((resolve) => kept.addEventListener('abort', resolve));
clearTimeout(keepAlive);
console.log('kept signal aborted', kept.reason.name, Date.now() - started >= 30);
