'use strict';
// The deprecated timers.enroll / active / _unrefActive / unenroll (Node 20 and 22; removed in
// 24): any object with an _onTimeout becomes a timer. Steps run one after another; within a step
// only orders Node guarantees are printed (timers armed in the same callback, by due time; the
// same duration, by arming order).
const timers = require('node:timers');
const log = (...a) => console.log(...a);
const state = (o) => [o._idleTimeout, typeof o._idleStart, o._idleNext === null, o._destroyed].join(' ');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  if (typeof timers.enroll !== 'function') {
    log('no timers.enroll on this Node');
    return;
  }
  // 1. Fires after its duration as a method of the object; Node's own keys; same-duration order.
  await new Promise((resolve) => {
    const a = { _onTimeout() { log('a fired', this === a, state(a)); } };
    timers.enroll(a, 10);
    log('after enroll', Object.keys(a).join(','), a._idleNext === a, a._idleTimeout);
    timers.active(a);
    log('after active', Object.keys(a).join(','), a._idleNext === a, a._destroyed);
    setTimeout(() => { log('setTimeout 10, armed after a'); resolve(); }, 10);
  });

  // 2. Activated again before it fires: moved to now + 10 ms. (Not compared with a 9 ms timer
  // armed at the same moment: when the loop runs 5 ms late, real Node fires b's list first, since
  // it was due first, so that order is load-dependent.)
  await new Promise((resolve) => {
    let activatedAt = 0;
    const b = {
      _onTimeout() {
        log('b fired no earlier than 10 ms after it was activated again', performance.now() - activatedAt >= 9);
        resolve();
      },
    };
    timers.enroll(b, 10);
    timers.active(b);
    setTimeout(() => {
      activatedAt = performance.now();
      timers.active(b);
    }, 5);
  });

  // 3. Cancelled by unenroll, and by clearTimeout (it takes any object with an _onTimeout).
  const c = { _onTimeout() { log('c fired (wrong)'); } };
  timers.enroll(c, 3);
  timers.active(c);
  timers.unenroll(c);
  log('unenrolled', c._idleTimeout, c._destroyed, c._idleNext);
  const d = { _onTimeout() { log('d fired (wrong)'); } };
  timers.enroll(d, 3);
  timers.active(d);
  clearTimeout(d);
  log('cleared', d._onTimeout, d._idleTimeout, d._destroyed);
  timers.active(c); // _idleTimeout is -1: nothing happens
  timers.active({ _onTimeout() { log('never enrolled (wrong)'); } });
  await sleep(20);
  log('step 3 done');

  // 4. Enrolled again while armed: the first arming is dropped.
  let eCount = 0;
  const e = { _onTimeout() { eCount++; log('e fired at its new duration', this._idleTimeout); } };
  timers.enroll(e, 2);
  timers.active(e);
  timers.enroll(e, 12);
  timers.active(e);
  await sleep(40);
  log('e fired', eCount, 'time(s)');

  // 5. Re-armed from its own callback: fires again.
  await new Promise((resolve) => {
    let rounds = 0;
    const f = {
      _onTimeout() {
        rounds++;
        log('f round', rounds, this._destroyed);
        if (rounds < 3) timers.active(this);
        else resolve();
      },
    };
    timers.enroll(f, 4);
    timers.active(f);
  });
  await sleep(1);

  // 6. Unref'd: fires while a ref'd timer keeps the process alive.
  await new Promise((resolve) => {
    const g = { _onTimeout() { log('g (unref, 20 ms) fired'); } };
    timers.enroll(g, 20);
    timers._unrefActive(g);
    setTimeout(() => { log('ref\'d 50 ms timer'); resolve(); }, 50);
  });

  // 7. A non-function callback throws from the timer, as in Node.
  await new Promise((resolve) => {
    process.once('uncaughtException', (err) => { log('uncaught', err.name, err.message); resolve(); });
    const x = { _onTimeout: 5 };
    timers.enroll(x, 1);
    timers.active(x);
  });

  // 8. Validation.
  for (const bad of ['5', -1, Infinity, NaN]) {
    try {
      timers.enroll({}, bad);
    } catch (err) {
      log(err.name, err.code, err.message);
    }
  }

  // 9. An object with no _onTimeout fires as nothing and is destroyed; unenroll of an object
  // never enrolled; and the functions applied to timers made by setTimeout / setInterval.
  const bare = { _idleTimeout: 1 };
  timers.active(bare);
  const never = {};
  timers.unenroll(never);
  log('unenrolled, never enrolled:', never._idleTimeout, never._destroyed);
  let runs = 0;
  const iv = setInterval(() => {
    runs++;
    timers.unenroll(iv);
    log('interval unenrolled in its callback', runs, iv._idleTimeout, iv._destroyed);
  }, 1);
  const t = setTimeout(() => log('timeout made unref by _unrefActive fired'), 3);
  timers._unrefActive(t);
  log('after _unrefActive: hasRef', t.hasRef());
  await sleep(20);
  log('bare object destroyed:', bare._destroyed, 'interval runs:', runs);
  const u = setTimeout(() => log('unref\'d timeout made ref\'d by active fired'), 10);
  u.unref();
  timers.active(u);
  log('after active: hasRef', u.hasRef());

  // 10. Only an unref'd armed object left: the process exits without firing it.
  const h = { _onTimeout() { log('h fired (wrong: nothing keeps the process alive)'); } };
  timers.enroll(h, 100);
  timers._unrefActive(h);
}
main();
process.on('exit', (code) => log('exit', code));
