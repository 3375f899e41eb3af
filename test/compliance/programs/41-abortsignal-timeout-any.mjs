// AbortSignal.timeout aborts with a TimeoutError DOMException; AbortSignal.any follows the first
// of its inputs to abort. (Phases run one after another; every signal stays referenced, since
// Node clears the timer of a timeout signal that is garbage-collected.)
import { setTimeout as sleep } from 'node:timers/promises';
const log = (...a) => console.log(...a);
const keep = [];

const t = AbortSignal.timeout(20);
keep.push(t);
log('timeout signal starts aborted?', t.aborted);
t.addEventListener('abort', () => {
  const r = t.reason;
  log('timeout abort:', r.name, JSON.stringify(r.message), 'code', r.code, r instanceof DOMException);
});
await sleep(60);
log('after phase 1: aborted', t.aborted);

const ac = new AbortController();
const slow = AbortSignal.timeout(5000);
const any1 = AbortSignal.any([slow, ac.signal]);
keep.push(slow, any1);
any1.onabort = () => log('any1 abort reason:', any1.reason);
setTimeout(() => ac.abort('manual'), 10);
await sleep(60);
log('after phase 2: any1', any1.aborted, 'slow source', slow.aborted);

const s40 = AbortSignal.timeout(40);
const s80 = AbortSignal.timeout(80);
const any2 = AbortSignal.any([s40, s80]);
keep.push(s40, s80, any2);
any2.addEventListener('abort', () => log('any2 abort:', any2.reason.name, 's40', s40.aborted, 's80', s80.aborted));
await sleep(150);
log('after phase 3: s80', s80.aborted);

const pre = new AbortController();
pre.abort('early');
const s10 = AbortSignal.timeout(10);
const any3 = AbortSignal.any([s10, pre.signal]);
keep.push(s10, any3);
log('any3 aborted at once', any3.aborted, any3.reason);

try {
  await sleep(1000, null, { signal: AbortSignal.timeout(30) });
} catch (err) {
  log('sleep with timeout signal:', err.name, err.code, 'cause', err.cause.name);
}
log('kept', keep.length);
