// timers/promises scheduler.wait(ms) behaves like setTimeout, scheduler.yield() like
// setImmediate; both need the scheduler as `this` (unbound: a plain TypeError from reading a
// property of undefined; a foreign object: ERR_INVALID_THIS).
import { scheduler } from 'node:timers/promises';
const log = (...a) => console.log(...a);
setTimeout(() => {
  setTimeout(() => log('setTimeout 0'), 0);
  scheduler.wait(10).then((v) => log('wait 10 resolved with', v));
  setTimeout(() => {
    log('setTimeout 10 created after');
    phase2();
  }, 10);
  scheduler.yield().then((v) => log('yield resolved with', v));
  setImmediate(() => log('setImmediate created after yield'));
}, 5);
async function phase2() {
  const ac = new AbortController();
  const p = scheduler.wait(100, { signal: ac.signal });
  ac.abort();
  try {
    await p;
  } catch (err) {
    log('aborted wait:', err.name, err.code);
  }
  const { wait } = scheduler;
  try {
    await wait(1);
    log('unbound wait resolved');
  } catch (err) {
    log('unbound wait:', err.name, err.code, err.message);
  }
  try {
    await scheduler.wait.call({}, 1);
    log('wait with a foreign this resolved');
  } catch (err) {
    log('wait with a foreign this:', err.name, err.code, err.message);
  }
  const y = scheduler.yield;
  try {
    await y();
    log('unbound yield resolved');
  } catch (err) {
    log('unbound yield:', err.name, err.code, err.message);
  }
}
