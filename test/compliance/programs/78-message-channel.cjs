'use strict';
// MessagePort and BroadcastChannel inside one thread: a posted message is dispatched in the
// loop's next poll phase, so before a timer armed after the post, even a 1 ms one. (The first
// timer is 100 ms: one armed by the main script can expire before the loop's first poll when
// start-up is slow, as on a loaded machine, where a 10 ms one ran first.)
const log = (...a) => console.log(...a);
const mc = new MessageChannel();
mc.port1.onmessage = ({ data }) => log('port got', data);
mc.port2.postMessage('from the top level');
setTimeout(() => {
  log('timer 100 ms');
  mc.port2.postMessage({ from: 'a timer', n: 2 });
  setTimeout(() => {
    log('timer +1 ms');
    mc.port1.close();
    const a = new BroadcastChannel('dst'), b = new BroadcastChannel('dst');
    b.onmessage = ({ data }) => log('channel got', data);
    a.postMessage('broadcast');
    setTimeout(() => {
      log('timer +1 ms after the broadcast');
      a.close();
      b.close();
    }, 1);
  }, 1);
}, 100);
process.on('exit', (code) => log('exit', code));
