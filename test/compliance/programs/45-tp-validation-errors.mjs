// timers/promises validates delay and options and reports failures as rejected promises.
import * as tp from 'node:timers/promises';
const log = (...a) => console.log(...a);
async function attempt(label, make) {
  let p;
  try {
    p = make();
  } catch (err) {
    log(label, 'threw synchronously', err.code);
    return;
  }
  log(label, 'returns a promise', p instanceof Promise);
  try {
    await p;
    log(label, 'resolved');
  } catch (err) {
    log(label, '->', err.code, err.name, JSON.stringify(err.message));
  }
}
await attempt('setTimeout string delay', () => tp.setTimeout('10'));
await attempt('setTimeout options string', () => tp.setTimeout(1, 'v', 'bad'));
await attempt('setTimeout options null', () => tp.setTimeout(1, 'v', null));
await attempt('setTimeout signal bogus', () => tp.setTimeout(1, 'v', { signal: 'nope' }));
await attempt('setTimeout ref bogus', () => tp.setTimeout(1, 'v', { ref: 1 }));
await attempt('setTimeout negative delay', () => tp.setTimeout(-5));
await attempt('setImmediate options bogus', () => tp.setImmediate('v', 7));
await attempt('setImmediate ref bogus', () => tp.setImmediate('v', { ref: 'yes' }));
const it = tp.setInterval('x');
log('setInterval with bad delay returns an iterator', typeof it.next);
try {
  await it.next();
  log('setInterval next resolved');
} catch (err) {
  log('setInterval next ->', err.code, err.name, JSON.stringify(err.message));
}
